import type { Selectable } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { newId } from '../../lib/ids.ts';
import type {
  WorkflowExecutionsTable,
  WorkflowNodeRunsTable,
  WorkflowsTable,
} from './workflows.tables.ts';

export type WorkflowRow = Selectable<WorkflowsTable>;
export type ExecutionRow = Selectable<WorkflowExecutionsTable>;
export type NodeRunRow = Selectable<WorkflowNodeRunsTable>;

/** Named queries of the workflows module, every one scoped by tenant. */
export class WorkflowsRepository {
  readonly dialect: DialectName;
  constructor(dialect: DialectName) {
    this.dialect = dialect;
  }

  findWorkflow(db: Executor, tenantId: string, id: string): Promise<WorkflowRow | undefined> {
    return db.selectFrom('workflows').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  }

  /** By id alone: only for the public webhook hook, whose signature then proves the caller. */
  findWorkflowAnyTenant(db: Executor, id: string): Promise<WorkflowRow | undefined> {
    return db.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async countWorkflows(db: Executor, tenantId: string): Promise<number> {
    const row = await db.selectFrom('workflows').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async listWorkflows(db: Executor, tenantId: string, o: { status?: string; limit: number; offset: number }): Promise<{ rows: WorkflowRow[]; total: number }> {
    let q = db.selectFrom('workflows').where('tenant_id', '=', tenantId);
    if (o.status) q = q.where('status', '=', o.status as WorkflowRow['status']);
    const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(o.limit).offset(o.offset).execute();
    const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(total.n) };
  }

  /** The tenant's active workflows (trigger matching; a Team tenant has at most 50). */
  activeWorkflows(db: Executor, tenantId: string): Promise<WorkflowRow[]> {
    return db.selectFrom('workflows').selectAll().where('tenant_id', '=', tenantId).where('status', '=', 'active').execute();
  }

  /** `/Invoices/2025` for a folder (walking up its parents), `/` for the root. */
  async folderPath(db: Executor, tenantId: string, folderId: string | null): Promise<string> {
    const names: string[] = [];
    let id = folderId;
    for (let depth = 0; id !== null && depth < 100; depth++) {
      const folder = await db.selectFrom('folders').select(['name', 'parent_id']).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      if (!folder) break;
      names.unshift(folder.name);
      id = folder.parent_id;
    }
    return `/${names.join('/')}`;
  }

  async insertWorkflow(db: Executor, row: WorkflowRow): Promise<void> {
    await db.insertInto('workflows').values(row).execute();
  }

  async updateWorkflow(db: Executor, tenantId: string, id: string, patch: Partial<WorkflowRow>): Promise<void> {
    await db.updateTable('workflows').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async deleteWorkflow(db: Executor, tenantId: string, id: string): Promise<void> {
    await db.deleteFrom('workflows').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async insertVersion(db: Executor, tenantId: string, workflowId: string, version: number, definition: unknown, at: number): Promise<void> {
    await db.insertInto('workflow_versions').values({ tenant_id: tenantId, workflow_id: workflowId, version, definition: JSON.stringify(definition), created_at: at }).execute();
  }

  async findVersion(db: Executor, tenantId: string, workflowId: string, version: number): Promise<string | undefined> {
    const row = await db
      .selectFrom('workflow_versions')
      .select('definition')
      .where('tenant_id', '=', tenantId)
      .where('workflow_id', '=', workflowId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row?.definition;
  }

  async executionStats(db: Executor, tenantId: string, workflowId: string): Promise<{ status: string; n: number; duration: number }[]> {
    const rows = await db
      .selectFrom('workflow_executions')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n'), eb.fn.sum<number>(eb('finished_at', '-', eb.ref('started_at'))).as('duration')])
      .where('tenant_id', '=', tenantId)
      .where('workflow_id', '=', workflowId)
      .groupBy('status')
      .execute();
    return rows.map((r) => ({ status: r.status, n: Number(r.n), duration: Number(r.duration ?? 0) }));
  }

  async countActiveExecutions(db: Executor, tenantId: string, workflowId: string): Promise<number> {
    const row = await db
      .selectFrom('workflow_executions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('workflow_id', '=', workflowId)
      .where('status', 'in', ['running', 'paused'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  // Executions

  findExecution(db: Executor, tenantId: string, id: string): Promise<ExecutionRow | undefined> {
    return db.selectFrom('workflow_executions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  }

  /** Reads the execution and, on PostgreSQL, locks it until commit: its transitions run one at a time. */
  lockExecution(db: Executor, tenantId: string, id: string): Promise<ExecutionRow | undefined> {
    let q = db.selectFrom('workflow_executions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
    if (this.dialect === 'postgres') q = q.forUpdate();
    return q.executeTakeFirst();
  }

  async listExecutions(
    db: Executor,
    tenantId: string,
    o: { workflowId?: string; status?: string; limit: number; offset: number },
  ): Promise<{ rows: ExecutionRow[]; total: number }> {
    let q = db.selectFrom('workflow_executions').where('tenant_id', '=', tenantId);
    if (o.workflowId) q = q.where('workflow_id', '=', o.workflowId);
    if (o.status) q = q.where('status', '=', o.status as ExecutionRow['status']);
    const rows = await q.selectAll().orderBy('started_at', 'desc').orderBy('id', 'desc').limit(o.limit).offset(o.offset).execute();
    const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows, total: Number(total.n) };
  }

  /** False when an execution with the same `trigger_key` exists (the trigger already fired). */
  async insertExecution(db: Executor, row: ExecutionRow): Promise<boolean> {
    const result = await db
      .insertInto('workflow_executions')
      .values(row)
      .onConflict((oc) => oc.column('trigger_key').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async updateExecution(db: Executor, tenantId: string, id: string, patch: Partial<ExecutionRow>): Promise<void> {
    await db.updateTable('workflow_executions').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  nodeRuns(db: Executor, tenantId: string, executionId: string): Promise<NodeRunRow[]> {
    return db.selectFrom('workflow_node_runs').selectAll().where('tenant_id', '=', tenantId).where('execution_id', '=', executionId).orderBy('id').execute();
  }

  findNodeRun(db: Executor, tenantId: string, id: string): Promise<NodeRunRow | undefined> {
    return db.selectFrom('workflow_node_runs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  }

  async insertNodeRuns(db: Executor, rows: NodeRunRow[]): Promise<void> {
    if (rows.length > 0) await db.insertInto('workflow_node_runs').values(rows).execute();
  }

  async updateNodeRun(db: Executor, tenantId: string, id: string, patch: Partial<NodeRunRow>): Promise<void> {
    await db.updateTable('workflow_node_runs').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  /** Marks every queued or running run of the execution with `status` (cancel, end, fail). */
  async closeOpenRuns(db: Executor, tenantId: string, executionId: string, status: 'cancelled' | 'skipped', reason: string, at: number): Promise<void> {
    await db
      .updateTable('workflow_node_runs')
      .set({ status, reason, completed_at: at, updated_at: at })
      .where('tenant_id', '=', tenantId)
      .where('execution_id', '=', executionId)
      .where('status', 'in', ['queued', 'running'])
      .execute();
  }

  /** Pending tasks of a finished or cancelled execution become `expired` (contract §10). */
  async expirePendingTasks(db: Executor, tenantId: string, executionId: string, at: number): Promise<void> {
    await db
      .updateTable('workflow_tasks')
      .set({ status: 'expired', updated_at: at })
      .where('tenant_id', '=', tenantId)
      .where('execution_id', '=', executionId)
      .where('status', '=', 'pending')
      .execute();
  }

  async log(db: Executor, tenantId: string, executionId: string, kind: string, message: string, at: number, nodeId: string | null = null): Promise<void> {
    await db.insertInto('workflow_execution_log').values({ id: newId(at), tenant_id: tenantId, execution_id: executionId, node_id: nodeId, kind, message, at }).execute();
  }

  async deleteTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('workflow_tasks').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('workflow_execution_log').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('workflow_node_runs').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('workflow_executions').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('workflow_versions').where('tenant_id', '=', tenantId).execute();
    await db.deleteFrom('workflows').where('tenant_id', '=', tenantId).execute();
  }
}
