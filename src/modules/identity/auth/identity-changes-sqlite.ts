import type { Database } from '../../../db/database.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { IdentityChangesTable } from '../identity.tables.ts';
import type { FeedTarget, IdentityChangeFeed } from './identity-changes.ts';

/** How often the SQLite change log is read. */
export const SQLITE_POLL_INTERVAL_MS = 250;
/** The cache is trusted only while the last successful read of the log is at most this old. */
export const SQLITE_LIVE_WINDOW_MS = 750;
const BATCH = 1_000;

/**
 * SQLite has no cross-process notification: several processes may share the file, so each reads
 * the rows the triggers appended to `identity_changes` (an AUTOINCREMENT log; writers are
 * serialised, so sequence numbers commit in order and without holes) every 250 ms. A change
 * made elsewhere is seen within 250 ms; if reads stop succeeding the cache is bypassed after 750 ms.
 * The triggers keep the newest 10,000 rows; a reader that finds a hole after its last sequence
 * fell behind the pruning and starts over with an empty cache.
 */
export class SqliteIdentityChangeFeed implements IdentityChangeFeed {
  private readonly deps: { database: Database; target: FeedTarget; logger: Logger; now: () => number };
  private lastSeq: number | null = null;
  private lastReadAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private failing = false;

  constructor(deps: SqliteIdentityChangeFeed['deps']) {
    this.deps = deps;
  }

  async start(): Promise<void> {
    if (this.timer) return;
    this.timer = setInterval(() => void this.read(), SQLITE_POLL_INTERVAL_MS);
    this.timer.unref();
    await this.read();
  }

  isLive(): boolean {
    return this.deps.now() - this.lastReadAt <= SQLITE_LIVE_WINDOW_MS;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.reading;
  }

  private read(): Promise<void> {
    this.reading ??= this.readOnce().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const { database, target, logger, now } = this.deps;
    const startedAt = now();
    try {
      const db = database.db;
      if (this.lastSeq === null) {
        const row = await db
          .selectFrom('identity_changes')
          .select((eb) => eb.fn.max('seq').as('seq'))
          .executeTakeFirst();
        this.lastSeq = Number(row?.seq ?? 0);
        target.reset();
      }
      for (;;) {
        const rows = await db
          .selectFrom('identity_changes')
          .select(['seq', 'tag'])
          .where('seq', '>', this.lastSeq)
          .orderBy('seq')
          .limit(BATCH)
          .execute();
        if (rows.length === 0) break;
        if (Number(rows[0]!.seq) !== this.lastSeq + 1) {
          target.reset();
        } else {
          target.changed(rows.map((r): IdentityChangesTable['tag'] => r.tag));
        }
        this.lastSeq = Number(rows.at(-1)!.seq);
        if (rows.length < BATCH) break;
      }
      // Live from when this read began: anything committed after that is for the next read.
      this.lastReadAt = startedAt;
      if (this.failing) logger.info('identity change log readable again');
      this.failing = false;
    } catch (error) {
      if (!this.failing)
        logger.warn({ err: error }, 'could not read the identity change log; credential cache bypassed until it can');
      this.failing = true;
    }
  }
}
