import type { FastifyRequest } from 'fastify';
import type { Database } from '../../../db/database.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { TenantsRepository } from '../tenants/tenants.repository.ts';
import type { Tenant } from '../../../domain/tenant.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import type { SessionsRepository } from './sessions.repository.ts';
import type { AccessTokens, CsrfTokens } from './tokens.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Writes of a session's last_used_at are coalesced to one a minute per session. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Resolves `Authorization: Bearer <access token>` + `X-Tenant-Subdomain` into the caller's context.
 * On every request: the signature and expiry, the tenant named by the header matching the token's,
 * the session still live (so logout and revocation take effect at once) and the user still active;
 * `checkCsrf` then holds POST/PUT/PATCH/DELETE to the session-bound `X-CSRF-Token`.
 * In the sandbox a user token reaches the tenant's sandbox twin (users live on the live tenant).
 */
export class UserTokenAuthenticator {
  private readonly deps: {
    database: Database;
    clock: Clock;
    tenants: TenantsRepository;
    sessions: SessionsRepository;
    accessTokens: AccessTokens;
    csrf: CsrfTokens;
  };
  private readonly lastTouched = new Map<string, number>();
  constructor(deps: UserTokenAuthenticator['deps']) {
    this.deps = deps;
  }

  async authenticate(request: FastifyRequest, token: string): Promise<AuthContext> {
    const { database, clock, tenants, sessions, accessTokens } = this.deps;
    const header = request.headers['x-tenant-subdomain'];
    if (typeof header !== 'string' || header.trim() === '') {
      throw errors.unauthorized('A user token must be sent with the X-Tenant-Subdomain header');
    }
    const claims = await accessTokens.verify(token);
    if (!claims) throw errors.unauthorized('Invalid or expired access token');

    let tenant: Tenant | null = await tenants.findBySubdomain(database.db, header.trim().toLowerCase());
    if (tenant?.sandboxOf) tenant = await tenants.findById(database.db, tenant.sandboxOf);
    if (!tenant || tenant.id !== claims.tenantId) throw errors.unauthorized('The access token does not belong to this tenant');
    if (tenant.status === 'suspended') throw errors.tenantSuspended();

    const found = await sessions.findSessionWithUser(database.db, tenant.id, claims.sessionId);
    const now = clock.now();
    if (
      !found ||
      found.session.userId !== claims.userId ||
      found.session.revokedAt !== null ||
      found.session.expiresAt <= now ||
      found.user.status !== 'active'
    ) {
      throw errors.unauthorized('The session of this access token has ended');
    }

    if (now - (this.lastTouched.get(found.session.id) ?? 0) > TOUCH_INTERVAL_MS) {
      this.lastTouched.set(found.session.id, now);
      if (this.lastTouched.size > 100_000) this.lastTouched.clear();
      await sessions.touchSession(database.db, tenant.id, found.session.id, now);
    }

    return {
      tenant,
      userId: found.user.id,
      role: found.user.role,
      roles: found.user.roles,
      via: 'user_token',
      apiKeyId: null,
      sessionId: found.session.id,
      sandbox: request.sandbox,
    };
  }

  /**
   * The session-bound `X-CSRF-Token` of a user-token request that changes state (POST, PUT, PATCH,
   * DELETE). Checked after rate limiting, so a refused request is counted and carries the headers.
   */
  async checkCsrf(request: FastifyRequest, auth: AuthContext): Promise<void> {
    if (auth.via !== 'user_token' || !auth.sessionId || !STATE_CHANGING.has(request.method)) return;
    const presented = request.headers['x-csrf-token'];
    if (!(await this.deps.csrf.verify(auth.sessionId, typeof presented === 'string' ? presented : undefined))) throw errors.csrfInvalid();
  }
}
