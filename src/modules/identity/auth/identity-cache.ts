import type { Database } from '../../../db/database.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { Tenant } from '../../../domain/tenant.ts';
import type { BuiltInRole } from '../../../domain/auth-context.ts';
import { CredentialCache } from './credential-cache.ts';
import { PgIdentityChangeFeed } from './identity-changes-pg.ts';
import { SqliteIdentityChangeFeed } from './identity-changes-sqlite.ts';
import { type IdentityChangeFeed, identityTags } from './identity-changes.ts';

/** Entries of the credential cache (docs/identity-and-access.md, "Credential cache"). */
export type CachedCredential =
  | { kind: 'api_key'; apiKeyId: string; tenant: Tenant }
  | {
      kind: 'session';
      tenant: Tenant;
      sessionId: string;
      userId: string;
      sessionExpiresAt: number;
      role: BuiltInRole;
      roles: string[];
    };

/** At most this many credentials per process (a few hundred bytes each). */
export const CACHE_MAX_ENTRIES = 10_000;
/** An entry is looked up afresh at least this often, whatever the feed says. */
export const CACHE_TTL_MS = 30_000;

/**
 * The process's credential cache and the feed that keeps it true. The feed starts with the first
 * authentication (a worker process, which never authenticates, holds no listening connection).
 */
export class IdentityCache {
  readonly credentials: CredentialCache<CachedCredential>;
  private readonly feed: IdentityChangeFeed;
  private starting: Promise<void> | null = null;
  private readonly listeners: ((tags: string[]) => void)[] = [];

  /**
   * `now` measures the cache's own time (entry age, feed liveness): monotonic by default, not the
   * service clock, which tests move by days. Expiry of what is cached (a session's end) is checked
   * against the service clock by the authenticators.
   */
  constructor(deps: { database: Database; logger: Logger; now?: () => number; maxEntries?: number; ttlMs?: number }) {
    const now = deps.now ?? (() => performance.now());
    const target = {
      changed: (tags: string[]) => {
        this.credentials.invalidate(tags);
        for (const listener of this.listeners) listener(tags);
      },
      reset: () => this.credentials.clear(),
    };
    this.feed =
      deps.database.dialect === 'postgres' && deps.database.pgPool
        ? new PgIdentityChangeFeed({ pool: deps.database.pgPool, target, logger: deps.logger })
        : new SqliteIdentityChangeFeed({ database: deps.database, target, logger: deps.logger, now });
    this.credentials = new CredentialCache<CachedCredential>({
      maxEntries: deps.maxEntries ?? CACHE_MAX_ENTRIES,
      ttlMs: deps.ttlMs ?? CACHE_TTL_MS,
      now,
      isLive: () => this.feed.isLive(),
    });
  }

  /** Starts the feed once; until it is live the cache is bypassed, so callers need not wait. */
  ensureStarted(): void {
    // The feeds retry on their own and never reject; a failure here only means "not live yet".
    this.starting ??= this.feed.start().catch(() => {});
  }

  /**
   * Changes this process committed: dropped here at once (other processes learn of them from the
   * triggers' notifications or change log within a second; this one must not wait for its own).
   */
  committed(tags: string[]): void {
    this.credentials.invalidate(tags);
  }

  /** Tags of changes seen by the feed (any process), e.g. for other per-process caches. */
  onChange(listener: (tags: string[]) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    await this.starting;
    await this.feed.stop();
  }
}

/** The tags an entry depends on: itself, its tenant, and the live tenant of a sandbox twin. */
export function tenantTags(tenant: Tenant): string[] {
  return tenant.sandboxOf
    ? [identityTags.tenant(tenant.id), identityTags.tenant(tenant.sandboxOf)]
    : [identityTags.tenant(tenant.id)];
}
