import type { BuiltInRole } from '../../../domain/auth-context.ts';
import { expressionBuilder, type Selectable, sql, type Updateable } from 'kysely';
import type { DB } from '../../../db/schema.ts';
import type { UsersTable } from '../identity.tables.ts';
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
  /** Takes notification mail (security mail is always sent). */
  notificationMail: boolean;
  /** Has chosen a password (false while an invitation is open). */
  passwordSet: boolean;
  createdAt: number;
  updatedAt: number;
}

/** The columns a `User` is made of (the password hash only becomes `passwordSet`). */
const USER_COLUMNS = [
  'id',
  'tenant_id',
  'email',
  'name',
  'role',
  'roles',
  'status',
  'notification_mail',
  'password_hash',
  'created_at',
  'updated_at',
] as const;

export function toUser(row: Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>): User {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    email: row.email,
    name: row.name,
    role: row.role as BuiltInRole,
    roles: parseJson<string[]>(row.roles, []),
    status: row.status,
    notificationMail: Number(row.notification_mail) !== 0,
    passwordSet: row.password_hash !== null,
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

/**
 * Query fragment for the mail module: of tenant `tenantId`, its name, the live tenant's id (a
 * sandbox twin's people and settings are its live tenant's), and whether the user with this
 * e-mail takes notification mail (1), opted out (0), or is no user of the tenant (null).
 */
export function mailRecipientOf(tenantId: string, email: string) {
  return expressionBuilder<DB, never>()
    .selectFrom('tenants as t')
    .where('t.id', '=', tenantId)
    .select((eb) => [
      't.name as tenant_name',
      eb.fn.coalesce('t.sandbox_of', 't.id').as('live_tenant_id'),
      eb
        .selectFrom('users as u')
        .select((u) => u.fn.min<number>('u.notification_mail').as('flag'))
        .where((u) => u('u.tenant_id', '=', u.fn.coalesce('t.sandbox_of', 't.id')))
        .where('u.email_key', '=', email.toLowerCase())
        .as('notification_mail'),
    ]);
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
        notification_mail: user.notificationMail ? 1 : 0,
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
  async findCredentialsByEmail(
    db: Executor,
    tenantId: string,
    email: string,
  ): Promise<{ user: User; passwordHash: string | null } | null> {
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
      base
        .selectAll()
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toUser), total: Number(count.n) };
  }

  async update(
    db: Executor,
    tenantId: string,
    id: string,
    patch: Partial<Pick<User, 'name' | 'email' | 'role' | 'roles' | 'status' | 'notificationMail'>>,
    now: number,
  ): Promise<void> {
    const values: Updateable<UsersTable> = { updated_at: now };
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.email !== undefined) {
      values.email = patch.email;
      values.email_key = patch.email.toLowerCase();
    }
    if (patch.notificationMail !== undefined) values.notification_mail = patch.notificationMail ? 1 : 0;
    if (patch.role !== undefined) values.role = patch.role;
    if (patch.roles !== undefined) values.roles = JSON.stringify(patch.roles);
    if (patch.status !== undefined) values.status = patch.status;
    await db.updateTable('users').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async setPasswordHash(db: Executor, tenantId: string, id: string, passwordHash: string, now: number): Promise<void> {
    await db
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async passwordHash(db: Executor, tenantId: string, id: string): Promise<string | null> {
    const row = await db
      .selectFrom('users')
      .select('password_hash')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.password_hash ?? null;
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const result = await db
      .deleteFrom('users')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
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
  async active(
    db: Executor,
    tenantId: string,
    among: { userId: string } | { workspaceId: string } | 'all',
  ): Promise<User[]> {
    let q = db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'active');
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
