import type { BuiltInRole } from '../../../domain/auth-context.ts';
import { expressionBuilder, type Selectable, sql, type Updateable } from 'kysely';
import type { DB, UsersTable } from '../../../db/schema.ts';
import { compiledOnce } from '../../../db/compiled-once.ts';
import type { Executor } from '../../../db/executor.ts';
import { parseJson } from '../../../lib/json.ts';

/** A user as services see it (never with the password hash). */
export interface User {
  id: string;
  tenantId: string;
  email: string;
  name: string;
  role: BuiltInRole;
  /** Custom role names (docs/api-decisions.md §3), e.g. `finance_manager`. */
  roles: string[];
  status: string;
  createdAt: number;
  updatedAt: number;
}

/** The columns a `User` is made of (never the password hash). */
const USER_COLUMNS = ['id', 'tenant_id', 'email', 'name', 'role', 'roles', 'status', 'created_at', 'updated_at'] as const;

export function toUser(row: Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>): User {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    email: row.email,
    name: row.name,
    role: row.role as BuiltInRole,
    roles: parseJson<string[]>(row.roles, []),
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Query fragment for another module's select: the name of the tenant's user whose id is in
 * `userIdColumn` of the caller's query (null when none), so a listing needs no second round trip.
 */
export function userNameOf(tenantId: string, userIdColumn: string) {
  return expressionBuilder<DB, never>()
    .selectFrom('users')
    .select('users.name')
    .where('users.tenant_id', '=', tenantId)
    .where('users.id', '=', sql.ref<string>(userIdColumn));
}

/** SQL for users; every query is scoped by tenant. */
export class UsersRepository {
  async insert(db: Executor, user: User, passwordHash: string | null): Promise<void> {
    await db
      .insertInto('users')
      .values({
        id: user.id,
        tenant_id: user.tenantId,
        email: user.email,
        email_key: user.email.toLowerCase(),
        name: user.name,
        password_hash: passwordHash,
        role: user.role,
        roles: JSON.stringify(user.roles),
        status: user.status,
        created_at: user.createdAt,
        updated_at: user.updatedAt,
      })
      .execute();
  }

  private readonly byIdQuery = compiledOnce((db: Executor, tenantId: string, id: string) =>
    db.selectFrom('users').select(USER_COLUMNS).where('tenant_id', '=', tenantId).where('id', '=', id),
  );

  async findById(db: Executor, tenantId: string, id: string): Promise<User | null> {
    const [row] = await this.byIdQuery(db, tenantId, id);
    return row ? toUser(row) : null;
  }

  /** The user and their password hash, for login. */
  async findCredentialsByEmail(db: Executor, tenantId: string, email: string): Promise<{ user: User; passwordHash: string | null } | null> {
    const row = await db
      .selectFrom('users')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('email_key', '=', email.toLowerCase())
      .executeTakeFirst();
    return row ? { user: toUser(row), passwordHash: row.password_hash } : null;
  }

  async list(db: Executor, tenantId: string, page: { limit: number; offset: number }, filter: { role?: string } = {}) {
    let base = db.selectFrom('users').where('tenant_id', '=', tenantId);
    if (filter.role) base = base.where('role', '=', filter.role);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toUser), total: Number(count.n) };
  }

  async update(
    db: Executor,
    tenantId: string,
    id: string,
    patch: Partial<Pick<User, 'name' | 'role' | 'roles' | 'status'>>,
    now: number,
  ): Promise<void> {
    const values: Updateable<UsersTable> = { updated_at: now };
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.role !== undefined) values.role = patch.role;
    if (patch.roles !== undefined) values.roles = JSON.stringify(patch.roles);
    if (patch.status !== undefined) values.status = patch.status;
    await db.updateTable('users').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async setPasswordHash(db: Executor, tenantId: string, id: string, passwordHash: string, now: number): Promise<void> {
    await db.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async passwordHash(db: Executor, tenantId: string, id: string): Promise<string | null> {
    const row = await db.selectFrom('users').select('password_hash').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row?.password_hash ?? null;
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const result = await db.deleteFrom('users').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Active owners of the tenant, for the "never without an owner" rule. */
  async countActiveOwners(db: Executor, tenantId: string): Promise<number> {
    const row = await db
      .selectFrom('users')
      .where('tenant_id', '=', tenantId)
      .where('role', '=', 'owner')
      .where('status', '=', 'active')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The tenant's active users: one, the members of a workspace, or all (the caller filters by role). */
  async active(db: Executor, tenantId: string, among: { userId: string } | { workspaceId: string } | 'all'): Promise<User[]> {
    let q = db.selectFrom('users').select(USER_COLUMNS).where('tenant_id', '=', tenantId).where('status', '=', 'active');
    if (among !== 'all' && 'userId' in among) q = q.where('id', '=', among.userId);
    if (among !== 'all' && 'workspaceId' in among) {
      const members = db
        .selectFrom('workspace_members')
        .select('workspace_members.user_id')
        .where('workspace_members.tenant_id', '=', tenantId)
        .where('workspace_members.workspace_id', '=', among.workspaceId);
      q = q.where('id', 'in', members);
    }
    return (await q.execute()).map(toUser);
  }
}
