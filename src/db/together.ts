import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import type { Executor } from './executor.ts';
import { type BatchStatement, PIPELINED_BATCH } from './pipelined-client.ts';
import type { DB } from './schema.ts';

/** One part of a `together` call: a repository call (or several in turn) on the executor it is given. */
export type Part<T> = (db: Executor) => Promise<T>;

interface Pending {
  path: readonly number[];
  query: CompiledQuery;
  resolve: (result: QueryResult<unknown>) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs independent parts of a transaction, answering their results in order.
 *
 * In a PostgreSQL transaction the statements the parts issue in the same turn of the event loop
 * leave in one send and are answered in one (src/db/pipelined-client.ts): a part's next statement,
 * after an answer, joins the next send. Elsewhere (SQLite, or outside a transaction) the parts run
 * one after another on `executor`, as they would without this.
 *
 * The parts must not depend on each other's writes: PostgreSQL runs their statements in the order
 * they were issued, which interleaves parts that issue several. A failing statement fails its part
 * and aborts the transaction (those sent after it in the same send fail too).
 */
export async function together<T extends unknown[]>(
  executor: Executor,
  parts: { [K in keyof T]: Part<T[K]> },
): Promise<T> {
  // Inside a part: its own parts join the same batches, ordered within it.
  const outer = collectors.get(executor);
  if (outer) return allOf(outer.batcher, outer.path, parts as Part<unknown>[]) as Promise<T>;
  if (!executor.isTransaction || !(executor.getExecutor().adapter instanceof PostgresAdapter)) {
    const results: unknown[] = [];
    for (const part of parts as Part<unknown>[]) results.push(await part(executor));
    return results as T;
  }
  return allOf(new Batcher(executor), [], parts as Part<unknown>[]) as Promise<T>;
}

/** The executors `together` gives its parts: the batcher they feed and the part's place. */
const collectors = new WeakMap<object, { batcher: Batcher; path: readonly number[] }>();

/**
 * Every part's result, once all have settled: a part that failed fails the call, but only after the
 * others stopped issuing statements (the caller's transaction must not end under them).
 */
async function allOf(batcher: Batcher, path: readonly number[], parts: Part<unknown>[]): Promise<unknown[]> {
  const settled = await Promise.allSettled(
    parts.map((part, i) => {
      const at = [...path, i];
      const collector = new Kysely<DB>({
        dialect: {
          createAdapter: () => new PostgresAdapter(),
          createDriver: () => batcher.driverFor(at),
          createIntrospector: (db) => new PostgresIntrospector(db),
          createQueryCompiler: () => new PostgresQueryCompiler(),
        },
      });
      collectors.set(collector, { batcher, path: at });
      return part(collector);
    }),
  );
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
}

/** Whether part `a` comes before part `b` (depth first: a part's own parts before the next part). */
function comparePaths(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * Collects the statements the parts issue in one turn of the event loop and runs them as one
 * pipelined batch on the transaction `executor`, in the parts' order (a part's statements in the
 * order it issued them), whatever order they arrived in.
 */
class Batcher {
  readonly #executor: Executor;
  #pending: Pending[] = [];

  constructor(executor: Executor) {
    this.#executor = executor;
  }

  /** A Kysely driver for the part at `path`. */
  driverFor(path: readonly number[]): Driver {
    const connection: DatabaseConnection = {
      executeQuery: <R>(query: CompiledQuery) =>
        new Promise<QueryResult<R>>((resolve, reject) => {
          if (this.#pending.length === 0) setImmediate(() => void this.#flush());
          this.#pending.push({ path, query, resolve: resolve as Pending['resolve'], reject });
        }),
      streamQuery: () => {
        throw new Error('together: streaming is not supported in a batch');
      },
    };
    return {
      init: async () => {},
      acquireConnection: async () => connection,
      beginTransaction: async () => {
        throw new Error('together: the parts already run in a transaction');
      },
      commitTransaction: async () => {},
      rollbackTransaction: async () => {},
      releaseConnection: async () => {},
      destroy: async () => {},
    };
  }

  async #flush(): Promise<void> {
    // Stable: a part's statements keep the order it issued them in.
    const batch = this.#pending.sort((a, b) => comparePaths(a.path, b.path));
    this.#pending = [];
    try {
      const statements: BatchStatement[] = batch.map((p) => ({ sql: p.query.sql, parameters: p.query.parameters }));
      const { rows } = await this.#executor.executeQuery<RawResult>(CompiledQuery.raw(PIPELINED_BATCH, [statements]));
      if (rows.length !== batch.length) {
        // Not a pipelining client (a pool built elsewhere): nothing ran (the text is a comment); one by one.
        for (const p of batch) p.resolve(await this.#executor.executeQuery(p.query));
        return;
      }
      for (const [i, p] of batch.entries()) p.resolve(kyselyResult(rows[i]!));
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }
}

/** What node-postgres answers for one statement. */
interface RawResult {
  command: string;
  rowCount: number | null;
  rows: unknown[];
}

/** A statement's result as Kysely's PostgreSQL driver gives it. */
function kyselyResult(raw: RawResult): QueryResult<unknown> {
  const counts =
    raw.command === 'INSERT' || raw.command === 'UPDATE' || raw.command === 'DELETE' || raw.command === 'MERGE';
  return { rows: raw.rows ?? [], ...(counts ? { numAffectedRows: BigInt(raw.rowCount ?? 0) } : {}) };
}
