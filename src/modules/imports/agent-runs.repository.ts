import type { Selectable, Updateable } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AgentRunStatus, ImportAgentRunsTable } from './imports.tables.ts';
import type { ItemRow } from './items.repository.ts';

export type AgentRunRow = Selectable<ImportAgentRunsTable>;

/** SQL for agent runs and for the settling of imported files they are scheduled from; every query takes the tenant. */
export class AgentRunsRepository {
  readonly #dialect: DialectName;
  constructor(dialect: DialectName) {
    this.#dialect = dialect;
  }

  /** Adds a run; false when the agent already has one for this scope (an event delivered twice). */
  async insert(db: Executor, row: AgentRunRow): Promise<boolean> {
    const result = await db.insertInto('import_agent_runs').values(row).onConflict((oc) => oc.columns(['agent_id', 'scope']).doNothing()).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async find(db: Executor, tenantId: string, id: string): Promise<AgentRunRow | null> {
    return (await db.selectFrom('import_agent_runs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  /** Moves a run on from `from`; false when it had already moved (a redelivered job, a second decision). */
  async transition(db: Executor, tenantId: string, id: string, from: AgentRunStatus, patch: Updateable<ImportAgentRunsTable>): Promise<boolean> {
    const result = await db.updateTable('import_agent_runs').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).where('status', '=', from).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** A project's runs with their agent's type, oldest first. */
  async list(db: Executor, tenantId: string, projectId: string, f: { agentId?: string | undefined; status?: AgentRunStatus | undefined; limit: number; offset: number }): Promise<{ rows: (AgentRunRow & { agent_type: string })[]; total: number }> {
    let q = db
      .selectFrom('import_agent_runs as r')
      .innerJoin('import_agents as a', (j) => j.onRef('a.id', '=', 'r.agent_id').onRef('a.tenant_id', '=', 'r.tenant_id'))
      .where('r.tenant_id', '=', tenantId)
      .where('r.project_id', '=', projectId);
    if (f.agentId) q = q.where('r.agent_id', '=', f.agentId);
    if (f.status) q = q.where('r.status', '=', f.status);
    const [rows, total] = await Promise.all([
      q.selectAll('r').select('a.agent_type').orderBy('r.created_at').orderBy('r.id').limit(f.limit).offset(f.offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** The tasks of a project's runs still awaiting approval. */
  async pendingTaskIds(db: Executor, tenantId: string, projectId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('import_agent_runs')
      .select('task_id')
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('status', '=', 'awaiting_approval')
      .execute();
    return rows.map((r) => r.task_id).filter((id): id is string => id !== null);
  }

  /** Runs per agent and status, for the agents listing. */
  async counts(db: Executor, tenantId: string, projectId: string): Promise<Map<string, Partial<Record<AgentRunStatus, number>>>> {
    const rows = await db
      .selectFrom('import_agent_runs')
      .select(['agent_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .groupBy(['agent_id', 'status'])
      .execute();
    const byAgent = new Map<string, Partial<Record<AgentRunStatus, number>>>();
    for (const r of rows) byAgent.set(r.agent_id, { ...byAgent.get(r.agent_id), [r.status]: Number(r.n) });
    return byAgent;
  }

  /** Serialises the settling of a project's files (sequence numbers, batch boundaries, completion) with its state changes. */
  async lockProject(trx: Executor, tenantId: string, projectId: string): Promise<void> {
    if (this.#dialect !== 'postgres') return; // SQLite writers already run one at a time
    await trx.selectFrom('import_projects').select('id').where('tenant_id', '=', tenantId).where('id', '=', projectId).forUpdate().executeTakeFirst();
  }

  /** The imported file whose document this is, while it has not settled. */
  async unsettledByDocument(db: Executor, tenantId: string, documentId: string): Promise<ItemRow | null> {
    const row = await db
      .selectFrom('import_items')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .where('status', '=', 'imported')
      .where('settled_at', 'is', null)
      .executeTakeFirst();
    return row ?? null;
  }

  /** Marks a file settled with the project's next sequence number (or none, for a document that vanished); the number. */
  async settle(trx: Executor, item: Pick<ItemRow, 'tenant_id' | 'project_id' | 'id'>, now: number, numbered = true): Promise<number | null> {
    const seq = numbered ? (await this.settledCount(trx, item.tenant_id, item.project_id)) + 1 : null;
    await trx.updateTable('import_items').set({ settled_at: now, settled_seq: seq }).where('tenant_id', '=', item.tenant_id).where('id', '=', item.id).execute();
    return seq;
  }

  /** Documents of the files numbered `after` < seq ≤ `upTo` (upTo null: all), in settling order. */
  async settledDocuments(db: Executor, tenantId: string, projectId: string, after: number, upTo: number | null): Promise<string[]> {
    let q = db
      .selectFrom('import_items')
      .select('document_id')
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('settled_seq', '>', after);
    if (upTo !== null) q = q.where('settled_seq', '<=', upTo);
    const rows = await q.orderBy('settled_seq').execute();
    return rows.map((r) => r.document_id).filter((id): id is string => id !== null);
  }

  /** How many of the project's files have settled with a number (the last number given). */
  async settledCount(db: Executor, tenantId: string, projectId: string): Promise<number> {
    const { top } = await db
      .selectFrom('import_items')
      .select((eb) => eb.fn.max<number | null>('settled_seq').as('top'))
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(top ?? 0);
  }

  /** Imported files whose documents have not settled yet. */
  async unsettled(db: Executor, tenantId: string, projectId: string): Promise<ItemRow[]> {
    return db
      .selectFrom('import_items')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('status', '=', 'imported')
      .where('settled_at', 'is', null)
      .execute();
  }
}
