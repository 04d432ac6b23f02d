import type { Selectable } from 'kysely';
import type { UsersTable } from '../../db/schema.ts';
import type { Executor } from '../../jobs/job-types.ts';
import { parseJson } from '../../lib/json.ts';

export const BUILT_IN_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];

/** A user as services see it (never with the password hash). */
export interface User {
  id: string;
  tenantId: string;
  email: string;
  name: string;
  role: BuiltInRole;
  /** Custom role names (contract §3), e.g. `finance_manager`. */
  roles: string[];
  status: string;
  createdAt: number;
  updatedAt: number;
}

export function toUser(row: Selectable<UsersTable>): User {
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

  async findById(db: Executor, tenantId: string, id: string): Promise<User | null> {
    const row = await db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
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
}
