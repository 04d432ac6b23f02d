import type pg from 'pg';
import type { Logger } from '../lib/logger.ts';

/** A listening connection that stops answering is taken for lost after PING_INTERVAL + PING_TIMEOUT. */
const PING_TIMEOUT_MS = 2_000;

export interface PgListenerOptions {
  pool: pg.Pool;
  channel: string;
  onNotify: (payload: string) => void;
  /** After every (re)connection: poll for, or forget, what was announced while away. */
  onConnect: () => void;
  /** When the connection is lost (error, or no answer to a ping). */
  onLost?: () => void;
  /**
   * Pings the connection this often: a half-open TCP connection never reports an error, so an
   * owner that must know it is still hearing notifications (a cache) asks for pings. Off by default.
   */
  pingIntervalMs?: number;
  /** Said in the log when the connection fails. */
  what: string;
  logger: Logger;
}

/**
 * Holds one dedicated connection LISTENing on a channel and calls back on each notification.
 * Reconnects with backoff when the connection fails, calling `onConnect` each time so the owner
 * can catch up with whatever was announced while it was away.
 */
export class PgListener {
  private readonly options: PgListenerOptions;
  private client: pg.PoolClient | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private failures = 0;

  constructor(options: PgListenerOptions) {
    this.options = options;
  }

  /** Connects once; on failure keeps retrying in the background. */
  async start(): Promise<void> {
    this.stopped = false;
    if (this.options.pingIntervalMs && !this.pingTimer) {
      this.pingTimer = setInterval(() => this.ping(), this.options.pingIntervalMs);
      this.pingTimer.unref();
    }
    await this.connect();
  }

  /** Whether the connection is up (notifications are being heard). */
  isConnected(): boolean {
    return this.client !== null;
  }

  /** Stops listening and closes the connection (it is not returned to the pool still LISTENing). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.retryTimer = null;
    this.pingTimer = null;
    const client = this.client;
    this.client = null;
    client?.release(true);
  }

  private async connect(): Promise<void> {
    this.retryTimer = null;
    if (this.stopped) return;
    let client: pg.PoolClient | null = null;
    try {
      client = await this.options.pool.connect();
      const owned = client;
      client.on('notification', (message) => {
        if (message.channel === this.options.channel && this.client === owned)
          this.options.onNotify(message.payload ?? '');
      });
      client.on('error', (error) => this.lost(owned, error));
      await client.query(`LISTEN "${this.options.channel}"`);
      if (this.stopped) {
        client.release(true);
        return;
      }
      this.client = client;
      this.failures = 0;
      this.options.onConnect();
    } catch (error) {
      client?.release(true);
      this.scheduleRetry(error);
    }
  }

  private ping(): void {
    const client = this.client;
    if (!client) return;
    const timer = setTimeout(
      () => this.lost(client, new Error(`no answer to a ping within ${PING_TIMEOUT_MS} ms`)),
      PING_TIMEOUT_MS,
    );
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
    this.options.onLost?.();
    client.release(error);
    this.scheduleRetry(error);
  }

  private scheduleRetry(error: unknown): void {
    if (this.stopped || this.retryTimer) return;
    this.failures++;
    const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
    this.options.logger.warn(
      { err: error, retryInMs: delay },
      `${this.options.what}: listening connection lost; reconnecting`,
    );
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }
}
