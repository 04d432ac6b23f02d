import { expressionBuilder, type Selectable, sql, type Updateable } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { WorkspacesTable } from '../identity.tables.ts';
import type { Executor } from '../../../db/executor.ts';

export interface Workspace {
  id: string;
  tenantId: string;
  name: string;
  description: string | null;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface WorkspaceMember {
  userId: string;
  name: string;
  email: string;
  role: string;
  addedAt: number;
}

function toWorkspace(row: Selectable<WorkspacesTable>): Workspace {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    description: row.description,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Query fragment for another module's filter: the ids of the workspaces a user belongs to (`in` subquery). */
export function workspaceIdsOfUser(tenantId: string, userId: string) {
  return expressionBuilder<DB, never>()
    .selectFrom('workspace_members')
    .select('workspace_members.workspace_id')
    .where('workspace_members.tenant_id', '=', tenantId)
    .where('workspace_members.user_id', '=', userId);
}

/** Query fragment for another module's select: the name of the workspace whose id is in `workspaceIdColumn` (null when none). */
export function workspaceNameOf(tenantId: string, workspaceIdColumn: string) {
  return expressionBuilder<DB, never>()
    .selectFrom('workspaces')
    .select('workspaces.name')
    .where('workspaces.tenant_id', '=', tenantId)
    .where('workspaces.id', '=', sql.ref<string>(workspaceIdColumn));
}

/** SQL for workspaces and their members; every query is scoped by tenant. */
export class WorkspacesRepository {
  async insert(db: Executor, w: Workspace): Promise<void> {
    await db
      .insertInto('workspaces')
      .values({
        id: w.id,
        tenant_id: w.tenantId,
        name: w.name,
        name_key: w.name.toLowerCase(),
        description: w.description,
        created_by: w.createdBy,
        created_at: w.createdAt,
        updated_at: w.updatedAt,
      })
      .execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<Workspace | null> {
    const row = await db
      .selectFrom('workspaces')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toWorkspace(row) : null;
  }

  /** Workspaces with their member counts, oldest first. */
  async list(
    db: Executor,
    tenantId: string,
    page: { limit: number; offset: number },
    filter: { memberId?: string } = {},
  ) {
    let base = db.selectFrom('workspaces as w').where('w.tenant_id', '=', tenantId);
    if (filter.memberId) {
      const memberId = filter.memberId;
      base = base.where((eb) =>
        eb.exists(
          eb
            .selectFrom('workspace_members as m')
            .select('m.user_id')
            .whereRef('m.workspace_id', '=', 'w.id')
            .where('m.tenant_id', '=', tenantId)
            .where('m.user_id', '=', memberId),
        ),
      );
    }
    const [rows, count] = await Promise.all([
      base
        .selectAll('w')
        .select((eb) =>
          eb
            .selectFrom('workspace_members as c')
            .whereRef('c.workspace_id', '=', 'w.id')
            .where('c.tenant_id', '=', tenantId)
            .select((e) => e.fn.countAll<number>().as('n'))
            .as('member_count'),
        )
        .orderBy('w.created_at', 'asc')
        .orderBy('w.id', 'asc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      rows: rows.map((r) => ({ ...toWorkspace(r), memberCount: Number(r.member_count ?? 0) })),
      total: Number(count.n),
    };
  }

  async update(
    db: Executor,
    tenantId: string,
    id: string,
    patch: { name?: string; description?: string | null },
    now: number,
  ): Promise<void> {
    const values: Updateable<WorkspacesTable> = { updated_at: now };
    if (patch.name !== undefined) {
      values.name = patch.name;
      values.name_key = patch.name.toLowerCase();
    }
    if (patch.description !== undefined) values.description = patch.description;
    await db.updateTable('workspaces').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<void> {
    await db.deleteFrom('workspace_members').where('tenant_id', '=', tenantId).where('workspace_id', '=', id).execute();
    await db.deleteFrom('workspaces').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async members(db: Executor, tenantId: string, workspaceId: string): Promise<WorkspaceMember[]> {
    const rows = await db
      .selectFrom('workspace_members as m')
      .innerJoin('users as u', (j) => j.onRef('u.id', '=', 'm.user_id').onRef('u.tenant_id', '=', 'm.tenant_id'))
      .select(['m.user_id', 'u.name', 'u.email', 'u.role', 'm.created_at'])
      .where('m.tenant_id', '=', tenantId)
      .where('m.workspace_id', '=', workspaceId)
      .orderBy('m.created_at', 'asc')
      .orderBy('m.user_id', 'asc')
      .execute();
    return rows.map((r) => ({ userId: r.user_id, name: r.name, email: r.email, role: r.role, addedAt: r.created_at }));
  }

  async addMember(db: Executor, tenantId: string, workspaceId: string, userId: string, now: number): Promise<void> {
    await db
      .insertInto('workspace_members')
      .values({ tenant_id: tenantId, workspace_id: workspaceId, user_id: userId, created_at: now })
      .execute();
  }

  async removeMember(db: Executor, tenantId: string, workspaceId: string, userId: string): Promise<boolean> {
    const result = await db
      .deleteFrom('workspace_members')
      .where('tenant_id', '=', tenantId)
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Ids of the workspaces a user belongs to (for share checks). */
  async workspaceIdsOf(db: Executor, tenantId: string, userId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('workspace_members')
      .select('workspace_id')
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .execute();
    return rows.map((r) => r.workspace_id);
  }
}
