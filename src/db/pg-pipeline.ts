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
 * replaced on the next read. Transactions and everything else keep using the pool.
 */
export class PgPipeline {
  readonly #Client: typeof pg.Client;
  readonly #options: pg.ClientConfig;
  readonly #slots: (pg.Client | null)[];
  #next = 0;
  #closed = false;
  /** Clients whose socket is corked until the end of this turn of the event loop. */
  readonly #corked = new Set<pg.Client>();

  constructor(Client: typeof pg.Client, options: pg.ClientConfig, connections = 2) {
    this.#Client = Client;
    this.#options = options;
    this.#slots = Array.from({ length: connections }, () => null);
  }

  /** Runs one named statement and answers its rows. */
  async query<R>(name: string, text: string, values: readonly unknown[]): Promise<R[]> {
    if (this.#closed) throw new Error('the database is closed');
    const client = this.#client();
    this.#coalesce(client);
    const result = await client.query<R & pg.QueryResultRow>({ name, text, values: values as unknown[] });
    return result.rows;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const clients = this.#slots.filter((c): c is pg.Client => c !== null);
    this.#slots.fill(null);
    await Promise.allSettled(clients.map((c) => c.end()));
  }

  /** The next connection in turn, opened (or reopened) on first use. */
  #client(): pg.Client {
    const slot = this.#next;
    this.#next = (this.#next + 1) % this.#slots.length;
    const existing = this.#slots[slot];
    if (existing) return existing;
    const client = new this.#Client({ ...this.#options, pipeline: true } as pg.ClientConfig);
    const drop = () => {
      if (this.#slots[slot] === client) this.#slots[slot] = null;
    };
    client.on('error', drop);
    client.on('end', drop);
    // Reads queued before the connection is ready are sent once it is; a failed connect fails them.
    client.connect().catch(drop);
    this.#slots[slot] = client;
    return client;
  }

  /** Holds a connection's writes until the event loop's turn ends, so they leave in one send. */
  #coalesce(client: pg.Client): void {
    if (this.#corked.has(client)) return;
    const stream = (client as unknown as { connection: { stream: NodeJS.WritableStream & { cork?(): void; uncork?(): void } } }).connection.stream;
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
