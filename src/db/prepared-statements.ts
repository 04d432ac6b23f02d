import type pg from 'pg';

/**
 * Server-side prepared statements for the hot queries on PostgreSQL.
 *
 * A query sent without a name is parsed, analysed and planned by PostgreSQL every time: for the
 * small indexed lookups on the request path that is half of the database's work (measured ~59 µs
 * of backend CPU per query unnamed against ~27 µs as a named statement; docs/benchmarks-auth.md).
 * Queries built by `compiledOnce` have one fixed SQL text, so they are registered here and the
 * PostgreSQL client sends them as a named statement: parsed once per connection, then only bound
 * and executed.
 *
 * The set is bounded by the code (one name per `compiledOnce` query), so each connection holds a
 * handful of statements. Those queries name their columns (never `*`): a prepared `SELECT *` fails
 * with "cached plan must not change result type" once a migration adds a column while it is cached.
 */
const names = new Map<string, string>();

/** Marks an SQL text as worth preparing; idempotent. */
export function registerPreparedStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `dms_${names.size + 1}`);
}

/** The statement name of a registered SQL text. */
export function preparedStatementName(sql: string): string | undefined {
  return names.get(sql);
}

/**
 * A `pg.Client` class (for `new pg.Pool({ Client })`) that sends registered SQL texts as named
 * statements. Kysely calls `client.query(sql, parameters)`; every other call passes through as is.
 */
export function preparingClient(Client: typeof pg.Client): typeof pg.Client {
  class PreparingClient extends Client {}
  const plain = Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
  // Assigned rather than declared: one implementation serves all of pg's `query` overloads.
  PreparingClient.prototype.query = function query(this: pg.Client, ...args: unknown[]) {
    const [text, values] = args;
    const name = args.length === 2 && typeof text === 'string' && Array.isArray(values) ? names.get(text) : undefined;
    return name ? plain.call(this, { name, text, values }) : plain.apply(this, args);
  } as pg.Client['query'];
  return PreparingClient;
}
