/*
 * CPU per workflow execution, by process: the 5-node control-only workflow of
 * bench/workflows.bench.ts, N executions started by C callers while one in-process worker runs
 * (concurrency 8, poll 200 ms), until the last finishes. CPU time depends far less on the
 * machine's load than wall time does (docs/benchmarks-workflows.md):
 *   node:     this process (API, worker, the driver), process.cpuUsage;
 *   postgres: the backends connected to this run's database (/proc/<pid>/stat, Linux only);
 *   sandbox:  the expression sandbox's child processes.
 * Run: node bench/workflows-cpu.ts [--dialect postgres|sqlite] [--executions 500] [--callers 1]
 */

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { DialectName } from '../src/db/database.ts';
import { startTestApp } from '../test/support/app.ts';
import { CONTROL_ONLY } from './workflows.bench.ts';
import { enterpriseTenant, round } from './workflows-support.ts';

const { values } = parseArgs({
  options: { dialect: { type: 'string' }, executions: { type: 'string' }, callers: { type: 'string' } },
});
const dialect = (values.dialect ?? 'postgres') as DialectName;
const n = Number(values.executions ?? 500);
const callers = Number(values.callers ?? 1);

/** User + system CPU of the processes, in ms (clock ticks of 10 ms). */
function cpuMsOf(pids: readonly string[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended: its CPU is no longer counted (backends live as long as the pool's clients).
    }
  }
  return ticks * 10;
}

function children(): string[] {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid)])
      .toString()
      .split(/\s+/)
      .filter(Boolean);
  } catch {
    return [];
  }
}

const t = await startTestApp(dialect, {
  env: { WORKER_POLL_INTERVAL_MS: '200', WORKER_CONCURRENCY: '8', LOG_LEVEL: 'silent' },
});
try {
  const { auth } = await enterpriseTenant(t, 'Cpu');
  const service = t.container.modules.use('workflowExecutions');
  const workflowId = (await t.container.modules.use('workflows').create(auth, CONTROL_ONLY)).id;
  const db = t.container.database.db;
  const worker = t.container.createWorker();
  await worker.start();
  const running = async () =>
    Number(
      (
        await db
          .selectFrom('workflow_executions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'running')
          .executeTakeFirstOrThrow()
      ).n,
    );
  // Warm-up: connections open, definitions cached, statements prepared.
  for (let i = 0; i < 50; i++) await service.execute(auth, workflowId, { triggerData: { amount: i } });
  while ((await running()) > 0) await new Promise((r) => setTimeout(r, 20));
  const backends =
    dialect === 'postgres'
      ? (
          await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.execute(db)
        ).rows.map((r) => String(r.pid))
      : [];
  const sandbox = children();
  const before = { node: process.cpuUsage(), pg: cpuMsOf(backends), sandbox: cpuMsOf(sandbox) };
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let i = next++; i < n; i = next++) await service.execute(auth, workflowId, { triggerData: { amount: i } });
    }),
  );
  const startsSeconds = (performance.now() - started) / 1000;
  while ((await running()) > 0) await new Promise((r) => setTimeout(r, 10));
  const seconds = (performance.now() - started) / 1000;
  const node = process.cpuUsage(before.node);
  console.log(
    JSON.stringify({
      dialect,
      executions: n,
      callers,
      executionsPerSecond: round(n / seconds),
      startsPerSecond: round(n / startsSeconds),
      cpuMsPerExecution: {
        node: round((node.user + node.system) / 1000 / n),
        postgres: round((cpuMsOf(backends) - before.pg) / n),
        sandbox: round((cpuMsOf(sandbox) - before.sandbox) / n),
      },
      loadAverage: Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
    }),
  );
  await worker.stop(5_000);
} finally {
  await t.close();
}
process.exit(0);
