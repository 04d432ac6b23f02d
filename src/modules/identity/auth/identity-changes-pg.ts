import type pg from 'pg';
import { PgListener } from '../../../db/pg-listener.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { FeedTarget, IdentityChangeFeed } from './identity-changes.ts';

/** The channel the triggers of migration 20261123_1500_identity_changes notify (payload: one tag). */
export const IDENTITY_CHANNEL = 'identity_changes';
/** A connection that stops answering is noticed within this plus the listener's ping timeout. */
const PING_INTERVAL_MS = 5_000;

/**
 * Follows identity changes on PostgreSQL: one dedicated connection LISTENs on `identity_changes`;
 * the triggers `pg_notify` inside the changing transaction, so a notification is delivered only
 * once the change is committed, to every process at once.
 *
 * What a cache needs beyond a job wake-up: the feed counts as live only while the connection is up,
 * the cache is emptied on every (re)connection and loss (notifications sent while away are lost),
 * and the connection is pinged, because a half-open TCP connection never reports an error.
 */
export class PgIdentityChangeFeed implements IdentityChangeFeed {
  private readonly listener: PgListener;
  private started = false;

  constructor(deps: { pool: pg.Pool; target: FeedTarget; logger: Logger }) {
    this.listener = new PgListener({
      pool: deps.pool,
      channel: IDENTITY_CHANNEL,
      onNotify: (tag) => {
        if (tag) deps.target.changed([tag]);
      },
      // Whatever was cached before this connection listened may have changed unannounced.
      onConnect: () => deps.target.reset(),
      onLost: () => deps.target.reset(),
      pingIntervalMs: PING_INTERVAL_MS,
      what: 'identity change feed (credential cache bypassed until it reconnects)',
      logger: deps.logger,
    });
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.listener.start();
  }

  isLive(): boolean {
    return this.listener.isConnected();
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.listener.stop();
  }
}
