import type pg from 'pg';
import type { Logger } from '../../../lib/logger.ts';
import type { FeedTarget, IdentityChangeFeed } from './identity-changes.ts';

/** The channel the triggers of migration 20261123_1500_identity_changes notify (payload: one tag). */
export const IDENTITY_CHANNEL = 'identity_changes';
/** A LISTENing connection that stops answering is taken for lost after PING_INTERVAL + PING_TIMEOUT. */
const PING_INTERVAL_MS = 5_000;
const PING_TIMEOUT_MS = 2_000;

/**
 * Follows identity changes on PostgreSQL: one dedicated pool connection LISTENs on
 * `identity_changes`; the triggers `pg_notify` inside the changing transaction, so a notification
 * is delivered only once the change is committed, to every process at once.
 *
 * The pattern of `src/jobs/pg-listener.ts` (reconnect with backoff), plus what a cache needs and
 * a job wake-up does not: the feed counts as live only while the connection is up, the cache is
 * emptied on every (re)connection (notifications sent while away are lost), and a ping every 5 s
 * notices a connection that died without an error (a half-open TCP connection never reports one).
 */
export class PgIdentityChangeFeed implements IdentityChangeFeed {
  private readonly deps: { pool: pg.Pool; target: FeedTarget; logger: Logger };
  private client: pg.PoolClient | null = null;
  private started = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private failures = 0;

  constructor(deps: PgIdentityChangeFeed['deps']) {
    this.deps = deps;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    this.pingTimer = setInterval(() => this.ping(), PING_INTERVAL_MS);
    this.pingTimer.unref();
    await this.connect();
  }

  isLive(): boolean {
    return this.client !== null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.retryTimer = null;
    this.pingTimer = null;
    const client = this.client;
    this.client = null;
    // Not returned to the pool still LISTENing.
    client?.release(true);
  }

  private async connect(): Promise<void> {
    this.retryTimer = null;
    if (this.stopped) return;
    let client: pg.PoolClient | null = null;
    try {
      client = await this.deps.pool.connect();
      const owned = client;
      client.on('notification', (message) => {
        if (message.channel === IDENTITY_CHANNEL && this.client === owned && message.payload) this.deps.target.changed([message.payload]);
      });
      client.on('error', (error) => this.lost(owned, error));
      await client.query(`LISTEN ${IDENTITY_CHANNEL}`);
      if (this.stopped) {
        client.release(true);
        return;
      }
      this.client = client;
      this.failures = 0;
      // Whatever was cached before this connection listened may have changed unannounced.
      this.deps.target.reset();
    } catch (error) {
      client?.release(true);
      this.scheduleRetry(error);
    }
  }

  private ping(): void {
    const client = this.client;
    if (!client) return;
    const timer = setTimeout(() => this.lost(client, new Error(`no answer to a ping within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
    client.query('SELECT 1').then(
      () => clearTimeout(timer),
      (error: Error) => {
        clearTimeout(timer);
        this.lost(client, error);
      },
    );
  }

  private lost(client: pg.PoolClient, error: Error): void {
    if (this.client !== client) return;
    this.client = null;
    this.deps.target.reset();
    client.release(error);
    this.scheduleRetry(error);
  }

  private scheduleRetry(error: unknown): void {
    if (this.stopped || this.retryTimer) return;
    this.failures++;
    const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
    this.deps.logger.warn({ err: error, retryInMs: delay }, 'identity change listener lost its connection; credential cache bypassed until it reconnects');
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }
}
