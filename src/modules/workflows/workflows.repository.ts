import { type Insertable, type Selectable, sql } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { DialectName } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { type Principal, parsePrincipal, principalKey } from '../../domain/principal.ts';
import { newId } from '../../lib/ids.ts';
import { parseJson } from '../../lib/json.ts';
import type { NodeState, WorkflowDefinition, WorkflowNode } from './engine/types.ts';
import { asPriority, type ExecutionPriority } from './execution-priority.ts';
import type { WorkflowExecutionsTable, WorkflowNodeRunsTable, WorkflowsTable } from './workflows.tables.ts';

export type WorkflowTrigger = NonNullable<WorkflowDefinition['trigger']>;
export type ErrorHandling = NonNullable<WorkflowDefinition['error_handling']>;

/** A workflow as services see it: its current version's definition parsed. */
export interface Workflow {
  id: string;
  tenantId: string;
  name: string;
  description: string;
  status: 'draft' | 'active' | 'paused';
  version: number;
  trigger: WorkflowTrigger;
  nodes: WorkflowNode[];
  errorHandling: ErrorHandling;
  lastExecutionAt: number | null;
  /** Schedule trigger: when the next tick is due. */
  nextRunAt: number | null;
  /** Who may see and change it (with tenant administrators), and whom its triggers' executions run as. */
  owner: Principal;
  createdAt: number;
  updatedAt: number;
}

/** One run of a workflow version. */
export interface Execution {
  id: string;
  tenantId: string;
  workflowId: string;
  workflowVersion: number;
  workflowName: string;
  status: 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';
  pausedReason: string | null;
  triggerType: string;
  triggerData: Record<string, unknown>;
  vars: Record<string, unknown>;
  /** Started from a draft: a test run. */
  testRun: boolean;
  /** null until it finishes (and when it finished without output). */
  finalOutput: unknown;
  error: string | null;
  failedNodeId: string | null;
  cancelReason: string | null;
  /** `<source>:<workflow>:<event or tick>` when a trigger started it; unique. */
  triggerKey: string | null;
  /** The job priority class of its steps. */
  priority: ExecutionPriority;
  /** Whom its nodes act as (what they may read) and who owns it: the caller of `execute`, or the workflow's owner for a trigger. */
  principal: Principal;
  startedAt: number;
  pausedAt: number | null;
  finishedAt: number | null;
  updatedAt: number;
}

/** One node of one execution. */
export interface NodeRun {
  id: string;
  tenantId: string;
  executionId: string;
  nodeId: string;
  status: NodeState;
  attempt: number;
  /** null until it completes (and when it completed without output). */
  output: unknown;
  error: string | null;
  reason: string | null;
  /** The job allowed to run it, or `task:<id>` while a human task holds it. */
  runnerJobId: string | null;
  /** How far a node that runs in several jobs got (a loop: its outputs so far); null otherwise. */
  checkpoint: unknown;
  startedAt: number | null;
  completedAt: number | null;
  updatedAt: number;
}

export function toWorkflow(row: Selectable<WorkflowsTable>): Workflow {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    description: row.description,
    status: row.status,
    version: row.version,
    trigger: parseJson<WorkflowTrigger>(row.trigger, { type: 'manual' }),
    nodes: parseJson<WorkflowNode[]>(row.nodes, []),
    errorHandling: parseJson<ErrorHandling>(row.error_handling, {}),
    lastExecutionAt: row.last_execution_at,
    nextRunAt: row.next_run_at,
    owner: parsePrincipal(row.owner),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const WORKFLOW_COLUMNS: ColumnMap<Workflow, WorkflowsTable> = {
  id: (v) => ({ id: v }),
  tenantId: (v) => ({ tenant_id: v }),
  name: (v) => ({ name: v }),
  description: (v) => ({ description: v }),
  status: (v) => ({ status: v }),
  version: (v) => ({ version: v }),
  trigger: (v) => ({ trigger: JSON.stringify(v) }),
  nodes: (v) => ({ nodes: JSON.stringify(v) }),
  errorHandling: (v) => ({ error_handling: JSON.stringify(v) }),
  lastExecutionAt: (v) => ({ last_execution_at: v }),
  nextRunAt: (v) => ({ next_run_at: v }),
  owner: (v) => ({ owner: principalKey(v) }),
  createdAt: (v) => ({ created_at: v }),
  updatedAt: (v) => ({ updated_at: v }),
};

export function toExecution(row: Selectable<WorkflowExecutionsTable>): Execution {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    workflowId: row.workflow_id,
    workflowVersion: row.workflow_version,
    workflowName: row.workflow_name,
    status: row.status,
    pausedReason: row.paused_reason,
    triggerType: row.trigger_type,
    triggerData: parseJson<Record<string, unknown>>(row.trigger_data, {}),
    vars: parseJson<Record<string, unknown>>(row.vars, {}),
    testRun: Number(row.test_run) === 1,
    finalOutput: parseJson<unknown>(row.final_output, null),
    error: row.error,
    failedNodeId: row.failed_node_id,
    cancelReason: row.cancel_reason,
    triggerKey: row.trigger_key,
    priority: asPriority(row.priority),
    principal: parsePrincipal(row.principal),
    startedAt: row.started_at,
    pausedAt: row.paused_at,
    finishedAt: row.finished_at,
    updatedAt: row.updated_at,
  };
}

/** A JSON column that may hold no value: null is stored as NULL. */
const jsonOrNull = (v: unknown): string | null => (v === null ? null : JSON.stringify(v));

const EXECUTION_COLUMNS: ColumnMap<Execution, WorkflowExecutionsTable> = {
  id: (v) => ({ id: v }),
  tenantId: (v) => ({ tenant_id: v }),
  workflowId: (v) => ({ workflow_id: v }),
  workflowVersion: (v) => ({ workflow_version: v }),
  workflowName: (v) => ({ workflow_name: v }),
  status: (v) => ({ status: v }),
  pausedReason: (v) => ({ paused_reason: v }),
  triggerType: (v) => ({ trigger_type: v }),
  triggerData: (v) => ({ trigger_data: JSON.stringify(v) }),
  vars: (v) => ({ vars: JSON.stringify(v) }),
  testRun: (v) => ({ test_run: v ? 1 : 0 }),
  finalOutput: (v) => ({ final_output: jsonOrNull(v) }),
  error: (v) => ({ error: v }),
  failedNodeId: (v) => ({ failed_node_id: v }),
  cancelReason: (v) => ({ cancel_reason: v }),
  triggerKey: (v) => ({ trigger_key: v }),
  priority: (v) => ({ priority: v }),
  principal: (v) => ({ principal: principalKey(v) }),
  startedAt: (v) => ({ started_at: v }),
  pausedAt: (v) => ({ paused_at: v }),
  finishedAt: (v) => ({ finished_at: v }),
  updatedAt: (v) => ({ updated_at: v }),
};

export function toNodeRun(row: Selectable<WorkflowNodeRunsTable>): NodeRun {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    executionId: row.execution_id,
    nodeId: row.node_id,
    status: row.status,
    attempt: row.attempt,
    output: parseJson<unknown>(row.output, null),
    error: row.error,
    reason: row.reason,
    runnerJobId: row.runner_job_id,
    checkpoint: parseJson<unknown>(row.checkpoint, null),
    startedAt: row.started_at,
    completedAt: row.completed_at,
    updatedAt: row.updated_at,
  };
}

const NODE_RUN_COLUMNS: ColumnMap<NodeRun, WorkflowNodeRunsTable> = {
  id: (v) => ({ id: v }),
  tenantId: (v) => ({ tenant_id: v }),
  executionId: (v) => ({ execution_id: v }),
  nodeId: (v) => ({ node_id: v }),
  status: (v) => ({ status: v }),
  attempt: (v) => ({ attempt: v }),
  output: (v) => ({ output: jsonOrNull(v) }),
  error: (v) => ({ error: v }),
  reason: (v) => ({ reason: v }),
  runnerJobId: (v) => ({ runner_job_id: v }),
  checkpoint: (v) => ({ checkpoint: jsonOrNull(v) }),
  startedAt: (v) => ({ started_at: v }),
  completedAt: (v) => ({ completed_at: v }),
  updatedAt: (v) => ({ updated_at: v }),
};

/** Named queries of the workflows module, every one scoped by tenant. */
export class WorkflowsRepository {
  readonly dialect: DialectName;
  constructor(dialect: DialectName) {
    this.dialect = dialect;
  }

  async findWorkflow(db: Executor, tenantId: string, id: string): Promise<Workflow | null> {
    const row = await db
      .selectFrom('workflows')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toWorkflow(row) : null;
  }

  /** By id alone: only for the public webhook hook, whose signature then proves the caller. */
  async findWorkflowAnyTenant(db: Executor, id: string): Promise<Workflow | null> {
    const row = await db.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toWorkflow(row) : null;
  }

  async countWorkflows(db: Executor, tenantId: string): Promise<number> {
    const row = await db
      .selectFrom('workflows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** `owner` (a stored principal) narrows the list to that owner's workflows. */
  async listWorkflows(
    db: Executor,
    tenantId: string,
    o: { status?: string; owner?: string; limit: number; offset: number },
  ): Promise<{ rows: Workflow[]; total: number }> {
    let q = db.selectFrom('workflows').where('tenant_id', '=', tenantId);
    if (o.owner !== undefined) q = q.where('owner', '=', o.owner);
    if (o.status) q = q.where('status', '=', o.status as Workflow['status']);
    const rows = await q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(o.limit)
      .offset(o.offset)
      .execute();
    const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows: rows.map(toWorkflow), total: Number(total.n) };
  }

  /** The tenant's active workflows (trigger matching; a Team tenant has at most 50). */
  async activeWorkflows(db: Executor, tenantId: string): Promise<Workflow[]> {
    const rows = await db
      .selectFrom('workflows')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'active')
      .execute();
    return rows.map(toWorkflow);
  }

  async insertWorkflow(db: Executor, workflow: Workflow): Promise<void> {
    // Every field maps to a column, so the values are a whole row.
    await db
      .insertInto('workflows')
      .values(columnsOf(WORKFLOW_COLUMNS, workflow) as Insertable<WorkflowsTable>)
      .execute();
  }

  async updateWorkflow(db: Executor, tenantId: string, id: string, patch: Partial<Workflow>): Promise<void> {
    await db
      .updateTable('workflows')
      .set(columnsOf(WORKFLOW_COLUMNS, patch))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async deleteWorkflow(db: Executor, tenantId: string, id: string): Promise<void> {
    await db.deleteFrom('workflows').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async insertVersion(
    db: Executor,
    tenantId: string,
    workflowId: string,
    version: number,
    definition: WorkflowDefinition,
    at: number,
  ): Promise<void> {
    await db
      .insertInto('workflow_versions')
      .values({
        tenant_id: tenantId,
        workflow_id: workflowId,
        version,
        definition: JSON.stringify(definition),
        created_at: at,
      })
      .execute();
  }

  /** A version's definition (`{nodes: []}` when the version is missing). */
  async findVersion(db: Executor, tenantId: string, workflowId: string, version: number): Promise<WorkflowDefinition> {
    const row = await db
      .selectFrom('workflow_versions')
      .select('definition')
      .where('tenant_id', '=', tenantId)
      .where('workflow_id', '=', workflowId)
      .where('version', '=', version)
      .executeTakeFirst();
    return parseJson<WorkflowDefinition>(row?.definition, { nodes: [] });
  }

  async executionStats(
    db: Executor,
    tenantId: string,
    workflowId: string,
  ): Promise<{ status: string; n: number; duration: number }[]> {
    const rows = await db
      .selectFrom('workflow_executions')
      .select((eb) => [
        'status',
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>(eb('finished_at', '-', eb.ref('started_at'))).as('duration'),
      ])
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

  async findExecution(db: Executor, tenantId: string, id: string): Promise<Execution | null> {
    const row = await db
      .selectFrom('workflow_executions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toExecution(row) : null;
  }

  /** Reads the execution and, on PostgreSQL, locks it until commit: its transitions run one at a time. */
  async lockExecution(db: Executor, tenantId: string, id: string): Promise<Execution | undefined> {
    let q = db.selectFrom('workflow_executions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
    if (this.dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row && toExecution(row);
  }

  /** `principal` (a stored principal) narrows the list to the executions that run as it. */
  async listExecutions(
    db: Executor,
    tenantId: string,
    o: { workflowId?: string; status?: string; principal?: string; limit: number; offset: number },
  ): Promise<{ rows: Execution[]; total: number }> {
    let q = db.selectFrom('workflow_executions').where('tenant_id', '=', tenantId);
    if (o.principal !== undefined) q = q.where('principal', '=', o.principal);
    if (o.workflowId) q = q.where('workflow_id', '=', o.workflowId);
    if (o.status) q = q.where('status', '=', o.status as Execution['status']);
    const rows = await q
      .selectAll()
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(o.limit)
      .offset(o.offset)
      .execute();
    const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows: rows.map(toExecution), total: Number(total.n) };
  }

  /** False when an execution with the same `trigger_key` exists (the trigger already fired). */
  async insertExecution(db: Executor, execution: Execution): Promise<boolean> {
    const result = await db
      .insertInto('workflow_executions')
      .values(columnsOf(EXECUTION_COLUMNS, execution) as Insertable<WorkflowExecutionsTable>)
      .onConflict((oc) => oc.column('trigger_key').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /**
   * Inserts a new execution, stamps its workflow's `last_execution_at` and writes its `started` log
   * line; false (and nothing written) when its `trigger_key` already started one. On PostgreSQL one
   * statement (the update and the log line hang on the insert's RETURNING): the `execute` call's
   * transaction is a chain of round trips, and the API starts executions one after another.
   */
  async startExecution(db: Executor, execution: Execution, message: string): Promise<boolean> {
    const { tenantId, workflowId, startedAt: at } = execution;
    if (this.dialect !== 'postgres') {
      if (!(await this.insertExecution(db, execution))) return false;
      await this.updateWorkflow(db, tenantId, workflowId, { lastExecutionAt: at });
      await this.log(db, tenantId, execution.id, 'started', message, at);
      return true;
    }
    const insert = db
      .insertInto('workflow_executions')
      .values(columnsOf(EXECUTION_COLUMNS, execution) as Insertable<WorkflowExecutionsTable>)
      .onConflict((oc) => oc.column('trigger_key').doNothing())
      .returning('id');
    const { rows } = await sql<{ id: string }>`
      with started as (${insert}),
      stamped as (
        update workflows set last_execution_at = ${at}
        where tenant_id = ${tenantId} and id = ${workflowId} and exists (select 1 from started)
      )
      insert into workflow_execution_log (id, tenant_id, execution_id, node_id, kind, message, at)
      select ${newId(at)}, ${tenantId}, started.id, null, 'started', ${message}, ${at} from started
      returning execution_id as id`.execute(db);
    return rows.length > 0;
  }

  async updateExecution(db: Executor, tenantId: string, id: string, patch: Partial<Execution>): Promise<void> {
    await db
      .updateTable('workflow_executions')
      .set(columnsOf(EXECUTION_COLUMNS, patch))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async nodeRuns(db: Executor, tenantId: string, executionId: string): Promise<NodeRun[]> {
    const rows = await db
      .selectFrom('workflow_node_runs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('execution_id', '=', executionId)
      .orderBy('id')
      .execute();
    return rows.map(toNodeRun);
  }

  async findNodeRun(db: Executor, tenantId: string, id: string): Promise<NodeRun | null> {
    const row = await db
      .selectFrom('workflow_node_runs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toNodeRun(row) : null;
  }

  async insertNodeRuns(db: Executor, runs: NodeRun[]): Promise<void> {
    if (runs.length > 0) await this.insertNodeRunsQuery(db, runs).execute();
  }

  /** The insert of `insertNodeRuns`, not run: for a caller that sends it with another write (JobQueue `along`). */
  insertNodeRunsQuery(db: Executor, runs: NodeRun[]) {
    return db
      .insertInto('workflow_node_runs')
      .values(runs.map((run) => columnsOf(NODE_RUN_COLUMNS, run) as Insertable<WorkflowNodeRunsTable>));
  }

  async updateNodeRun(db: Executor, tenantId: string, id: string, patch: Partial<NodeRun>): Promise<void> {
    await db
      .updateTable('workflow_node_runs')
      .set(columnsOf(NODE_RUN_COLUMNS, patch))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** Marks every queued or running run of the execution with `status` (cancel, end, fail). */
  async closeOpenRuns(
    db: Executor,
    tenantId: string,
    executionId: string,
    status: 'cancelled' | 'skipped',
    reason: string,
    at: number,
  ): Promise<void> {
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

  async log(
    db: Executor,
    tenantId: string,
    executionId: string,
    kind: string,
    message: string,
    at: number,
    nodeId: string | null = null,
  ): Promise<void> {
    await db
      .insertInto('workflow_execution_log')
      .values({ id: newId(at), tenant_id: tenantId, execution_id: executionId, node_id: nodeId, kind, message, at })
      .execute();
  }

  /** Several log lines of one execution in one insert, in the order given. */
  async logMany(
    db: Executor,
    tenantId: string,
    executionId: string,
    lines: readonly { nodeId: string | null; kind: string; message: string; at: number }[],
  ): Promise<void> {
    if (lines.length === 0) return;
    await db
      .insertInto('workflow_execution_log')
      .values(
        lines.map((l) => ({
          id: newId(l.at),
          tenant_id: tenantId,
          execution_id: executionId,
          node_id: l.nodeId,
          kind: l.kind,
          message: l.message,
          at: l.at,
        })),
      )
      .execute();
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
