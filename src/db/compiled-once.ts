import { type Compilable, CompiledQuery } from 'kysely';
import type { Executor } from './executor.ts';

/**
 * A hot query built and compiled by Kysely once, then run with fresh values: building the query
 * tree and compiling it cost more than the query itself on SQLite. `build` receives placeholder
 * values (one per parameter, in the order given) that are replaced by the real ones on each call.
 * The compiled SQL is of the first executor's dialect; a repository instance serves one database.
 */
export function compiledOnce<P extends unknown[], R>(build: (db: Executor, ...params: P) => Compilable<R>) {
  let compiled: { sql: string; parameters: readonly unknown[] } | null = null;
  const placeholders: unknown[] = [];
  return async (db: Executor, ...params: P): Promise<R[]> => {
    if (!compiled) {
      // Placeholders that can never be real values, to find each parameter's position.
      const marks = params.map((p, i) => (typeof p === 'number' ? -7_777_777_000.25 - i : `\u0000compiled-once-${i}`)) as P;
      placeholders.push(...marks);
      compiled = build(db, ...marks).compile();
    }
    const values = compiled.parameters.map((v) => {
      const at = placeholders.indexOf(v);
      return at >= 0 ? params[at] : v;
    });
    const result = await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, values));
    return result.rows;
  };
}
