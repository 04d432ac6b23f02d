/*
 * Round trips and transactions per workflow execution on PostgreSQL: the 5-node control-only
 * workflow of bench/workflows.bench.ts, N executions started one after another (each left to finish
 * before the next, so nothing else shares the counts), with one in-process worker.
 *   statements: every query node-postgres sends (BEGIN and COMMIT included), counted on
 *               pg.Client.prototype.query, by the statement's first words;
 *   round trips: the same, counting once the statements written in one send (pipeline mode);
 *   transactions: pg_stat_database.xact_commit + xact_rollback of the bench's database (the
 *                 settle polls of this script are counted apart and subtracted from both).
 * Run: node bench/workflows-statements.ts [--executions 200]
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { sql } from 'kysely';
import { startTestApp } from '../test/support/app.ts';
import { enterpriseTenant } from './workflows-support.ts';
import { CONTROL_ONLY } from './workflows.bench.ts';

const { values } = parseArgs({ options: { executions: { type: 'string' } } });
const n = Number(values.executions ?? 200);

const counts = new Map<string, number>();
/** The key of this script's own settle poll (isFinished). */
const POLL = 'poll';
let counting = false;
/** Round trips: statements, less those written in the same send as the one before (pipeline mode, same turn). */
let roundTrips = 0;
const inSend = new WeakSet<pg.Client>();
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string })?.text ?? '');
    const key = text.includes('/* settle poll */')
      ? POLL
      : text
          .trim()
          .replace(/\s+/g, ' ')
          .toLowerCase()
          .slice(0, Number(process.env['KEY_CHARS'] ?? 40));
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (key === POLL) {
      // not the execution's
    } else if (!(this as pg.Client & { pipeline?: boolean }).pipeline) roundTrips++;
    else if (!inSend.has(this)) {
      roundTrips++;
      inSend.add(this);
      queueMicrotask(() => inSend.delete(this));
    }
  }
  return (original as (...a: unknown[]) => unknown).apply(this, args);
} as typeof original;

const t = await startTestApp('postgres', {
  env: { WORKER_POLL_INTERVAL_MS: '200', WORKER_CONCURRENCY: '8', LOG_LEVEL: 'silent' },
});
try {
  const { auth } = await enterpriseTenant(t, 'Count');
  const service = t.container.modules.use('workflowExecutions');
  const workflowId = (await t.container.modules.use('workflows').create(auth, CONTROL_ONLY)).id;
  const db = t.container.database.db;
  const xacts = async () =>
    Number(
      (
        await sql<{
          n: string;
        }>`select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`.execute(db)
      ).rows[0]!.n,
    );
  const worker = t.container.createWorker();
  await worker.start();
  // Warm-up: definitions cached, statements prepared.
  for (let i = 0; i < 5; i++)
    await finished(t, (await service.execute(auth, workflowId, { triggerData: { amount: i } })).id);
  let inWindow = 0;
  const before = await xacts();
  counting = true;
  for (let i = 0; i < n; i++) {
    const id = (await service.execute(auth, workflowId, { triggerData: { amount: i * 50 } })).id;
    for (;;) {
      inWindow++;
      if (await isFinished(t, id)) break;
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  counting = false;
  const after = await xacts();
  await worker.stop(5_000);
  // The settle polls of this script are not the execution's: counted apart and left out.
  counts.delete(POLL);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(
    JSON.stringify({
      executions: n,
      statementsPerExecution: Math.round((total / n) * 10) / 10,
      roundTripsPerExecution: Math.round((roundTrips / n) * 10) / 10,
      // Each settle poll is one autocommit transaction of its own (and the xacts() read itself).
      transactionsPerExecution: Math.round(((after - before - inWindow - 1) / n) * 10) / 10,
      byStatement: Object.fromEntries(
        [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round((v / n) * 100) / 100]),
      ),
    }),
  );
} finally {
  await t.close();
}

async function isFinished(app: typeof t, id: string): Promise<boolean> {
  const { rows } = await sql<{
    status: string;
  }>`select status from workflow_executions where id = ${id} /* settle poll */`.execute(app.container.database.db);
  return rows[0]!.status !== 'running';
}

async function finished(app: typeof t, id: string): Promise<void> {
  while (!(await isFinished(app, id))) await new Promise((r) => setTimeout(r, 2));
}
process.exit(0);
