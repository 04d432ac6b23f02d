import type { Database } from '../../../db/database.ts';
import { type AppError, errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../../lib/passwords.ts';
import type { TenantsRepository } from '../tenants/tenants.repository.ts';
import type { Tenant } from '../../../domain/tenant.ts';
import type { TenantsService } from '../tenants/tenants.service.ts';
import type { User, UsersRepository } from '../users/users.repository.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { identityTags } from './identity-changes.ts';
import { type MailWriter, sendPasswordToken } from './password-tokens.ts';
import type { Session, SessionsRepository } from './sessions.repository.ts';
import { type CredentialRoute, SignInLimits, type Subject } from './sign-in-limits.ts';
import { type AccessTokens, type CsrfTokens, hashToken, opaqueToken } from './tokens.ts';

export const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Where a login comes from, kept on the session so users recognise it in their session list. */
export interface ClientInfo {
  userAgent: string | null;
  ip: string | null;
}

/** The answer of login, register and refresh. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  csrfToken: string;
  expiresIn: number;
  refreshExpiresIn: number;
  sessionId: string;
  user: User;
  tenant: Tenant;
}

const INVALID_LOGIN = 'Invalid e-mail or password';

/** The errors that mean "wrong credential": they count against the sign-in limits. */
const rejections = new WeakSet<Error>();
function rejected(error: AppError): AppError {
  rejections.add(error);
  return error;
}

/** Sessions, tokens and passwords (docs/api-decisions.md §3, the 10 authentication endpoints without API keys). */
export class AuthService {
  private readonly deps: {
    database: Database;
    clock: Clock;
    tenants: TenantsRepository;
    tenantsService: TenantsService;
    users: UsersRepository;
    sessions: SessionsRepository;
    mail: MailWriter;
    accessTokens: AccessTokens;
    csrf: CsrfTokens;
    /** Failed credential checks per account and per client, locked with backoff. */
    signInLimits: SignInLimits;
    /** Told after a committed change, so this process's credential cache drops sessions at once. */
    identityChanged?: (tags: string[]) => void;
  };
  constructor(deps: AuthService['deps']) {
    this.deps = deps;
  }

  /** The live tenant a subdomain names (`<sub>.sandbox` names the twin, whose users are the live tenant's). */
  async liveTenantBySubdomain(subdomain: string): Promise<Tenant | null> {
    const { tenants, database } = this.deps;
    const tenant = await tenants.findBySubdomain(database.db, subdomain.trim().toLowerCase());
    if (!tenant || tenant.sandboxOf === null) return tenant;
    return tenants.findById(database.db, tenant.sandboxOf);
  }

  /**
   * Checks e-mail and password. Unknown tenant, unknown e-mail, a user without a password and a
   * wrong password all answer the same 401, after the same Argon2id work (dummy hash), and count
   * alike against the account and the client; a locked one answers 429 before any hashing.
   */
  async login(input: {
    subdomain: string;
    email: string;
    password: string;
    client: ClientInfo;
  }): Promise<IssuedTokens> {
    const { database, users } = this.deps;
    const tenant = await this.liveTenantBySubdomain(input.subdomain);
    // Unknown tenants are counted by the name given, so probing them is limited the same way.
    const account = SignInLimits.account(
      tenant?.id ?? `subdomain:${input.subdomain.trim().toLowerCase()}`,
      input.email,
    );
    const signedIn = await this.checked('login', [account, SignInLimits.client(input.client.ip)], account, async () => {
      const found = tenant ? await users.findCredentialsByEmail(database.db, tenant.id, input.email) : null;
      const hash = found?.passwordHash ?? (await dummyPasswordHash());
      const valid = await verifyPassword(input.password, hash);
      if (!tenant || !found?.passwordHash || !valid || found.user.status !== 'active') {
        throw rejected(errors.unauthorized(INVALID_LOGIN));
      }
      return { tenant, user: found.user };
    });
    if (signedIn.tenant.status === 'suspended') throw errors.tenantSuspended();
    return this.startSession(signedIn.tenant, signedIn.user, input.client);
  }

  /** Creates a Free tenant with its owner and signs the owner in. */
  async register(input: {
    tenantName: string;
    subdomain: string;
    email: string;
    password: string;
    name: string;
    client: ClientInfo;
  }): Promise<IssuedTokens> {
    const created = await this.deps.tenantsService.create(
      {
        name: input.tenantName,
        subdomain: input.subdomain,
        tier: 'free',
        owner: { email: input.email, password: input.password, name: input.name },
      },
      { apiKeys: false },
    );
    return this.startSession(created.tenant, created.owner, input.client);
  }

  /** Spends a refresh token for a new pair; a spent token presented again revokes its whole session. */
  async refresh(refreshToken: string, client: ClientInfo): Promise<IssuedTokens> {
    return this.checked('refresh', [SignInLimits.client(client.ip)], null, () => this.spendRefreshToken(refreshToken));
  }

  private async spendRefreshToken(refreshToken: string): Promise<IssuedTokens> {
    const { database, clock, sessions, tenants } = this.deps;
    const now = clock.now();
    const row = await sessions.findRefreshToken(database.db, hashToken(refreshToken));
    if (!row) throw rejected(errors.unauthorized('Invalid refresh token'));
    if (row.spent_at !== null) {
      await sessions.revokeSession(database.db, row.tenant_id, row.session_id, now, 'refresh_token_reuse');
      this.sessionsChanged([identityTags.session(row.session_id)]);
      throw rejected(errors.unauthorized('This refresh token was already used; the session has been revoked'));
    }
    const found = await sessions.findSessionWithUser(database.db, row.tenant_id, row.session_id);
    if (row.expires_at <= now || !found || !isLive(found.session, now) || found.user.status !== 'active') {
      throw rejected(errors.unauthorized('Invalid refresh token'));
    }
    const tenant = await tenants.findById(database.db, row.tenant_id);
    if (!tenant) throw errors.unauthorized('Invalid refresh token');
    if (tenant.status === 'suspended') throw errors.tenantSuspended();

    const next = opaqueToken('rt');
    await database.db
      .transaction()
      .execute(async (trx) => {
        // Conditional update: of two concurrent uses of one token, only one wins; the other is reuse.
        if (!(await sessions.spendRefreshToken(trx, row.tenant_id, row.id, now))) {
          throw new ReuseDetected();
        }
        await sessions.insertRefreshToken(trx, {
          id: newId(now),
          tenantId: row.tenant_id,
          sessionId: row.session_id,
          hash: hashToken(next),
          createdAt: now,
          expiresAt: now + REFRESH_TTL_MS,
        });
        await sessions.touchSession(trx, row.tenant_id, row.session_id, now, now + REFRESH_TTL_MS);
      })
      .catch(async (error: unknown) => {
        if (!(error instanceof ReuseDetected)) throw error;
        await sessions.revokeSession(database.db, row.tenant_id, row.session_id, now, 'refresh_token_reuse');
        this.sessionsChanged([identityTags.session(row.session_id)]);
        throw rejected(errors.unauthorized('This refresh token was already used; the session has been revoked'));
      });
    return this.tokensFor(tenant, found.user, found.session.id, next);
  }

  /** Revokes the caller's session: its refresh token and access tokens stop working at once. */
  async logout(auth: AuthContext): Promise<void> {
    const sessionId = requireSession(auth);
    await this.deps.sessions.revokeSession(
      this.deps.database.db,
      liveTenantId(auth),
      sessionId,
      this.deps.clock.now(),
      'logout',
    );
    this.sessionsChanged([identityTags.session(sessionId)]);
  }

  async me(auth: AuthContext): Promise<{ user: User | null; tenant: Tenant }> {
    const { database, users, tenants } = this.deps;
    const live = auth.tenant.sandboxOf ? await tenants.findById(database.db, auth.tenant.sandboxOf) : auth.tenant;
    const user = auth.userId ? await users.findById(database.db, liveTenantId(auth), auth.userId) : null;
    return { user, tenant: live ?? auth.tenant };
  }

  async csrfToken(auth: AuthContext): Promise<string> {
    return this.deps.csrf.issue(requireSession(auth));
  }

  /**
   * Changes the caller's password and revokes every other session of theirs. A wrong current
   * password counts against the account like a failed login (a stolen session must not guess it).
   */
  async changePassword(
    auth: AuthContext,
    currentPassword: string,
    newPassword: string,
    client: ClientInfo,
  ): Promise<void> {
    const sessionId = requireSession(auth);
    const { database, clock, users, sessions } = this.deps;
    const tenantId = liveTenantId(auth);
    const user = await users.findById(database.db, tenantId, auth.userId!);
    const account = SignInLimits.account(tenantId, user?.email ?? '');
    await this.checked('password_change', [account, SignInLimits.client(client.ip)], account, async () => {
      const hash = await users.passwordHash(database.db, tenantId, auth.userId!);
      if (!hash || !(await verifyPassword(currentPassword, hash))) {
        throw rejected(errors.field('current_password', 'is not the current password'));
      }
    });
    const newHash = await hashPassword(newPassword);
    const now = clock.now();
    await database.db.transaction().execute(async (trx) => {
      await users.setPasswordHash(trx, tenantId, auth.userId!, newHash, now);
      await sessions.revokeUserSessions(trx, tenantId, auth.userId!, now, 'password_changed', sessionId);
      await sessions.useAllResetTokens(trx, tenantId, auth.userId!, now);
    });
    this.sessionsChanged([identityTags.user(auth.userId!)]);
  }

  /** Puts a reset token into the mail outbox when the account exists; says nothing either way. */
  async forgotPassword(subdomain: string, email: string): Promise<void> {
    const { database, clock, users, sessions, mail } = this.deps;
    const tenant = await this.liveTenantBySubdomain(subdomain);
    const found = tenant ? await users.findCredentialsByEmail(database.db, tenant.id, email) : null;
    if (!tenant || !found || found.user.status !== 'active') return;
    await database.db
      .transaction()
      .execute((trx) =>
        sendPasswordToken(
          trx,
          { sessions, mail },
          { user: found.user, tenantSubdomain: tenant.subdomain, kind: 'password_reset', now: clock.now() },
        ),
      );
  }

  /**
   * Sets a new password with a reset token (single use) and signs the user out everywhere. Invalid
   * tokens count against the client; a completed reset lifts the account's sign-in lock.
   */
  async resetPassword(token: string, newPassword: string, client: ClientInfo): Promise<void> {
    const { database, clock, users, sessions, signInLimits } = this.deps;
    const now = clock.now();
    const row = await this.checked('password_reset', [SignInLimits.client(client.ip)], null, async () => {
      const found = await sessions.findResetToken(database.db, hashToken(token));
      if (!found || found.used_at !== null || found.expires_at <= now)
        throw rejected(errors.field('token', 'is invalid or has expired'));
      return found;
    });
    const newHash = await hashPassword(newPassword);
    await database.db.transaction().execute(async (trx) => {
      if (!(await sessions.useResetToken(trx, row.tenant_id, row.id, now)))
        throw errors.field('token', 'is invalid or has expired');
      await users.setPasswordHash(trx, row.tenant_id, row.user_id, newHash, now);
      await sessions.useAllResetTokens(trx, row.tenant_id, row.user_id, now);
      await sessions.revokeUserSessions(trx, row.tenant_id, row.user_id, now, 'password_reset');
    });
    this.sessionsChanged([identityTags.user(row.user_id)]);
    const user = await users.findById(database.db, row.tenant_id, row.user_id);
    if (user) await signInLimits.unlock(SignInLimits.account(row.tenant_id, user.email));
  }

  async listSessions(auth: AuthContext, page: { limit: number; offset: number }) {
    requireSession(auth);
    return this.deps.sessions.listActive(
      this.deps.database.db,
      liveTenantId(auth),
      auth.userId!,
      this.deps.clock.now(),
      page,
    );
  }

  /** Revokes one of the caller's own sessions (404 for anyone else's). */
  async revokeSession(auth: AuthContext, sessionId: string): Promise<void> {
    requireSession(auth);
    const { database, clock, sessions } = this.deps;
    const session = await sessions.findSession(database.db, liveTenantId(auth), sessionId);
    if (!session || session.userId !== auth.userId || session.revokedAt !== null)
      throw errors.notFound('session', sessionId);
    await sessions.revokeSession(database.db, session.tenantId, session.id, clock.now(), 'revoked_by_user');
    this.sessionsChanged([identityTags.session(session.id)]);
  }

  /**
   * Runs a credential check under the sign-in limits: refused while a subject is locked; a
   * `rejected` error counts as a failure against every subject; anything else that returns is a
   * success and clears the account's failures.
   */
  private async checked<T>(
    route: CredentialRoute,
    subjects: Subject[],
    account: Subject | null,
    check: () => Promise<T>,
  ): Promise<T> {
    const limits = this.deps.signInLimits;
    await limits.assertOpen(route, subjects);
    let result: T;
    try {
      result = await check();
    } catch (error) {
      if (error instanceof Error && rejections.has(error)) await limits.failed(route, subjects);
      throw error;
    }
    await limits.succeeded(route, account);
    return result;
  }

  private sessionsChanged(tags: string[]): void {
    this.deps.identityChanged?.(tags);
  }

  private async startSession(tenant: Tenant, user: User, client: ClientInfo): Promise<IssuedTokens> {
    const { database, clock, sessions } = this.deps;
    const now = clock.now();
    const session: Session = {
      id: newId(now),
      tenantId: tenant.id,
      userId: user.id,
      userAgent: client.userAgent?.slice(0, 512) ?? null,
      ip: client.ip,
      createdAt: now,
      lastUsedAt: now,
      expiresAt: now + REFRESH_TTL_MS,
      revokedAt: null,
    };
    const refreshToken = opaqueToken('rt');
    await database.db.transaction().execute(async (trx) => {
      await sessions.insertSession(trx, session);
      await sessions.insertRefreshToken(trx, {
        id: newId(now),
        tenantId: tenant.id,
        sessionId: session.id,
        hash: hashToken(refreshToken),
        createdAt: now,
        expiresAt: now + REFRESH_TTL_MS,
      });
    });
    return this.tokensFor(tenant, user, session.id, refreshToken);
  }

  private async tokensFor(tenant: Tenant, user: User, sessionId: string, refreshToken: string): Promise<IssuedTokens> {
    const { accessTokens, csrf } = this.deps;
    const [accessToken, csrfToken] = await Promise.all([
      accessTokens.sign({ userId: user.id, tenantId: tenant.id, sessionId, role: user.role }),
      csrf.issue(sessionId),
    ]);
    return {
      accessToken,
      refreshToken,
      csrfToken,
      expiresIn: accessTokens.ttlSeconds,
      refreshExpiresIn: REFRESH_TTL_MS / 1000,
      sessionId,
      user,
      tenant,
    };
  }
}

class ReuseDetected extends Error {}

function isLive(session: Session, now: number): boolean {
  return session.revokedAt === null && session.expiresAt > now;
}

/** Users and sessions belong to the live tenant, also when the request reached its sandbox twin. */
export function liveTenantId(auth: AuthContext): string {
  return auth.tenant.sandboxOf ?? auth.tenant.id;
}

function requireSession(auth: AuthContext): string {
  if (auth.via !== 'user_token' || !auth.sessionId || !auth.userId) {
    throw errors.forbidden('This endpoint needs a user token (it acts on a login session), not an API key');
  }
  return auth.sessionId;
}
