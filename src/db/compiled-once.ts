import { type Compilable, CompiledQuery, type RootOperationNode } from 'kysely';
import type { Executor } from './executor.ts';
import { pipelineOf } from './pg-pipeline.ts';
import { preparedStatementName, registerPreparedStatement } from './prepared-statements.ts';

/** Whether a query selects `*` or `t.*` (its result columns would change with the table). */
function selectsAll(node: RootOperationNode): boolean {
  if (node.kind !== 'SelectQueryNode') return false;
  return (node.selections ?? []).some(
    ({ selection }) =>
      selection.kind === 'SelectAllNode' ||
      (selection.kind === 'ReferenceNode' && selection.column.kind === 'SelectAllNode'),
  );
}

/**
 * A hot query built and compiled by Kysely once, then run with fresh values: building the query
 * tree and compiling it cost more than the query itself on SQLite. `build` receives placeholder
 * values (one per parameter, in the order given) that are replaced by the real ones on each call.
 * The compiled SQL is of the first executor's dialect; a repository instance serves one database.
 * On PostgreSQL the text runs as a named prepared statement (`prepared-statements.ts`), so `build`
 * must name its columns: a `selectAll()` throws on first use.
 */
export function compiledOnce<P extends unknown[], R>(build: (db: Executor, ...params: P) => Compilable<R>) {
  let compiled: { sql: string; parameters: readonly unknown[] } | null = null;
  const placeholders: unknown[] = [];
  return async (db: Executor, ...params: P): Promise<R[]> => {
    if (!compiled) {
      // Placeholders that can never be real values, to find each parameter's position.
      const marks = params.map((p, i) =>
        typeof p === 'number' ? -7_777_777_000.25 - i : `\u0000compiled-once-${i}`,
      ) as P;
      const built = build(db, ...marks).compile();
      if (selectsAll(built.query))
        throw new Error(`compiledOnce: name the columns instead of selecting *: ${built.sql}`);
      compiled = built;
      placeholders.push(...marks);
      registerPreparedStatement(compiled.sql);
    }
    const values = compiled.parameters.map((v) => {
      const at = placeholders.indexOf(v);
      return at >= 0 ? params[at] : v;
    });
    const pipeline = pipelineOf(db);
    if (pipeline) return pipeline.query<R>(preparedStatementName(compiled.sql)!, compiled.sql, values);
    const result = await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, values));
    return result.rows;
  };
}
