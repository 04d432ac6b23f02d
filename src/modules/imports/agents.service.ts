import type { Database } from '../../db/database.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { ModuleServices } from '../../platform/module.ts';
import { type ConfigProblem, checkApprovalConfig, DOCUMENT_AGENTS, isDocumentAgent } from './agent-kinds.ts';
import type { AgentRun, AgentRunsRepository } from './agent-runs.repository.ts';
import { type AgentRunStatus, TERMINAL_STATUSES } from './imports.tables.ts';
import type { ImportAgent, ProjectsRepository } from './projects.repository.ts';
import { findProject } from './projects.service.ts';

interface Deps {
  database: Database;
  clock: Clock;
  projects: ProjectsRepository;
  runs: AgentRunsRepository;
  workflows: Pick<ModuleServices['workflows'], 'get'>;
}

export interface AgentInput {
  agent_type: string;
  phase: string;
  batch_size?: number;
  config?: Record<string, unknown>;
  auto_approve?: boolean;
}

/** Agents of import projects (contract §12): assignment with its config checked, and what their runs did. */
export class AgentsService {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  /** 201 with the assignment; 400 for a config the agent cannot run with, 404 for a missing workflow, 409 on a finished project. */
  async add(auth: AuthContext, projectId: string, input: AgentInput): Promise<ImportAgent> {
    const { database, projects, clock } = this.deps;
    await findProject(projects, database.db, auth, projectId);
    if (input.phase === 'batch' && input.batch_size === undefined)
      throw errors.field('batch_size', 'is required for the batch phase');
    if (input.phase !== 'batch' && input.batch_size !== undefined)
      throw errors.field('batch_size', 'applies to the batch phase only');
    const config = input.config ?? {};
    const problems: ConfigProblem[] = [
      ...checkApprovalConfig(config),
      ...(isDocumentAgent(input.agent_type) ? DOCUMENT_AGENTS[input.agent_type].check(config) : []),
    ];
    if (input.agent_type === 'workflow' && (typeof config.workflow_id !== 'string' || config.workflow_id === ''))
      problems.push({ field: 'config.workflow_id', message: 'is required for a workflow agent' });
    if (problems.length > 0) throw errors.validation(problems);
    // The workflow must exist now (404 `workflow_not_found`); whether it is active is checked when it starts.
    if (input.agent_type === 'workflow') await this.deps.workflows.get(auth, String(config.workflow_id));
    return database.db.transaction().execute(async (trx) => {
      const project = await findProject(projects, trx, auth, projectId);
      if (TERMINAL_STATUSES.includes(project.status))
        throw errors.conflict(`A ${project.status} project takes no more agents`, { status: project.status });
      const now = clock.now();
      const agent: ImportAgent = {
        id: newId(now),
        tenantId: auth.tenant.id,
        projectId,
        agentType: input.agent_type,
        phase: input.phase,
        batchSize: input.batch_size ?? null,
        config,
        autoApprove: input.auto_approve ?? false,
        createdAt: now,
      };
      await projects.insertAgent(trx, agent);
      return agent;
    });
  }

  /** The project's agents, each with its runs counted by status. */
  async list(
    auth: AuthContext,
    projectId: string,
  ): Promise<{ agent: ImportAgent; runs: Partial<Record<AgentRunStatus, number>> }[]> {
    const { database, projects, runs } = this.deps;
    await findProject(projects, database.db, auth, projectId);
    const [agents, counts] = await Promise.all([
      projects.listAgents(database.db, auth.tenant.id, projectId),
      runs.counts(database.db, auth.tenant.id, projectId),
    ]);
    return agents.map((agent) => ({ agent, runs: counts.get(agent.id) ?? {} }));
  }

  /** The project's agent runs, oldest first, by agent and status. */
  async runs(
    auth: AuthContext,
    projectId: string,
    f: { agentId?: string | undefined; status?: AgentRunStatus | undefined; limit: number; offset: number },
  ): Promise<{ rows: (AgentRun & { agentType: string })[]; total: number }> {
    const { database, projects, runs } = this.deps;
    await findProject(projects, database.db, auth, projectId);
    return runs.list(database.db, auth.tenant.id, projectId, f);
  }
}
