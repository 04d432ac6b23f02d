import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { RecordedEvent } from '../../events/record-event.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { ModuleServices } from '../../platform/module.ts';
import { AGENT_RUN_JOB, type AgentRunPayload } from './agent-runner.ts';
import type { AgentRun, AgentRunsRepository } from './agent-runs.repository.ts';
import type { ItemsRepository } from './items.repository.ts';
import type { ImportAgent, ProjectsRepository } from './projects.repository.ts';

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  runs: AgentRunsRepository;
  items: ItemsRepository;
  projects: ProjectsRepository;
  library: Pick<ModuleServices['documentPipeline'], 'find'>;
}

/** An import ends for its agents in these states (a cancelled import runs no completion agent). */
const FINISHED = new Set(['completed', 'completed_with_errors']);

/**
 * Decides when agents run (spec "Import project" agents): an imported file *settles* when its
 * document has finished processing (`document.processed` or `document.failed`, so the agent reads
 * the extracted text); then its `post-import` agents run for it, a `batch` agent runs for every
 * `batch_size` settled documents, and once the import has finished and every document settled,
 * the last partial batch and the `completion` agents run. Settling is serialised per project (a
 * row lock on PostgreSQL), and one run per agent and scope is a unique key, so an event delivered
 * twice or two workers at once queue nothing twice.
 */
export class AgentScheduler {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  async onEvent(event: RecordedEvent): Promise<void> {
    if (event.name !== 'document.processed' && event.name !== 'document.failed') return;
    const { database, items, projects, clock } = this.deps;
    const documentId = String(event.data.document_id);
    const item = await items.unsettledByDocument(database.db, event.tenantId, documentId);
    if (!item) return;
    await database.db.transaction().execute(async (trx) => {
      await projects.lockForUpdate(trx, database.dialect, item.tenantId, item.projectId);
      if (!(await items.unsettledByDocument(trx, item.tenantId, documentId))) return;
      const seq = (await items.settle(trx, item, clock.now()))!;
      for (const agent of await projects.listAgents(trx, item.tenantId, item.projectId)) {
        if (agent.phase === 'post-import') await this.#queue(trx, agent, `document:${documentId}`, [documentId]);
        const size = agent.batchSize ?? 0;
        if (agent.phase === 'batch' && size > 0 && seq % size === 0) {
          await this.#queue(
            trx,
            agent,
            `batch:${seq / size}`,
            await items.settledDocuments(trx, item.tenantId, item.projectId, seq - size, seq),
          );
        }
      }
      await this.importEnded(trx, item.tenantId, item.projectId);
    });
  }

  /**
   * Called in the transaction that finishes an import and after each settling: when the import is
   * over and every imported document has settled, the last partial batch and the completion agents.
   */
  async importEnded(trx: Executor, tenantId: string, projectId: string): Promise<void> {
    const { items, projects, library, clock } = this.deps;
    const project = await projects.find(trx, tenantId, projectId);
    if (!project || !FINISHED.has(project.status)) return;
    for (const item of await items.unsettled(trx, tenantId, projectId)) {
      // A document deleted before it was processed never settles by event: it is passed over.
      if (item.documentId && (await library.find(trx, tenantId, item.documentId))) return;
      await items.settle(trx, item, clock.now(), false);
    }
    const settled = await items.settledCount(trx, tenantId, projectId);
    for (const agent of await projects.listAgents(trx, tenantId, projectId)) {
      const size = agent.batchSize ?? 0;
      if (agent.phase === 'batch' && size > 0 && settled % size !== 0) {
        const full = Math.floor(settled / size);
        await this.#queue(
          trx,
          agent,
          `batch:${full + 1}`,
          await items.settledDocuments(trx, tenantId, projectId, full * size, null),
        );
      }
      if (agent.phase === 'completion')
        await this.#queue(trx, agent, 'completion', await items.settledDocuments(trx, tenantId, projectId, 0, null));
    }
  }

  /** One run per agent and scope, with its job in the same transaction. */
  async #queue(trx: Executor, agent: ImportAgent, scope: string, documentIds: string[]): Promise<void> {
    if (documentIds.length === 0) return;
    const now = this.deps.clock.now();
    const run: AgentRun = {
      id: newId(now),
      tenantId: agent.tenantId,
      projectId: agent.projectId,
      agentId: agent.id,
      scope,
      documentIds,
      status: 'queued',
      proposal: null,
      result: null,
      taskId: null,
      error: null,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
    };
    if (!(await this.deps.runs.insert(trx, run))) return;
    const payload: AgentRunPayload = { tenantId: agent.tenantId, runId: run.id };
    await this.deps.jobs.enqueue(trx, AGENT_RUN_JOB, payload, {
      tenantId: agent.tenantId,
      uniqueKey: `${AGENT_RUN_JOB}:${run.id}`,
    });
  }
}
