import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { TenantDirectory } from '../../domain/tenant.ts';
import { JobLostError, type RunningJob } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { DocumentAi, NewTask, Task, TaskOutcome, TaskSource } from '../workflows/index.ts';
import { DOCUMENT_AGENTS, isDocumentAgent, isObject } from './agent-kinds.ts';
import type { AgentRun, AgentRunPatch, AgentRunsRepository } from './agent-runs.repository.ts';
import { importAuth } from './job-auth.ts';
import type { ImportAgent, ImportProject, ProjectsRepository } from './projects.repository.ts';

export const AGENT_RUN_JOB = 'imports.agent';
export interface AgentRunPayload {
  tenantId: string;
  runId: string;
}

/** The name import agent tasks are registered under in the task inbox. */
export const AGENT_TASK_SOURCE = 'import_agent';

const HOUR_MS = 3_600_000;
const DEFAULT_TIMEOUT_HOURS = 7 * 24;
const LABELS: Record<string, string> = {
  ai_tag: 'AI tags',
  ai_classify: 'AI classification',
  ai_summarize: 'AI summaries',
  ai_extract: 'AI extracted fields',
  workflow: 'Workflow run',
};

interface Deps {
  database: Database;
  clock: Clock;
  logger: Logger;
  runs: AgentRunsRepository;
  projects: ProjectsRepository;
  ai: DocumentAi;
  tenants: TenantDirectory;
  library: Pick<ModuleServices['documentPipeline'], 'find'>;
  documents: Pick<ModuleServices['documents'], 'annotate'>;
  tasks: ModuleServices['humanTasks'];
  executions: Pick<ModuleServices['workflowExecutions'], 'startById'>;
}

type Proposal = { agent_type: string; workflow_id?: string; documents: Record<string, unknown>[] };

/**
 * Runs one agent run (a durable job): reads each document of its scope, asks the agent for its
 * proposal, and in the transaction that completes the job either applies it (`auto_approve`) or
 * files an approval task in the workflow task inbox. As the inbox's `import_agent` source it is
 * told the decision in the transaction that completes (or expires) the task, and applies the
 * proposal as approved, perhaps edited, or leaves the documents alone.
 */
export class AgentRunner implements TaskSource {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  async run(job: RunningJob<AgentRunPayload>): Promise<void> {
    const { database, runs, projects, clock } = this.deps;
    const { tenantId, runId } = job.payload;
    const db = database.db;
    const run = await runs.find(db, tenantId, runId);
    if (run?.status !== 'queued') return;
    const [agent, project] = await Promise.all([
      projects.findAgent(db, tenantId, run.agentId),
      projects.find(db, tenantId, run.projectId),
    ]);
    if (!agent || !project) return;
    // The agent reads the documents as the import does: as the administrator who set the project up.
    const reader = await importAuth(this.deps.tenants, tenantId, project.createdBy);
    if (!reader) return;
    const { config } = agent;
    let proposal: Proposal;
    try {
      proposal = await this.#propose(reader, run, agent, config, job.signal);
    } catch (error) {
      if (error instanceof JobLostError || job.signal.aborted || job.attempt < job.maxAttempts) throw error;
      return this.#finish(job, run, 'failed', { error: `The agent failed: ${messageOf(error)}` });
    }
    const readable = proposal.documents.filter((d) => d.error === undefined);
    if (readable.length === 0)
      return this.#finish(job, run, 'failed', {
        proposal,
        error: `No document could be read: ${String(proposal.documents[0]?.error ?? 'none left')}`,
      });

    await database.db.transaction().execute(async (trx) => {
      await job.completeIn(trx);
      const now = clock.now();
      if (agent.autoApprove) {
        const applied = await this.#apply(trx, run, agent, config, proposal);
        await this.#move(trx, run, 'queued', { ...applied, proposal, finishedAt: now, updatedAt: now });
        return;
      }
      const task = await this.deps.tasks.createFor(
        trx,
        { tenantId, source: AGENT_TASK_SOURCE, sourceRef: run.id, label: `Import "${project.name}"` },
        approvalTask(run, agent, project, config, proposal, now),
      );
      await this.#move(trx, run, 'queued', { status: 'awaiting_approval', proposal, taskId: task.id, updatedAt: now });
    });
  }

  /** The task inbox's call, in the transaction that decides the task. */
  async settle(trx: Executor, task: Task, outcome: TaskOutcome): Promise<void> {
    const { runs, projects, clock } = this.deps;
    const run = task.sourceRef ? await runs.find(trx, task.tenantId, task.sourceRef) : null;
    if (run?.status !== 'awaiting_approval') return;
    const now = clock.now();
    const decided = { finishedAt: now, updatedAt: now };
    if (outcome.decision === 'rejected' || outcome.decision === 'expired') {
      await this.#move(trx, run, 'awaiting_approval', { status: outcome.decision, ...decided });
      return;
    }
    const agent = await projects.findAgent(trx, task.tenantId, run.agentId);
    if (!agent) return;
    const proposal = outcome.data as Proposal;
    const applied = await this.#apply(trx, run, agent, agent.config, proposal);
    await this.#move(trx, run, 'awaiting_approval', {
      ...applied,
      ...(outcome.decision === 'modified' ? { proposal } : {}),
      ...decided,
    });
  }

  /** Before a project is deleted (its runs go with it): its proposals still awaiting approval leave the inbox. */
  async withdraw(trx: Executor, tenantId: string, projectId: string): Promise<void> {
    await this.deps.tasks.withdraw(
      trx,
      tenantId,
      AGENT_TASK_SOURCE,
      await this.deps.runs.pendingTaskIds(trx, tenantId, projectId),
    );
  }

  async #propose(
    reader: AuthContext,
    run: AgentRun,
    agent: ImportAgent,
    config: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Proposal> {
    const { ai, library, database } = this.deps;
    const documents: Record<string, unknown>[] = [];
    for (const id of run.documentIds) {
      signal.throwIfAborted();
      const doc = await library.find(database.db, run.tenantId, id);
      if (!doc) {
        documents.push({ document_id: id, filename: null, error: 'the document was deleted' });
        continue;
      }
      const entry = { document_id: id, filename: doc.filename };
      if (!isDocumentAgent(agent.agentType)) {
        documents.push(entry);
        continue;
      }
      let text: string;
      try {
        text = await ai.text(reader, id, 'Import agent');
      } catch (error) {
        documents.push({ ...entry, error: messageOf(error) });
        continue;
      }
      documents.push({ ...entry, ...(await DOCUMENT_AGENTS[agent.agentType].propose(ai, text, config, signal)) });
    }
    return {
      agent_type: agent.agentType,
      ...(agent.agentType === 'workflow' ? { workflow_id: String(config.workflow_id) } : {}),
      documents,
    };
  }

  /**
   * Applies a proposal to the run's own documents (an edited proposal cannot reach others): each
   * entry becomes a document change, or, for a workflow agent, one execution is started. A
   * workflow that cannot start (deleted, paused, invalid) fails the run, not the decision.
   */
  async #apply(
    trx: Executor,
    run: AgentRun,
    agent: ImportAgent,
    config: Record<string, unknown>,
    proposal: Proposal,
  ): Promise<{ status: 'applied' | 'failed'; result: unknown; error?: string }> {
    const scope = new Set(run.documentIds);
    const entries = (Array.isArray(proposal?.documents) ? proposal.documents : []).filter(
      (e) => isObject(e) && scope.has(String(e.document_id)) && e.error === undefined,
    );
    if (agent.agentType === 'workflow') {
      const documentIds = entries.map((e) => String(e.document_id));
      try {
        const execution = await this.deps.executions.startById(trx, run.tenantId, String(config.workflow_id), {
          triggerType: 'import_agent',
          triggerData: {
            project_id: run.projectId,
            agent_id: agent.id,
            run_id: run.id,
            phase: agent.phase,
            ...(documentIds.length === 1 ? { document_id: documentIds[0] } : {}),
            document_ids: documentIds,
          },
          triggerKey: `import_agent:${run.id}`,
        });
        return { status: 'applied', result: { execution_id: execution?.id ?? null, document_ids: documentIds } };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return {
          status: 'failed',
          result: { execution_id: null },
          error: `The workflow could not start: ${error.message}`,
        };
      }
    }
    const kind = DOCUMENT_AGENTS[agent.agentType as keyof typeof DOCUMENT_AGENTS];
    const results = [];
    for (const entry of entries) {
      const change = kind?.change(entry, config);
      if (!change) continue;
      const changed = await this.deps.documents.annotate(trx, run.tenantId, String(entry.document_id), change);
      results.push({
        document_id: String(entry.document_id),
        changed: changed ?? [],
        ...(changed === null ? { note: 'the document was deleted' } : {}),
      });
    }
    return { status: 'applied', result: { documents: results } };
  }

  async #finish(
    job: RunningJob<AgentRunPayload>,
    run: AgentRun,
    status: 'failed',
    fields: { proposal?: Proposal; error: string },
  ): Promise<void> {
    const now = this.deps.clock.now();
    this.deps.logger.warn({ runId: run.id, agentId: run.agentId, error: fields.error }, 'import agent run failed');
    await this.deps.database.db.transaction().execute(async (trx) => {
      await job.completeIn(trx);
      await this.#move(trx, run, 'queued', {
        status,
        error: fields.error,
        ...(fields.proposal ? { proposal: fields.proposal } : {}),
        finishedAt: now,
        updatedAt: now,
      });
    });
  }

  /** A run moves once; losing that race rolls the caller's transaction back (the winner's changes stand). */
  async #move(trx: Executor, run: AgentRun, from: AgentRun['status'], patch: AgentRunPatch): Promise<void> {
    if (!(await this.deps.runs.transition(trx, run.tenantId, run.id, from, patch)))
      throw new Error(`Agent run ${run.id} was no longer ${from}`);
  }
}

/** The approval task of a run: the proposal as its data, the agent's approval settings (default: role admin, 7 days, rejected on expiry). */
function approvalTask(
  run: AgentRun,
  agent: ImportAgent,
  project: ImportProject,
  config: Record<string, unknown>,
  proposal: Proposal,
  now: number,
): NewTask {
  const hours = typeof config.timeout_hours === 'number' ? config.timeout_hours : DEFAULT_TIMEOUT_HOURS;
  const count = proposal.documents.length;
  const onTimeout = String(config.on_timeout ?? 'reject') as NewTask['onTimeout'];
  return {
    taskType: 'approval',
    title: `${LABELS[agent.agentType] ?? agent.agentType} for ${count} document${count === 1 ? '' : 's'} of import "${project.name}"`,
    description:
      agent.agentType === 'workflow'
        ? `Approve to start workflow ${String(config.workflow_id)} for these documents; reject to leave them alone.`
        : 'Approve to apply the proposed changes in data.documents; reject to leave the documents as they are; or decide "modified" with modified_data.documents to apply an edited proposal.',
    context: {
      project_id: project.id,
      project_name: project.name,
      agent_id: agent.id,
      agent_type: agent.agentType,
      phase: agent.phase,
      run_id: run.id,
      scope: run.scope,
      document_ids: run.documentIds,
    },
    data: proposal,
    assigneeType: (typeof config.assignee_type === 'string' ? config.assignee_type : 'role') as NewTask['assigneeType'],
    assigneeValue: typeof config.assignee_value === 'string' ? config.assignee_value : 'admin',
    editableFields: null,
    onTimeout,
    escalateTo: typeof config.escalate_to === 'string' ? config.escalate_to : null,
    dueAt: now + Math.round(hours * HOUR_MS),
    escalationAt: now + Math.round(hours * 0.75 * HOUR_MS),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
