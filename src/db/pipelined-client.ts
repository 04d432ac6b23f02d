import type pg from 'pg';

/**
 * Pipelining for a transaction's statements on PostgreSQL, in the pool's client class.
 *
 * A transaction on the pool sends one statement, waits for its answer, then sends the next: each
 * statement is a round trip, a wake-up of the backend and a turn of Node's event loop, and on a
 * small machine those cost a workflow step more than the statements themselves
 * (docs/benchmarks-workflows.md). Two things here send several statements of one transaction at once:
 *
 * - **BEGIN rides with the transaction's first statement.** Kysely awaits `begin` before the first
 *   query; the client answers it at once and writes it just before that query, in the same send.
 *   A BEGIN that fails (it does not, short of a broken connection) fails that query.
 * - **A batch** (`together`, src/db/together.ts): statements the caller knows to be independent
 *   are written in one send in node-postgres' pipeline mode, each with its own Sync, and answered
 *   in order. The backend runs them one after another in the transaction, as if sent one by one;
 *   when one fails, the transaction is aborted and those after it fail too.
 */

/** The SQL text that stands for "run these statements pipelined" (`values[0]` lists them); never sent as such. */
export const PIPELINED_BATCH = '/* pipelined batch */';

/** One statement of a batch: its text and values. */
export interface BatchStatement {
  sql: string;
  parameters: readonly unknown[];
}

/** What this module uses of a `pg.Client` beyond its typings (present in node-postgres 8). */
type PipelinableClient = pg.Client & {
  pipeline: boolean;
  connection: { stream: { cork?(): void; uncork?(): void } };
};

type Query = (this: pg.Client, ...args: unknown[]) => Promise<pg.QueryResult>;

/** Writes `statements` in one send on an idle client and answers their results in order. */
async function sendPipelined(
  client: PipelinableClient,
  query: Query,
  statements: readonly (readonly [string, readonly unknown[] | undefined])[],
): Promise<pg.QueryResult[]> {
  const stream = client.connection.stream;
  client.pipeline = true;
  stream.cork?.();
  let sent: Promise<pg.QueryResult>[];
  try {
    sent = statements.map(([text, values]) => (values ? query.call(client, text, values) : query.call(client, text)));
  } finally {
    stream.uncork?.();
  }
  const settled = await Promise.allSettled(sent);
  // Every answer is in: the client is idle again and goes back to one statement at a time.
  client.pipeline = false;
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<pg.QueryResult>).value);
}

/**
 * A `pg.Client` class (for `new pg.Pool({ Client })`) that defers `begin` to the transaction's
 * first statement and runs `PIPELINED_BATCH` batches; every other call passes through.
 */
export function pipeliningClient(Client: typeof pg.Client): typeof pg.Client {
  const deferredBegin = new WeakSet<pg.Client>();
  class PipeliningClient extends Client {}
  const plain = Client.prototype.query as Query;
  PipeliningClient.prototype.query = function query(this: pg.Client, ...args: unknown[]) {
    const [text, values] = args;
    const client = this as PipelinableClient;
    if (typeof text !== 'string' || args.length !== 2 || !Array.isArray(values) || client.pipeline) {
      // Not Kysely's shape (a caller of the client itself): a deferred BEGIN goes first, queued ahead of it.
      if (deferredBegin.delete(this)) plain.call(this, 'begin').catch(() => {});
      return plain.apply(this, args);
    }
    if (text === 'begin' && values.length === 0) {
      deferredBegin.add(this);
      return Promise.resolve({ command: 'BEGIN', rowCount: null, rows: [], fields: [], oid: 0 });
    }
    const statements: [string, readonly unknown[] | undefined][] =
      text === PIPELINED_BATCH ? (values[0] as BatchStatement[]).map((s) => [s.sql, s.parameters]) : [[text, values]];
    const begins = deferredBegin.delete(this);
    if (begins) statements.unshift(['begin', undefined]);
    if (statements.length === 1 && text !== PIPELINED_BATCH) return plain.apply(this, args);
    return sendPipelined(client, plain, statements).then((results) => {
      const own = begins ? results.slice(1) : results;
      return text === PIPELINED_BATCH ? { command: 'SELECT', rowCount: own.length, rows: own, fields: [] } : own[0];
    });
  } as pg.Client['query'];
  return PipeliningClient;
}
