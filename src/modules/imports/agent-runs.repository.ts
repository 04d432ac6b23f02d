import type { Insertable, Selectable } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { Executor } from '../../db/executor.ts';
import { parseJson } from '../../lib/json.ts';
import type { AgentRunStatus, ImportAgentRunsTable } from './imports.tables.ts';

/** One run of an agent over the documents of its scope: `document:<id>`, `batch:<k>` or `completion`. */
export interface AgentRun {
  id: string;
  tenantId: string;
  projectId: string;
  agentId: string;
  scope: string;
  documentIds: string[];
  status: AgentRunStatus;
  /** The proposed changes (the approval task's data); null until the agent proposed. */
  proposal: unknown;
  /** What was applied; null until applied. */
  result: unknown;
  taskId: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

/** What a run's move to another state may set. */
export type AgentRunPatch = Partial<
  Omit<AgentRun, 'id' | 'tenantId' | 'projectId' | 'agentId' | 'scope' | 'createdAt'>
>;

export function toAgentRun(row: Selectable<ImportAgentRunsTable>): AgentRun {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    projectId: row.project_id,
    agentId: row.agent_id,
    scope: row.scope,
    documentIds: parseJson<string[]>(row.document_ids, []),
    status: row.status,
    proposal: parseJson<unknown>(row.proposal, null),
    result: parseJson<unknown>(row.result, null),
    taskId: row.task_id,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

/** A JSON column that may be empty: null stays SQL null. */
const jsonOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

const COLUMNS: ColumnMap<AgentRun, ImportAgentRunsTable> = {
  id: 'id',
  tenantId: 'tenant_id',
  projectId: 'project_id',
  agentId: 'agent_id',
  scope: 'scope',
  documentIds: ['document_ids', (v) => JSON.stringify(v)],
  status: 'status',
  proposal: ['proposal', jsonOrNull],
  result: ['result', jsonOrNull],
  taskId: 'task_id',
  error: 'error',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  finishedAt: 'finished_at',
};

/** SQL for agent runs; every query takes the tenant. */
export class AgentRunsRepository {
  /** Adds a run; false when the agent already has one for this scope (an event delivered twice). */
  async insert(db: Executor, run: AgentRun): Promise<boolean> {
    const row = columnsOf(COLUMNS, run) as Insertable<ImportAgentRunsTable>;
    const result = await db
      .insertInto('import_agent_runs')
      .values(row)
      .onConflict((oc) => oc.columns(['agent_id', 'scope']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async find(db: Executor, tenantId: string, id: string): Promise<AgentRun | null> {
    const row = await db
      .selectFrom('import_agent_runs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toAgentRun(row) : null;
  }

  /** Moves a run on from `from`; false when it had already moved (a redelivered job, a second decision). */
  async transition(
    db: Executor,
    tenantId: string,
    id: string,
    from: AgentRunStatus,
    patch: AgentRunPatch,
  ): Promise<boolean> {
    const result = await db
      .updateTable('import_agent_runs')
      .set(columnsOf(COLUMNS, patch))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** A project's runs with their agent's type, oldest first. */
  async list(
    db: Executor,
    tenantId: string,
    projectId: string,
    f: { agentId?: string | undefined; status?: AgentRunStatus | undefined; limit: number; offset: number },
  ): Promise<{ rows: (AgentRun & { agentType: string })[]; total: number }> {
    let q = db
      .selectFrom('import_agent_runs as r')
      .innerJoin('import_agents as a', (j) =>
        j.onRef('a.id', '=', 'r.agent_id').onRef('a.tenant_id', '=', 'r.tenant_id'),
      )
      .where('r.tenant_id', '=', tenantId)
      .where('r.project_id', '=', projectId);
    if (f.agentId) q = q.where('r.agent_id', '=', f.agentId);
    if (f.status) q = q.where('r.status', '=', f.status);
    const [rows, total] = await Promise.all([
      q
        .selectAll('r')
        .select('a.agent_type')
        .orderBy('r.created_at')
        .orderBy('r.id')
        .limit(f.limit)
        .offset(f.offset)
        .execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map((r) => ({ ...toAgentRun(r), agentType: r.agent_type })), total: Number(total.n) };
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
  async counts(
    db: Executor,
    tenantId: string,
    projectId: string,
  ): Promise<Map<string, Partial<Record<AgentRunStatus, number>>>> {
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
}
