import { type Compilable, CompiledQuery, type Insertable, type RawBuilder, type Selectable, sql } from 'kysely';
import type { DialectName } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import { registerPreparedStatement } from '../db/prepared-statements.ts';
import type { JobsTable } from '../db/schema.ts';

/*
 * Every query of the job queue, for both dialects. State constants are written as SQL literals
 * (not bound parameters) so both planners can match the partial indexes of the jobs table.
 */

export type JobRow = Selectable<JobsTable>;
export type NewJobRow = Insertable<JobsTable>;

/** The partial unique index's predicate, repeated as the ON CONFLICT target so both dialects infer it. */
const PENDING_UNIQUE = sql<boolean>`unique_key is not null and state in ('available', 'running')`;

/**
 * Inserts rows; those whose unique key is already pending are skipped. Returns the ids inserted.
 * With `notifyDueBy` (PostgreSQL), each inserted row due by then wakes the `jobs` listeners at
 * commit from the insert's own RETURNING: no separate `pg_notify` round trip. (PostgreSQL delivers
 * one notification per channel and payload per transaction, however many rows raise it.)
 */
export async function insertJobs(
  executor: Executor,
  rows: NewJobRow[],
  options: { notifyDueBy?: number; along?: Compilable } = {},
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const { notifyDueBy, along } = options;
  const insert = executor
    .insertInto('jobs')
    .values(rows)
    .onConflict((oc) => oc.column('unique_key').where(PENDING_UNIQUE).doNothing());
  const returning =
    notifyDueBy === undefined
      ? insert.returning('id')
      : insert.returning([
          'id',
          sql<unknown>`case when run_at <= ${notifyDueBy} then pg_notify('jobs', kind) end`.as('notified'),
        ]);
  const inserted = along
    ? // A data-modifying CTE runs once whether or not the statement reads it (PostgreSQL only).
      (await sql<{ id: string }>`with along as (${along}) ${returning}`.execute(executor)).rows
    : await returning.execute();
  return new Set(inserted.map((r) => r.id));
}

/** The pending (available or running) job holding each unique key. */
export async function findPendingByUniqueKeys(executor: Executor, keys: string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await executor
    .selectFrom('jobs')
    .select(['id', 'unique_key'])
    .where('unique_key', 'in', keys)
    .where(sql<boolean>`state in ('available', 'running')`)
    .execute();
  return new Map(rows.map((r) => [r.unique_key!, r.id]));
}

export async function findJob(executor: Executor, id: string): Promise<JobRow | null> {
  return (await executor.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export interface ClaimParams {
  kinds: string[];
  limit: number;
  /** A tighter cap for some kinds (their own concurrency room); the others take up to `limit`. */
  kindLimits?: ReadonlyMap<string, number>;
  workerId: string;
  now: number;
  lockedUntil: number;
}

/**
 * Takes up to `limit` due jobs of the given kinds in one atomic statement: the highest priority,
 * then the oldest, at most `kindLimits` of a capped kind. PostgreSQL skips rows another claimer
 * holds; SQLite serialises writers.
 *
 * Each kind's candidates are read in order from `jobs_claim_idx (kind, priority, run_at, id)`
 * with their own LIMIT (the kind's cap) and merged, so a claim reads at most kinds x limit index
 * entries however large the backlog (one `kind in (...)` query would sort every due row of those
 * kinds), and a worker with capped kinds still claims in one round trip.
 */
export async function claimJobs(executor: Executor, dialect: DialectName, p: ClaimParams): Promise<JobRow[]> {
  const kinds = p.kinds
    .map((kind) => ({ kind, limit: Math.min(p.limit, p.kindLimits?.get(kind) ?? p.limit) }))
    .filter((k) => k.limit > 0);
  if (kinds.length === 0 || p.limit <= 0) return [];
  const rows =
    dialect === 'postgres' ? await claimOnPostgres(executor, kinds, p) : await claimOnSqlite(executor, kinds, p);
  // RETURNING order is unspecified; start them in the order they were chosen.
  return rows.sort((a, b) => a.priority - b.priority || a.run_at - b.run_at || (a.id < b.id ? -1 : 1));
}

/** Every column of a job, named: the PostgreSQL claim is a prepared statement (no `*`, see prepared-statements.ts). */
const JOB_COLUMNS =
  'id, kind, tenant_id, payload, state, priority, attempts, max_attempts, run_at, locked_by, locked_until, ' +
  'unique_key, last_error, lease_expiries, created_at, updated_at, finished_at';

/*
 * The same choice as SQLite's below, in one fixed SQL text whatever the kinds: each kind's
 * candidates come from a LATERAL subquery over the (kind, limit) arrays. The union of one
 * subquery per kind took PostgreSQL 3-8 ms to plan at each claim with the catalogue's ~30 kinds
 * (20x a point query, measured with EXPLAIN ANALYZE), and a claim runs for nearly every job; this
 * text plans in ~0.2 ms and runs as a named prepared statement, planned once per connection.
 * `array(...)` makes the candidates an InitPlan, read once before the locking scan, so the planner
 * cannot turn it into a scan of every available job semi-joined to the candidates.
 */
const PG_CLAIM = `update jobs set state = 'running', attempts = attempts + 1, locked_by = $1, locked_until = $2,
    updated_at = $3
  where id in (
    select id from jobs
    where id = any(array(
        select c.id from unnest($4::text[], $5::int[]) as k(kind, lim)
        cross join lateral (
          select id from jobs
          where state = 'available' and kind = k.kind and run_at <= $3
          order by priority, run_at, id limit k.lim) as c))
      and state = 'available'
    order by priority, run_at, id limit $6 for update skip locked)
  returning ${JOB_COLUMNS}`;
registerPreparedStatement(PG_CLAIM);

/*
 * One kind (a worker of a single queue): its candidates are locked as they are read, so claims
 * running at once each take the next rows instead of colliding on the same candidates and coming
 * back short (with the text above, a worker draining 10,000 jobs of one kind claimed ~40 % fewer a
 * second, bench/workflows.bench.ts baseline).
 */
const PG_CLAIM_ONE_KIND = `update jobs set state = 'running', attempts = attempts + 1, locked_by = $1, locked_until = $2,
    updated_at = $3
  where id in (
    select id from jobs
    where state = 'available' and kind = $4 and run_at <= $3
    order by priority, run_at, id limit $5 for update skip locked)
  returning ${JOB_COLUMNS}`;
registerPreparedStatement(PG_CLAIM_ONE_KIND);

async function claimOnPostgres(
  executor: Executor,
  kinds: { kind: string; limit: number }[],
  p: ClaimParams,
): Promise<JobRow[]> {
  const one = kinds.length === 1 ? kinds[0]! : null;
  const result = await executor.executeQuery<JobRow>(
    one
      ? CompiledQuery.raw(PG_CLAIM_ONE_KIND, [p.workerId, p.lockedUntil, p.now, one.kind, Math.min(one.limit, p.limit)])
      : CompiledQuery.raw(PG_CLAIM, [
          p.workerId,
          p.lockedUntil,
          p.now,
          kinds.map((k) => k.kind),
          kinds.map((k) => k.limit),
          p.limit,
        ]),
  );
  return [...result.rows];
}

async function claimOnSqlite(
  executor: Executor,
  kinds: { kind: string; limit: number }[],
  p: ClaimParams,
): Promise<JobRow[]> {
  const due = (kind: string, limit: number) =>
    sql`select id, priority, run_at from jobs
      where state = 'available' and kind = ${kind} and run_at <= ${p.now}
      order by priority, run_at, id limit ${limit}`;
  let chosen: RawBuilder<unknown>;
  if (kinds.length === 1) {
    chosen = due(kinds[0]!.kind, kinds[0]!.limit);
  } else {
    const candidates = sql.join(
      kinds.map(({ kind, limit }) => sql`select id from (${due(kind, limit)}) as c`),
      sql` union all `,
    );
    chosen = sql`select id from jobs
      where id in (${candidates}) and state = 'available'
      order by priority, run_at, id limit ${p.limit}`;
  }
  const result = await sql<JobRow>`
    update jobs set state = 'running', attempts = attempts + 1, locked_by = ${p.workerId},
      locked_until = ${p.lockedUntil}, updated_at = ${p.now}
    where id in (select id from (${chosen}) as chosen)
    returning *`.execute(executor);
  return [...result.rows];
}

/** Marks runs finished successfully; only rows this worker still holds. */
export async function completeJobs(
  executor: Executor,
  p: { ids: string[]; workerId: string; now: number },
): Promise<void> {
  if (p.ids.length === 0) return;
  await sql`
    update jobs set state = 'completed', finished_at = ${p.now}, locked_until = null, updated_at = ${p.now}
    where id in (${sql.join(p.ids)}) and state = 'running' and locked_by = ${p.workerId}`.execute(executor);
}

/**
 * Marks one run completed, fenced by worker and attempt like a failure; false when the run no
 * longer holds the job. Called inside a handler's transaction (RunningJob.completeIn).
 */
export async function completeRun(
  executor: Executor,
  p: { id: string; workerId: string; attempt: number; now: number },
): Promise<boolean> {
  const result = await sql`
    update jobs set state = 'completed', finished_at = ${p.now}, locked_until = null, updated_at = ${p.now}
    where id = ${p.id} and state = 'running' and locked_by = ${p.workerId} and attempts = ${p.attempt}`.execute(
    executor,
  );
  return Number(result.numAffectedRows ?? 0) === 1;
}

interface FailParams {
  id: string;
  workerId: string;
  /** The attempt that failed: a fencing token, so a stale run cannot overwrite a newer one. */
  attempt: number;
  error: string;
  now: number;
}

/** Puts a failed run back as available at `runAt` (backoff). */
export async function retryJob(executor: Executor, p: FailParams & { runAt: number }): Promise<void> {
  await sql`
    update jobs set state = 'available', run_at = ${p.runAt}, last_error = ${p.error}, locked_until = null,
      lease_expiries = 0, updated_at = ${p.now}
    where id = ${p.id} and state = 'running' and locked_by = ${p.workerId} and attempts = ${p.attempt}`.execute(
    executor,
  );
}

/** Keeps a failed job as dead: no more attempts. */
export async function killJob(executor: Executor, p: FailParams): Promise<void> {
  await sql`
    update jobs set state = 'dead', last_error = ${p.error}, finished_at = ${p.now}, locked_until = null,
      updated_at = ${p.now}
    where id = ${p.id} and state = 'running' and locked_by = ${p.workerId} and attempts = ${p.attempt}`.execute(
    executor,
  );
}

/**
 * Fails a claimed job whose process died running it too many times in a row, without running it:
 * dead with `error`, and the claim that found it is not counted as an attempt.
 */
export async function killDiedJob(executor: Executor, p: FailParams): Promise<boolean> {
  const result = await sql`
    update jobs set state = 'dead', attempts = attempts - 1, last_error = ${p.error}, finished_at = ${p.now},
      locked_until = null, updated_at = ${p.now}
    where id = ${p.id} and state = 'running' and locked_by = ${p.workerId} and attempts = ${p.attempt}`.execute(
    executor,
  );
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** Hands interrupted runs back at once; the interrupted attempt does not count. */
export async function releaseJobs(
  executor: Executor,
  p: { ids: string[]; workerId: string; now: number },
): Promise<void> {
  if (p.ids.length === 0) return;
  await sql`
    update jobs set state = 'available', attempts = attempts - 1, run_at = ${p.now}, locked_by = null,
      locked_until = null, updated_at = ${p.now}
    where id in (${sql.join(p.ids)}) and state = 'running' and locked_by = ${p.workerId}`.execute(executor);
}

/** Extends the leases of runs this worker still holds; returns the ids it still holds. */
export async function extendLeases(
  executor: Executor,
  p: { ids: string[]; workerId: string; lockedUntil: number; now: number },
): Promise<Set<string>> {
  if (p.ids.length === 0) return new Set();
  const result = await sql<{ id: string }>`
    update jobs set locked_until = ${p.lockedUntil}, updated_at = ${p.now}
    where id in (${sql.join(p.ids)}) and state = 'running' and locked_by = ${p.workerId}
    returning id`.execute(executor);
  return new Set(result.rows.map((r) => r.id));
}

export const LEASE_EXPIRED_ERROR = 'lease expired: the worker running this job stopped (crash or lost connection)';

/**
 * Recovers runs whose lease expired (their worker died): available again at once, or dead when
 * that was the last attempt, counting the expiry in `lease_expiries` (a job whose runs keep killing
 * their process is failed at its next claim, worker.ts). Returns the rows it changed.
 */
export async function rescueExpired(
  executor: Executor,
  dialect: DialectName,
  p: { now: number; limit: number },
): Promise<{ id: string; kind: string; state: string }[]> {
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<{ id: string; kind: string; state: string }>`
    update jobs set
      state = case when attempts >= max_attempts then 'dead' else 'available' end,
      finished_at = case when attempts >= max_attempts then ${p.now} else finished_at end,
      run_at = ${p.now}, locked_until = null, last_error = ${LEASE_EXPIRED_ERROR},
      lease_expiries = lease_expiries + 1, updated_at = ${p.now}
    where id in (
      select id from jobs where state = 'running' and locked_until < ${p.now} limit ${p.limit} ${lock}
    )
    returning id, kind, state`.execute(executor);
  return result.rows;
}

/** Cancels a pending or running job; a running one's worker learns it at its next heartbeat. */
export async function cancelJob(executor: Executor, p: { id: string; now: number }): Promise<boolean> {
  const result = await sql`
    update jobs set state = 'cancelled', finished_at = ${p.now}, locked_until = null, updated_at = ${p.now}
    where id = ${p.id} and state in ('available', 'running')`.execute(executor);
  return Number(result.numAffectedRows ?? 0) > 0;
}

export async function countJobs(executor: Executor): Promise<{ kind: string; state: string; count: number }[]> {
  const rows = await executor
    .selectFrom('jobs')
    .select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy(['kind', 'state'])
    .orderBy('kind')
    .orderBy('state')
    .execute();
  return rows.map((r) => ({ kind: r.kind, state: r.state, count: Number(r.count) }));
}

/** How many jobs of a kind a tenant has waiting (available), for fair-share priorities. */
export async function countWaiting(executor: Executor, kind: string, tenantId: string): Promise<number> {
  const row = await executor
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('kind', '=', kind)
    .where('state', '=', 'available')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Deletes up to `limit` finished (completed or cancelled) rows that finished before the cut-off. */
export async function deleteFinished(executor: Executor, p: { before: number; limit: number }): Promise<number> {
  const result = await sql`
    delete from jobs where id in (
      select id from jobs where state in ('completed', 'cancelled') and finished_at < ${p.before} limit ${p.limit}
    )`.execute(executor);
  return Number(result.numAffectedRows ?? 0);
}
