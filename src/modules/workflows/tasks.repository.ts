import type { Expression, ExpressionBuilder, Insertable, Selectable, SqlBool } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { Executor } from '../../db/executor.ts';
import type { DB } from '../../db/schema.ts';
import { parseJson } from '../../lib/json.ts';
import type { WorkflowTasksTable } from './workflows.tables.ts';

/**
 * A human task (contract §10) of a human node, or of another module's `source` (an import agent's
 * proposal), which then has no execution, workflow, node or run.
 */
export interface Task {
  id: string;
  tenantId: string;
  executionId: string | null;
  workflowId: string | null;
  /** The workflow's name, or the label another source gave its task. */
  workflowName: string | null;
  nodeId: string | null;
  runId: string | null;
  taskType: 'approval' | 'review' | 'assignment';
  title: string;
  description: string;
  context: Record<string, unknown>;
  assigneeType: 'role' | 'user' | 'workspace';
  assigneeValue: string;
  /** The fields a review may change; null when not a review with a list. */
  editableFields: string[] | null;
  onTimeout: 'fail' | 'approve' | 'reject';
  escalateTo: string | null;
  status: 'pending' | 'completed' | 'expired';
  decision: string | null;
  comments: string | null;
  data: Record<string, unknown>;
  decidedBy: string | null;
  escalatedAt: number | null;
  createdAt: number;
  dueAt: number;
  escalationAt: number;
  completedAt: number | null;
  updatedAt: number;
  /** `workflow`, or the name a module registered its task source under (TasksService.registerSource). */
  source: string;
  sourceRef: string | null;
}

export function toTask(row: Selectable<WorkflowTasksTable>): Task {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    executionId: row.execution_id,
    workflowId: row.workflow_id,
    workflowName: row.workflow_name,
    nodeId: row.node_id,
    runId: row.run_id,
    taskType: row.task_type,
    title: row.title,
    description: row.description,
    context: parseJson<Record<string, unknown>>(row.context, {}),
    assigneeType: row.assignee_type,
    assigneeValue: row.assignee_value,
    editableFields: parseJson<string[] | null>(row.editable_fields, null),
    onTimeout: row.on_timeout,
    escalateTo: row.escalate_to,
    status: row.status,
    decision: row.decision,
    comments: row.comments,
    data: parseJson<Record<string, unknown>>(row.data, {}),
    decidedBy: row.decided_by,
    escalatedAt: row.escalated_at,
    createdAt: row.created_at,
    dueAt: row.due_at,
    escalationAt: row.escalation_at,
    completedAt: row.completed_at,
    updatedAt: row.updated_at,
    source: row.source,
    sourceRef: row.source_ref,
  };
}

const TASK_COLUMNS: ColumnMap<Task, WorkflowTasksTable> = {
  id: (v) => ({ id: v }),
  tenantId: (v) => ({ tenant_id: v }),
  executionId: (v) => ({ execution_id: v }),
  workflowId: (v) => ({ workflow_id: v }),
  workflowName: (v) => ({ workflow_name: v }),
  nodeId: (v) => ({ node_id: v }),
  runId: (v) => ({ run_id: v }),
  taskType: (v) => ({ task_type: v }),
  title: (v) => ({ title: v }),
  description: (v) => ({ description: v }),
  context: (v) => ({ context: JSON.stringify(v) }),
  assigneeType: (v) => ({ assignee_type: v }),
  assigneeValue: (v) => ({ assignee_value: v }),
  editableFields: (v) => ({ editable_fields: v === null ? null : JSON.stringify(v) }),
  onTimeout: (v) => ({ on_timeout: v }),
  escalateTo: (v) => ({ escalate_to: v }),
  status: (v) => ({ status: v }),
  decision: (v) => ({ decision: v }),
  comments: (v) => ({ comments: v }),
  data: (v) => ({ data: JSON.stringify(v) }),
  decidedBy: (v) => ({ decided_by: v }),
  escalatedAt: (v) => ({ escalated_at: v }),
  createdAt: (v) => ({ created_at: v }),
  dueAt: (v) => ({ due_at: v }),
  escalationAt: (v) => ({ escalation_at: v }),
  completedAt: (v) => ({ completed_at: v }),
  updatedAt: (v) => ({ updated_at: v }),
  source: (v) => ({ source: v }),
  sourceRef: (v) => ({ source_ref: v }),
};

/** Who a user is for task assignment: their id, built-in and custom roles, workspaces. */
export interface Assignee {
  userId: string;
  roles: string[];
  workspaceIds: string[];
}

export interface TaskFilter {
  assignee?: Assignee;
  /**
   * A caller who is not a tenant administrator sees only tasks assigned to them (`assignee`) and
   * the tasks of executions that run as them (`principal`, stored form).
   */
  visibleTo?: {
    assignee: Assignee | null;
    principal: string;
    /** Sources with a rule of their own (TaskSource.access): their tasks are visible by it, not by assignment. */
    sources?: { name: string; condition: TaskRefCondition }[];
  };
  role?: string;
  status?: Task['status'];
  limit: number;
  offset: number;
}

/** A source's visibility rule as SQL: "the caller reaches the task whose `source_ref` is this". */
export type TaskRefCondition = (sourceRef: Expression<string | null>) => Expression<SqlBool>;

/** "The task is assigned to this person": directly, through one of their roles, or one of their workspaces. */
function assignedTo(eb: ExpressionBuilder<DB, 'workflow_tasks'>, a: Assignee): Expression<SqlBool>[] {
  return [
    eb.and([eb('assignee_type', '=', 'user'), eb('assignee_value', '=', a.userId)]),
    ...(a.roles.length ? [eb.and([eb('assignee_type', '=', 'role'), eb('assignee_value', 'in', a.roles)])] : []),
    ...(a.workspaceIds.length
      ? [eb.and([eb('assignee_type', '=', 'workspace'), eb('assignee_value', 'in', a.workspaceIds)])]
      : []),
  ];
}

/** Named queries for human tasks, every one scoped by tenant. */
export class TasksRepository {
  async insert(db: Executor, task: Task): Promise<void> {
    // Every field maps to a column, so the values are a whole row.
    await db
      .insertInto('workflow_tasks')
      .values(columnsOf(TASK_COLUMNS, task) as Insertable<WorkflowTasksTable>)
      .execute();
  }

  async find(db: Executor, tenantId: string, id: string): Promise<Task | null> {
    const row = await db
      .selectFrom('workflow_tasks')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toTask(row) : null;
  }

  /** Moves a pending task on; false when it was no longer pending (another completion won). */
  async updatePending(db: Executor, tenantId: string, id: string, patch: Partial<Task>): Promise<boolean> {
    const result = await db
      .updateTable('workflow_tasks')
      .set(columnsOf(TASK_COLUMNS, patch))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async expirePending(db: Executor, tenantId: string, source: string, ids: string[], now: number): Promise<void> {
    await db
      .updateTable('workflow_tasks')
      .set({ status: 'expired', updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('source', '=', source)
      .where('id', 'in', ids)
      .where('status', '=', 'pending')
      .execute();
  }

  /** Tasks by assignee (directly, by role or by workspace), role and status, newest first. */
  async list(db: Executor, tenantId: string, f: TaskFilter): Promise<{ rows: Task[]; total: number }> {
    let q = db.selectFrom('workflow_tasks').where('tenant_id', '=', tenantId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.role) q = q.where('assignee_type', '=', 'role').where('assignee_value', '=', f.role);
    const a = f.assignee;
    if (a) q = q.where((eb) => eb.or(assignedTo(eb, a)));
    const visible = f.visibleTo;
    if (visible) {
      q = q.where((eb) => {
        const own = visible.sources ?? [];
        const assigned = eb.or([
          ...(visible.assignee ? assignedTo(eb, visible.assignee) : []),
          eb(
            'execution_id',
            'in',
            eb
              .selectFrom('workflow_executions')
              .select('workflow_executions.id')
              .where('workflow_executions.tenant_id', '=', tenantId)
              .where('workflow_executions.principal', '=', visible.principal),
          ),
        ]);
        return eb.or([
          own.length > 0
            ? eb.and([
                eb(
                  'source',
                  'not in',
                  own.map((s) => s.name),
                ),
                assigned,
              ])
            : assigned,
          ...own.map((s) => eb.and([eb('source', '=', s.name), s.condition(eb.ref('source_ref'))])),
        ]);
      });
    }
    // The page and the count are independent reads: in parallel, on two connections where there is a pool.
    const [rows, total] = await Promise.all([
      q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).offset(f.offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toTask), total: Number(total.n) };
  }
}
