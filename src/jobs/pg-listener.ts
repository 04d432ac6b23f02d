import type pg from 'pg';
import type { Logger } from '../lib/logger.ts';

/**
 * Holds one dedicated connection LISTENing on a channel and calls back on each notification.
 * Reconnects with backoff when the connection fails, calling `onConnect` each time so the owner
 * can poll for whatever was announced while it was away.
 */
export class PgListener {
  private readonly pool: pg.Pool;
  private readonly channel: string;
  private readonly onNotify: (payload: string) => void;
  private readonly onConnect: () => void;
  private readonly logger: Logger;
  private client: pg.PoolClient | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;

  constructor(options: {
    pool: pg.Pool;
    channel: string;
    onNotify: (payload: string) => void;
    onConnect: () => void;
    logger: Logger;
  }) {
    this.pool = options.pool;
    this.channel = options.channel;
    this.onNotify = options.onNotify;
    this.onConnect = options.onConnect;
    this.logger = options.logger;
  }

  /** Connects once; on failure keeps retrying in the background (polling covers the gap). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  private async connect(): Promise<void> {
    this.retryTimer = null;
    if (this.stopped) return;
    let client: pg.PoolClient | null = null;
    try {
      client = await this.pool.connect();
      client.on('notification', (message) => {
        if (message.channel === this.channel) this.onNotify(message.payload ?? '');
      });
      const owned = client;
      client.on('error', (error) => this.lost(owned, error));
      await client.query(`LISTEN "${this.channel}"`);
      if (this.stopped) {
        client.release(true);
        return;
      }
      this.client = client;
      this.failures = 0;
      this.onConnect();
    } catch (error) {
      client?.release(true);
      this.scheduleRetry(error);
    }
  }

  private lost(client: pg.PoolClient, error: Error): void {
    if (this.client !== client) return;
    this.client = null;
    client.release(error);
    this.scheduleRetry(error);
  }

  private scheduleRetry(error: unknown): void {
    if (this.stopped || this.retryTimer) return;
    this.failures++;
    const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
    this.logger.warn({ err: error, retryInMs: delay }, 'job listener connection failed; reconnecting');
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }

  /** Stops listening and closes the connection (it is not returned to the pool still LISTENing). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    client?.release(true);
  }
}
