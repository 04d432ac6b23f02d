import type pg from 'pg';

/**
 * Pipelined PostgreSQL connections for the hot single-statement reads (`compiledOnce` queries run
 * outside a transaction: API-key lookup, session identity, user by id).
 *
 * Through the pool, each of those reads takes a connection of its own, is written to its own
 * socket and wakes its own backend: on a small machine the sends and the wake-ups cost the API more
 * than the query itself (docs/benchmarks-auth.md). Here the reads of concurrent requests share a
 * few connections in node-postgres' pipeline mode: a read is written without waiting for the
 * answers of those before it, the writes of one turn of the event loop leave in one send, and a
 * backend answers a run of them per wake-up. Each read still has its own Sync, so one failing read
 * fails alone.
 *
 * A connection that breaks fails the reads in flight on it (as a pool connection would) and is
 * replaced on the next read. An idle connection does not keep the process alive (a script that
 * forgot to close the database still exits; the pool's idle clients time out for the same reason).
 * Transactions and everything else keep using the pool.
 */
/** What this module uses of a `pg.Client` beyond its typings (present in node-postgres 8). */
type Client = pg.Client & {
  ref(): void;
  unref(): void;
  connection: { stream: { cork?(): void; uncork?(): void } };
};

export class PgPipeline {
  readonly #Client: typeof pg.Client;
  readonly #options: pg.ClientConfig;
  readonly #slots: ({ client: Client; pending: number } | null)[];
  #next = 0;
  #closed = false;
  /** Clients whose socket is corked until the end of this turn of the event loop. */
  readonly #corked = new Set<Client>();

  constructor(Client: typeof pg.Client, options: pg.ClientConfig, connections = 2) {
    this.#Client = Client;
    this.#options = options;
    this.#slots = Array.from({ length: connections }, () => null);
  }

  /** Runs one named statement and answers its rows. */
  async query<R>(name: string, text: string, values: readonly unknown[]): Promise<R[]> {
    if (this.#closed) throw new Error('the database is closed');
    const slot = this.#slot();
    const { client } = slot;
    if (slot.pending++ === 0) client.ref();
    try {
      this.#coalesce(client);
      const result = await client.query<R & pg.QueryResultRow>({ name, text, values: values as unknown[] });
      return result.rows;
    } finally {
      if (--slot.pending === 0) client.unref();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const open = this.#slots.filter((s) => s !== null);
    this.#slots.fill(null);
    await Promise.allSettled(open.map((s) => s.client.end()));
  }

  /** The next connection in turn, opened (or reopened) on first use. */
  #slot(): { client: Client; pending: number } {
    const at = this.#next;
    this.#next = (this.#next + 1) % this.#slots.length;
    const existing = this.#slots[at];
    if (existing) return existing;
    const slot = {
      client: new this.#Client({ ...this.#options, pipeline: true } as pg.ClientConfig) as Client,
      pending: 0,
    };
    const drop = () => {
      if (this.#slots[at] === slot) this.#slots[at] = null;
    };
    slot.client.on('error', drop);
    slot.client.on('end', drop);
    // Reads queued before the connection is ready are sent once it is; a failed connect fails them.
    slot.client.connect().catch(drop);
    this.#slots[at] = slot;
    return slot;
  }

  /** Holds a connection's writes until the event loop's turn ends, so they leave in one send. */
  #coalesce(client: Client): void {
    if (this.#corked.has(client)) return;
    const stream = client.connection.stream;
    if (!stream.cork || !stream.uncork) return;
    stream.cork();
    this.#corked.add(client);
    setImmediate(() => {
      this.#corked.delete(client);
      stream.uncork!();
    });
  }
}

const pipelines = new WeakMap<object, PgPipeline>();

/** Routes a database's `compiledOnce` reads outside transactions through `pipeline`. */
export function usePipeline(db: object, pipeline: PgPipeline): void {
  pipelines.set(db, pipeline);
}

/** The pipeline of a root database handle; undefined for a transaction or without one. */
export function pipelineOf(db: object): PgPipeline | undefined {
  return pipelines.get(db);
}
