import type { Selectable } from 'kysely';
import type { AuthSessionsTable } from '../identity.tables.ts';
import { compiledOnce } from '../../../db/compiled-once.ts';
import type { Executor } from '../../../db/executor.ts';
import type { BuiltInRole } from '../../../domain/auth-context.ts';
import type { Tenant } from '../../../domain/tenant.ts';
import { parseJson } from '../../../lib/json.ts';
import { toTenant } from '../tenants/tenants.repository.ts';
import { toUser, type User } from '../users/users.repository.ts';

/** A login session (the family of its refresh tokens). */
export interface Session {
  id: string;
  tenantId: string;
  userId: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: number;
  lastUsedAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

function toSession(row: Selectable<AuthSessionsTable>): Session {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    userAgent: row.user_agent,
    ip: row.ip,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

/** What authenticating a user token needs: the token's tenant, and its session and user when they exist. */
export interface SessionIdentity {
  tenant: Tenant;
  session: { id: string; userId: string; expiresAt: number; revokedAt: number | null } | null;
  user: { id: string; role: BuiltInRole; roles: string[]; status: string } | null;
}

/** SQL for sessions, refresh tokens and password-reset tokens. */
export class SessionsRepository {
  /** The hot path of a user token whose identity is not cached: tenant, session and user in one round trip. */
  private readonly identityQuery = compiledOnce((db: Executor, tenantId: string, sessionId: string) =>
    db
      .selectFrom('tenants as t')
      .leftJoin('auth_sessions as s', (j) => j.onRef('s.tenant_id', '=', 't.id').on('s.id', '=', sessionId))
      .leftJoin('users as u', (j) => j.onRef('u.id', '=', 's.user_id').onRef('u.tenant_id', '=', 's.tenant_id'))
      .select([
        't.id',
        't.name',
        't.subdomain',
        't.tier',
        't.status',
        't.cors_origins',
        't.sandbox_of',
        't.created_at',
        't.updated_at',
        's.id as s_id',
        's.user_id as s_user_id',
        's.expires_at as s_expires_at',
        's.revoked_at as s_revoked_at',
        'u.id as u_id',
        'u.role as u_role',
        'u.roles as u_roles',
        'u.status as u_status',
      ])
      .where('t.id', '=', tenantId),
  );

  /** The tenant with the session and its user (null when the tenant does not exist). */
  async findSessionIdentity(db: Executor, tenantId: string, sessionId: string): Promise<SessionIdentity | null> {
    const [row] = await this.identityQuery(db, tenantId, sessionId);
    if (!row) return null;
    return {
      tenant: toTenant(row),
      session:
        row.s_id === null || row.s_user_id === null || row.s_expires_at === null
          ? null
          : { id: row.s_id, userId: row.s_user_id, expiresAt: row.s_expires_at, revokedAt: row.s_revoked_at },
      user:
        row.u_id === null || row.u_role === null || row.u_status === null
          ? null
          : {
              id: row.u_id,
              role: row.u_role as BuiltInRole,
              roles: parseJson<string[]>(row.u_roles, []),
              status: row.u_status,
            },
    };
  }

  async insertSession(db: Executor, s: Session): Promise<void> {
    await db
      .insertInto('auth_sessions')
      .values({
        id: s.id,
        tenant_id: s.tenantId,
        user_id: s.userId,
        user_agent: s.userAgent,
        ip: s.ip,
        created_at: s.createdAt,
        last_used_at: s.lastUsedAt,
        expires_at: s.expiresAt,
        revoked_at: null,
        revoked_reason: null,
      })
      .execute();
  }

  /** The session with its user, for authenticating a request (one query). */
  async findSessionWithUser(
    db: Executor,
    tenantId: string,
    sessionId: string,
  ): Promise<{ session: Session; user: User } | null> {
    const row = await db
      .selectFrom('auth_sessions as s')
      .innerJoin('users as u', (j) => j.onRef('u.id', '=', 's.user_id').onRef('u.tenant_id', '=', 's.tenant_id'))
      .selectAll('u')
      .select([
        's.id as s_id',
        's.user_id as s_user_id',
        's.user_agent as s_user_agent',
        's.ip as s_ip',
        's.created_at as s_created_at',
        's.last_used_at as s_last_used_at',
        's.expires_at as s_expires_at',
        's.revoked_at as s_revoked_at',
      ])
      .where('s.tenant_id', '=', tenantId)
      .where('s.id', '=', sessionId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      session: {
        id: row.s_id,
        tenantId,
        userId: row.s_user_id,
        userAgent: row.s_user_agent,
        ip: row.s_ip,
        createdAt: row.s_created_at,
        lastUsedAt: row.s_last_used_at,
        expiresAt: row.s_expires_at,
        revokedAt: row.s_revoked_at,
      },
      user: toUser(row),
    };
  }

  async findSession(db: Executor, tenantId: string, sessionId: string): Promise<Session | null> {
    const row = await db
      .selectFrom('auth_sessions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', sessionId)
      .executeTakeFirst();
    return row ? toSession(row) : null;
  }

  async listActive(
    db: Executor,
    tenantId: string,
    userId: string,
    now: number,
    page: { limit: number; offset: number },
  ) {
    const base = db
      .selectFrom('auth_sessions')
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toSession), total: Number(count.n) };
  }

  async touchSession(db: Executor, tenantId: string, sessionId: string, at: number, expiresAt?: number): Promise<void> {
    await db
      .updateTable('auth_sessions')
      .set(expiresAt === undefined ? { last_used_at: at } : { last_used_at: at, expires_at: expiresAt })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', sessionId)
      .execute();
  }

  async revokeSession(db: Executor, tenantId: string, sessionId: string, at: number, reason: string): Promise<boolean> {
    const result = await db
      .updateTable('auth_sessions')
      .set({ revoked_at: at, revoked_reason: reason })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Revokes every live session of a user, except one when given. */
  async revokeUserSessions(
    db: Executor,
    tenantId: string,
    userId: string,
    at: number,
    reason: string,
    exceptSessionId?: string,
  ): Promise<number> {
    let q = db
      .updateTable('auth_sessions')
      .set({ revoked_at: at, revoked_reason: reason })
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null);
    if (exceptSessionId) q = q.where('id', '!=', exceptSessionId);
    const result = await q.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async insertRefreshToken(
    db: Executor,
    t: { id: string; tenantId: string; sessionId: string; hash: string; createdAt: number; expiresAt: number },
  ): Promise<void> {
    await db
      .insertInto('refresh_tokens')
      .values({
        id: t.id,
        tenant_id: t.tenantId,
        session_id: t.sessionId,
        token_hash: t.hash,
        created_at: t.createdAt,
        expires_at: t.expiresAt,
        spent_at: null,
      })
      .execute();
  }

  /** A refresh token by its hash: the token itself names the tenant, so this lookup is global. */
  async findRefreshToken(db: Executor, hash: string) {
    return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  }

  /** Marks a refresh token spent; false when it already was (a concurrent or repeated use). */
  async spendRefreshToken(db: Executor, tenantId: string, id: string, at: number): Promise<boolean> {
    const result = await db
      .updateTable('refresh_tokens')
      .set({ spent_at: at })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('spent_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertResetToken(
    db: Executor,
    t: { id: string; tenantId: string; userId: string; hash: string; createdAt: number; expiresAt: number },
  ): Promise<void> {
    await db
      .insertInto('password_reset_tokens')
      .values({
        id: t.id,
        tenant_id: t.tenantId,
        user_id: t.userId,
        token_hash: t.hash,
        created_at: t.createdAt,
        expires_at: t.expiresAt,
        used_at: null,
      })
      .execute();
  }

  async findResetToken(db: Executor, hash: string) {
    return db.selectFrom('password_reset_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  }

  async useResetToken(db: Executor, tenantId: string, id: string, at: number): Promise<boolean> {
    const result = await db
      .updateTable('password_reset_tokens')
      .set({ used_at: at })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Invalidates every unused reset token of a user (after a password change or reset). */
  async useAllResetTokens(db: Executor, tenantId: string, userId: string, at: number): Promise<void> {
    await db
      .updateTable('password_reset_tokens')
      .set({ used_at: at })
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .execute();
  }
}
