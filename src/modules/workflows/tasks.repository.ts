import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { WorkflowTasksTable } from './workflows.tables.ts';

export type TaskRow = Selectable<WorkflowTasksTable>;

/** Who a user is for task assignment: their id, built-in and custom roles, workspaces. */
export interface Assignee {
  userId: string;
  roles: string[];
  workspaceIds: string[];
}

export interface TaskFilter {
  assignee?: Assignee;
  role?: string;
  status?: TaskRow['status'];
  limit: number;
  offset: number;
}

/** Named queries for human tasks, every one scoped by tenant. */
export class TasksRepository {
  async insert(db: Executor, row: TaskRow): Promise<void> {
    await db.insertInto('workflow_tasks').values(row).execute();
  }

  find(db: Executor, tenantId: string, id: string): Promise<TaskRow | undefined> {
    return db.selectFrom('workflow_tasks').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  }

  /** Moves a pending task on; false when it was no longer pending (another completion won). */
  async updatePending(db: Executor, tenantId: string, id: string, patch: Partial<TaskRow>): Promise<boolean> {
    const result = await db
      .updateTable('workflow_tasks')
      .set(patch)
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
  async list(db: Executor, tenantId: string, f: TaskFilter): Promise<{ rows: TaskRow[]; total: number }> {
    let q = db.selectFrom('workflow_tasks').where('tenant_id', '=', tenantId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.role) q = q.where('assignee_type', '=', 'role').where('assignee_value', '=', f.role);
    const a = f.assignee;
    if (a) {
      q = q.where((eb) =>
        eb.or([
          eb.and([eb('assignee_type', '=', 'user'), eb('assignee_value', '=', a.userId)]),
          ...(a.roles.length ? [eb.and([eb('assignee_type', '=', 'role'), eb('assignee_value', 'in', a.roles)])] : []),
          ...(a.workspaceIds.length ? [eb.and([eb('assignee_type', '=', 'workspace'), eb('assignee_value', 'in', a.workspaceIds)])] : []),
        ]),
      );
    }
    // The page and the count are independent reads: in parallel, on two connections where there is a pool.
    const [rows, total] = await Promise.all([
      q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).offset(f.offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** The user as an assignee, or null when they are not a user of the tenant. */
  async assignee(db: Executor, tenantId: string, userId: string): Promise<Assignee | null> {
    const [user, workspaces] = await Promise.all([
      db.selectFrom('users').select(['id', 'role', 'roles']).where('tenant_id', '=', tenantId).where('id', '=', userId).executeTakeFirst(),
      db.selectFrom('workspace_members').select('workspace_id').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute(),
    ]);
    if (!user) return null;
    let custom: string[] = [];
    try {
      custom = JSON.parse(user.roles) as string[];
    } catch {
      custom = [];
    }
    return { userId: user.id, roles: [user.role, ...custom], workspaceIds: workspaces.map((w) => w.workspace_id) };
  }

  /** E-mail addresses of the people a task is assigned to (for the mail outbox). */
  async assigneeEmails(db: Executor, tenantId: string, type: TaskRow['assignee_type'], value: string): Promise<string[]> {
    let q = db.selectFrom('users').select(['users.email', 'users.role', 'users.roles']).where('users.tenant_id', '=', tenantId).where('users.status', '=', 'active');
    if (type === 'user') q = q.where('users.id', '=', value);
    if (type === 'workspace') {
      q = q.innerJoin('workspace_members as m', (j) => j.onRef('m.user_id', '=', 'users.id').onRef('m.tenant_id', '=', 'users.tenant_id')).where('m.workspace_id', '=', value);
    }
    const rows = await q.execute();
    const match = type === 'role' ? rows.filter((r) => r.role === value || safeList(r.roles).includes(value)) : rows;
    return match.map((r) => r.email);
  }
}

function safeList(text: string): string[] {
  try {
    const value = JSON.parse(text);
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}
