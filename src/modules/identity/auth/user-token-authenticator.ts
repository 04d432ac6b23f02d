import type { FastifyRequest } from 'fastify';
import type { Database } from '../../../db/database.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { TenantsRepository } from '../tenants/tenants.repository.ts';
import type { Tenant } from '../../../domain/tenant.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { type CachedCredential, type IdentityCache, tenantTags } from './identity-cache.ts';
import { identityTags } from './identity-changes.ts';
import type { SessionsRepository } from './sessions.repository.ts';
import type { AccessTokens, CsrfTokens } from './tokens.ts';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Writes of a session's last_used_at are coalesced to one a minute per session. */
const TOUCH_INTERVAL_MS = 60_000;
const SESSION_ENDED = 'The session of this access token has ended';

type CachedSession = Extract<CachedCredential, { kind: 'session' }>;

/**
 * Resolves `Authorization: Bearer <access token>` + `X-Tenant-Subdomain` into the caller's context.
 * On every request: the signature and expiry, the tenant named by the header matching the token's,
 * the session still live and the user still active. Session, user and tenant are read in one round
 * trip and then cached per process (`IdentityCache`); logout, session revocation, user changes and
 * tenant changes drop the entry in every process within a second (in this one at once).
 * `checkCsrf` then holds POST/PUT/PATCH/DELETE to the session-bound `X-CSRF-Token`.
 * A header naming the sandbox twin (`<sub>.sandbox`) reaches the live tenant (users live there).
 */
export class UserTokenAuthenticator {
  private readonly deps: {
    database: Database;
    clock: Clock;
    tenants: TenantsRepository;
    sessions: SessionsRepository;
    accessTokens: AccessTokens;
    csrf: CsrfTokens;
    cache: IdentityCache;
  };
  private readonly lastTouched = new Map<string, number>();
  constructor(deps: UserTokenAuthenticator['deps']) {
    this.deps = deps;
  }

  async authenticate(request: FastifyRequest, token: string): Promise<AuthContext> {
    const { accessTokens, cache, clock } = this.deps;
    const header = request.headers['x-tenant-subdomain'];
    if (typeof header !== 'string' || header.trim() === '') {
      throw errors.unauthorized('A user token must be sent with the X-Tenant-Subdomain header');
    }
    const claims = await accessTokens.verify(token);
    if (!claims) throw errors.unauthorized('Invalid or expired access token');
    cache.ensureStarted();
    const subdomain = header.trim().toLowerCase();
    const now = clock.now();
    const cacheKey = `s#${claims.tenantId}/${claims.sessionId}`;

    let identity = cache.credentials.get(cacheKey);
    // Anything but a plain match is decided by a fresh lookup, never refused from the cache.
    if (
      identity?.kind !== 'session' ||
      identity.tenant.subdomain !== subdomain ||
      identity.userId !== claims.userId ||
      identity.sessionExpiresAt <= now
    ) {
      identity = await this.lookUp(claims, subdomain, now, cacheKey);
    }

    if (now - (this.lastTouched.get(identity.sessionId) ?? 0) > TOUCH_INTERVAL_MS) {
      this.lastTouched.set(identity.sessionId, now);
      if (this.lastTouched.size > 100_000) this.lastTouched.clear();
      await this.deps.sessions.touchSession(this.deps.database.db, identity.tenant.id, identity.sessionId, now);
    }

    return {
      tenant: identity.tenant,
      userId: identity.userId,
      role: identity.role,
      roles: identity.roles,
      via: 'user_token',
      apiKeyId: null,
      sessionId: identity.sessionId,
      sandbox: request.sandbox,
    };
  }

  /** Tenant, session and user from the database (one round trip unless the header names another tenant or a twin). */
  private async lookUp(
    claims: { tenantId: string; sessionId: string; userId: string },
    subdomain: string,
    now: number,
    cacheKey: string,
  ): Promise<CachedSession> {
    const { database, tenants, sessions, cache } = this.deps;
    const stamp = cache.credentials.stamp();
    const found = await sessions.findSessionIdentity(database.db, claims.tenantId, claims.sessionId);
    let tenant: Tenant | null = found?.tenant ?? null;
    if (!tenant || tenant.sandboxOf !== null || tenant.subdomain !== subdomain) {
      // The header names another tenant, or this tenant's sandbox twin: resolve it as a name.
      let named = await tenants.findBySubdomain(database.db, subdomain);
      if (named?.sandboxOf) named = await tenants.findById(database.db, named.sandboxOf);
      if (!named || named.id !== claims.tenantId || !found || found.tenant.sandboxOf !== null) {
        throw errors.unauthorized('The access token does not belong to this tenant');
      }
      tenant = found.tenant;
    }
    if (tenant.status === 'suspended') throw errors.tenantSuspended();
    const session = found?.session;
    const user = found?.user;
    if (
      !session ||
      !user ||
      session.userId !== claims.userId ||
      session.revokedAt !== null ||
      session.expiresAt <= now ||
      user.status !== 'active'
    ) {
      throw errors.unauthorized(SESSION_ENDED);
    }
    const identity: CachedSession = {
      kind: 'session',
      tenant,
      sessionId: session.id,
      userId: user.id,
      sessionExpiresAt: session.expiresAt,
      role: user.role,
      roles: user.roles,
    };
    cache.credentials.set(
      cacheKey,
      identity,
      [identityTags.session(session.id), identityTags.user(user.id), ...tenantTags(tenant)],
      stamp,
    );
    return identity;
  }

  /**
   * The session-bound `X-CSRF-Token` of a user-token request that changes state (POST, PUT, PATCH,
   * DELETE). Checked after rate limiting, so a refused request is counted and carries the headers.
   */
  async checkCsrf(request: FastifyRequest, auth: AuthContext): Promise<void> {
    if (auth.via !== 'user_token' || !auth.sessionId || !STATE_CHANGING.has(request.method)) return;
    const presented = request.headers['x-csrf-token'];
    if (!(await this.deps.csrf.verify(auth.sessionId, typeof presented === 'string' ? presented : undefined)))
      throw errors.csrfInvalid();
  }
}
