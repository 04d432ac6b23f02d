import { createHash } from 'node:crypto';
import type { Metrics } from '../../../http/metrics.ts';
import type { LockoutRule, RateLimitStore } from '../../../http/rate-limit-store.ts';
import type { Clock } from '../../../lib/clock.ts';
import { clientNetwork } from '../../../lib/client-network.ts';
import { type AppError, errors } from '../../../lib/errors.ts';
import type { Logger } from '../../../lib/logger.ts';

/** The routes that check a credential someone could be guessing. */
export type CredentialRoute = 'login' | 'refresh' | 'password_reset' | 'password_change';

/** Who failures are counted against: one account of one tenant, or one client address. */
export interface Subject {
  scope: 'account' | 'client';
  /** Opaque and free of personal data (hashed): it becomes a Redis key. */
  id: string;
}

/** How long locks are remembered for doubling the next one. */
const STRIKE_MEMORY_MS = 24 * 3_600_000;

export interface SignInLimitsDeps {
  store: RateLimitStore;
  clock: Clock;
  logger: Logger;
  metrics: Pick<Metrics, 'credentialChecks' | 'credentialLockouts' | 'rateLimitStoreErrors'>;
  keyPrefix: string;
  /** RATE_LIMIT_ENABLED: off turns these limits off too. */
  enabled: boolean;
  /** RATE_LIMIT_REDIS_FAILURE: `open` lets a check through when the store is down; otherwise it is refused (503). */
  onStoreFailure: 'open' | 'closed' | 'auto';
  limits: { accountMaxFailures: number; clientMaxFailures: number; windowMs: number; maxLockMs: number };
}

/**
 * Failed credential checks counted per account (tenant, normalised e-mail) and per client IP, in
 * the shared counter store (docs/identity-and-access.md, "Sign-in limits"). A subject that failed
 * `limit` times within the window is locked: every check for it answers 429 `rate_limit_exceeded`
 * with `Retry-After`, before any password is hashed, whether the credential is right or not; each
 * further lock within a day doubles, up to the maximum. A success clears the account's failures, so
 * one account's failures never touch another account, and no failure spends a tenant's budget.
 */
export class SignInLimits {
  readonly #deps: SignInLimitsDeps;
  readonly #rules: Record<Subject['scope'], LockoutRule>;
  constructor(deps: SignInLimitsDeps) {
    this.#deps = deps;
    const { accountMaxFailures, clientMaxFailures, windowMs, maxLockMs } = deps.limits;
    const rule = (limit: number): LockoutRule => ({
      limit,
      windowMs,
      lockMs: Math.min(windowMs, maxLockMs),
      maxLockMs,
      memoryMs: Math.max(STRIKE_MEMORY_MS, maxLockMs),
    });
    this.#rules = { account: rule(accountMaxFailures), client: rule(clientMaxFailures) };
  }

  /** The account a sign-in names: the live tenant (or, unknown, the subdomain given) and the e-mail as the user would type it. */
  static account(tenantKey: string, email: string): Subject {
    return { scope: 'account', id: digest(`${tenantKey}\n${email.normalize('NFC').trim().toLowerCase()}`) };
  }

  /** The client a request comes from: its IP, or its /64 for IPv6 (one host holds a whole /64). */
  static client(ip: string | null | undefined): Subject {
    return { scope: 'client', id: digest(clientNetwork(ip ?? 'unknown')) };
  }

  /** Throws 429 when any subject is locked; the answer names the scope and when to retry. */
  async assertOpen(route: CredentialRoute, subjects: Subject[]): Promise<void> {
    if (!this.#deps.enabled) return;
    let remaining: number[];
    try {
      remaining = await Promise.all(subjects.map((s) => this.#deps.store.lockRemaining(this.#key(s))));
    } catch (error) {
      // As for the rate limiter's auth routes: closed unless told to stay open, so guessing does not
      // get unlimited tries while the counters are down.
      const open = this.#deps.onStoreFailure === 'open';
      this.#deps.metrics.rateLimitStoreErrors.inc({ outcome: open ? 'allowed' : 'refused' });
      this.#deps.logger.warn({ err: error, route, refused: !open }, 'sign-in limits unavailable');
      if (open) return;
      throw errors.unavailable('Sign-in limits are unavailable; retry shortly', 5);
    }
    let locked = -1;
    for (let i = 0; i < subjects.length; i++)
      if (remaining[i]! > 0 && (locked < 0 || remaining[i]! > remaining[locked]!)) locked = i;
    if (locked < 0) return;
    this.#deps.metrics.credentialChecks.inc({ route, outcome: 'refused' });
    throw this.#lockedError(subjects[locked]!.scope, remaining[locked]!);
  }

  /** Counts a failed check against every subject, locking those that reached their limit. */
  async failed(route: CredentialRoute, subjects: Subject[]): Promise<void> {
    this.#deps.metrics.credentialChecks.inc({ route, outcome: 'failure' });
    if (!this.#deps.enabled) return;
    await Promise.all(
      subjects.map(async (subject) => {
        try {
          const lockMs = await this.#deps.store.recordFailure(this.#key(subject), this.#rules[subject.scope]);
          if (lockMs > 0) {
            this.#deps.metrics.credentialLockouts.inc({ scope: subject.scope });
            this.#deps.logger.warn(
              { route, scope: subject.scope, lockSeconds: Math.ceil(lockMs / 1000) },
              'sign-in locked after repeated failures',
            );
          }
        } catch (error) {
          this.#deps.logger.warn({ err: error, route }, 'could not count a failed sign-in');
        }
      }),
    );
  }

  /** A successful check: the account's failures and locks are forgotten (a client's are not). */
  async succeeded(route: CredentialRoute, account: Subject | null): Promise<void> {
    this.#deps.metrics.credentialChecks.inc({ route, outcome: 'success' });
    if (this.#deps.enabled && account) await this.unlock(account);
  }

  /** Lifts an account's lock and forgets its failures (a completed password reset). */
  async unlock(account: Subject): Promise<void> {
    try {
      await this.#deps.store.reset(this.#key(account));
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'could not clear sign-in failures');
    }
  }

  #key(subject: Subject): string {
    // The braces keep a subject's three keys in one Redis Cluster slot (one script touches them).
    return `${this.#deps.keyPrefix}signin:{${subject.scope}:${subject.id}}`;
  }

  #lockedError(scope: Subject['scope'], remainingMs: number): AppError {
    const retryAfter = Math.max(1, Math.ceil(remainingMs / 1000));
    const resetAt = this.#deps.clock.now() + retryAfter * 1000;
    const limit = this.#rules[scope].limit;
    const who = scope === 'account' ? 'this account' : 'your network address';
    return errors.rateLimited(`Too many failed sign-in attempts for ${who}; retry in ${retryAfter} s`, {
      details: { limit, remaining: 0, reset_at: new Date(resetAt).toISOString(), scope: `sign_in_${scope}` },
      headers: {
        'retry-after': String(retryAfter),
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
      },
    });
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}
