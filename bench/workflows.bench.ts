/*
 * Workflow engine benchmark, on SQLite and (when it answers) PostgreSQL, each on a fresh app with
 * one in-process worker at the production settings (concurrency 8, poll 200 ms):
 *   baseline:   the raw job queue draining N no-op jobs (the floor every node run stands on);
 *   throughput: N executions of a 5-node control-only workflow (condition -> two branches -> join
 *               -> transform), started back to back from the same process while the worker runs;
 *   latency:    step-to-step (a node's start minus its last dependency's completion), one execution
 *               at a time (idle), and with executions started at a steady half of the measured
 *               throughput for 5 s (loaded); the burst's own latency is mostly queueing, also shown;
 *   timers:     10,000 pending delay timers (1,000 executions x 10 parallel delay nodes): the
 *               process's CPU while it waits (against the same worker idle with an empty queue),
 *               then, with all of them still pending, how late 500 more timers fire (each due 3 s
 *               after its execution started, the executions started back to back).
 *   --callers N starts the throughput run's executions from N concurrent callers (default 1: one after
 *   another, the original shape, where each start's round trips on PostgreSQL bound the rate).
 * Run: node bench/workflows.bench.ts [--executions 1000] [--timers 10000] [--callers 1]   (or npm run bench workflows)
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DialectName } from '../src/db/database.ts';
import type { AuthContext } from '../src/domain/auth-context.ts';
import { JobQueue } from '../src/jobs/job-queue.ts';
import type { AnyJobPayloads } from '../src/jobs/job-types.ts';
import { Worker } from '../src/jobs/worker.ts';
import { availableDialects } from '../test/support/databases.ts';
import { startTestApp, type TestApp } from '../test/support/app.ts';
import { cpuPercentOver, drained, enterpriseTenant, round, summary } from './workflows-support.ts';

/** Timers of the lateness sample (the rest stay pending). */
const SAMPLED = 500;

export const CONTROL_ONLY = {
  name: 'Control only',
  nodes: [
    { id: 'check', type: 'condition', config: { expression: 'trigger.amount > 1000' } },
    {
      id: 'big',
      type: 'set_variable',
      depends_on: ['check'],
      run_if: 'nodes.check.output.result',
      config: { name: 'route', value: 'big' },
    },
    {
      id: 'small',
      type: 'set_variable',
      depends_on: ['check'],
      run_if: '!nodes.check.output.result',
      config: { name: 'route', value: 'small' },
    },
    { id: 'merge', type: 'join', depends_on: ['big', 'small'] },
    {
      id: 'summary',
      type: 'transform',
      depends_on: ['merge'],
      config: { expression: '{"amount": $trigger.amount, "route": $vars.route}' },
    },
  ],
};

export interface WorkflowsBenchResult {
  dialect: DialectName;
  baselineNoopJobsPerSecond: number;
  executions: number;
  /** API callers starting the executions of the throughput run concurrently (1 = one after another). */
  callers: number;
  executionsPerSecond: number;
  nodeRunsPerSecond: number;
  /** Node runs per second as a share of the raw queue's no-op jobs per second. */
  shareOfQueueCapacity: number;
  stepLatencyIdleMs: { p50: number; p99: number; max: number };
  stepLatencyLoadedMs: { p50: number; p99: number; max: number; executionsPerSecond: number };
  stepLatencyBurstMs: { p50: number; p99: number; max: number };
  timers: {
    pending: number;
    idleCpuPercent: number;
    emptyQueueCpuPercent: number;
    lateMs: { p50: number; p99: number; max: number };
  };
}

export async function run(
  options: { executions?: number; timers?: number; callers?: number; log?: (line: string) => void } = {},
): Promise<WorkflowsBenchResult[]> {
  const results: WorkflowsBenchResult[] = [];
  for (const dialect of await availableDialects()) {
    const result = await benchDialect(
      dialect,
      options.executions ?? 1_000,
      options.timers ?? 10_000,
      options.callers ?? 1,
    );
    options.log?.(JSON.stringify(result));
    results.push(result);
  }
  return results;
}

async function benchDialect(
  dialect: DialectName,
  executions: number,
  timers: number,
  callers: number,
): Promise<WorkflowsBenchResult> {
  const t = await startTestApp(dialect, {
    env: { WORKER_POLL_INTERVAL_MS: '200', WORKER_CONCURRENCY: '8', LOG_LEVEL: 'silent' },
  });
  try {
    const { auth } = await enterpriseTenant(t, 'Bench');
    const baseline = await noopBaseline(t, 10_000);
    const emptyQueueCpu = await idleCpu(t, 5_000);
    const service = t.container.modules.use('workflowExecutions');
    const workflowId = (await t.container.modules.use('workflows').create(auth, CONTROL_ONLY)).id;

    const worker = t.container.createWorker();
    await worker.start();
    let idleLatency: number[];
    let loaded: { seconds: number; latency: number[] };
    let paced: { rate: number; latency: number[] };
    try {
      idleLatency = [];
      for (let i = 0; i < 100; i++) {
        const row = await service.execute(auth, workflowId, { triggerData: { amount: i * 50 } });
        await settled(t, [row.id]);
        idleLatency.push(...(await stepLatencies(t, [row.id])));
      }
      const started = performance.now();
      const ids: string[] = [];
      // `callers` API callers start the executions, each one after another (1: the original shape).
      let next = 0;
      await Promise.all(
        Array.from({ length: callers }, async () => {
          for (let i = next++; i < executions; i = next++)
            ids.push((await service.execute(auth, workflowId, { triggerData: { amount: i } })).id);
        }),
      );
      await settled(t, ids);
      loaded = { seconds: (performance.now() - started) / 1000, latency: await stepLatencies(t, ids) };
      paced = await pacedLatency(t, auth, workflowId, Math.max(1, Math.floor(executions / loaded.seconds / 2)));
    } finally {
      await worker.stop(10_000);
    }
    const executionsPerSecond = executions / loaded.seconds;
    // Every execution records 5 node runs: 4 run and 1 is skipped by its run_if (the control steps
    // after the first are chained in its job, src/modules/workflows/step-chain.ts).
    const nodeRunsPerSecond = executionsPerSecond * 4;
    return {
      dialect,
      baselineNoopJobsPerSecond: round(baseline),
      executions,
      callers,
      executionsPerSecond: round(executionsPerSecond),
      nodeRunsPerSecond: round(nodeRunsPerSecond),
      shareOfQueueCapacity: round(((executionsPerSecond * 4) / baseline) * 100) / 100,
      stepLatencyIdleMs: summary(idleLatency),
      stepLatencyLoadedMs: { ...summary(paced.latency), executionsPerSecond: paced.rate },
      stepLatencyBurstMs: summary(loaded.latency),
      timers: { ...(await timerBench(t, auth, timers)), emptyQueueCpuPercent: emptyQueueCpu },
    };
  } finally {
    await t.close();
  }
}

/** The raw queue: N no-op jobs enqueued in bulk, drained by a worker with the same settings. */
async function noopBaseline(t: TestApp, n: number): Promise<number> {
  const { database } = t.container;
  // A queue of its own kind: the baseline is the queue, not a module's job.
  const jobs = new JobQueue<AnyJobPayloads>({ database });
  await jobs.enqueueMany(
    database.db,
    Array.from({ length: n }, (_, i) => ({ kind: 'bench.noop', payload: { i } })),
  );
  let done = 0;
  let finish: () => void = () => {};
  const all = new Promise<void>((resolve) => (finish = resolve));
  const worker = new Worker({
    database,
    queue: jobs,
    definitions: [{ kind: 'bench.noop', handler: async () => void (++done === n && finish()) }],
    concurrency: 8,
    pollIntervalMs: 200,
    leaseMs: 60_000,
  });
  const started = performance.now();
  await worker.start();
  await all;
  const seconds = (performance.now() - started) / 1000;
  await worker.stop(5_000);
  return n / seconds;
}

/** CPU of this process (user + system, % of one core) over `ms` while the app's worker runs with what is queued. */
async function idleCpu(t: TestApp, ms: number): Promise<number> {
  const worker = t.container.createWorker();
  await worker.start();
  await new Promise((r) => setTimeout(r, 500));
  const cpu = await cpuPercentOver(ms);
  await worker.stop(5_000);
  return cpu;
}

async function settled(t: TestApp, ids: string[]): Promise<void> {
  const db = t.container.database.db;
  for (;;) {
    let open = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const row = await db
        .selectFrom('workflow_executions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('id', 'in', ids.slice(i, i + 500))
        .where('status', '=', 'running')
        .executeTakeFirstOrThrow();
      open += Number(row.n);
    }
    if (open === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Starts `rate` executions a second for 5 s (on a fixed schedule), then reads their step latencies. */
async function pacedLatency(
  t: TestApp,
  auth: AuthContext,
  workflowId: string,
  rate: number,
): Promise<{ rate: number; latency: number[] }> {
  const service = t.container.modules.use('workflowExecutions');
  const ids: string[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * 5; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    ids.push((await service.execute(auth, workflowId, { triggerData: { amount: i } })).id);
  }
  await settled(t, ids);
  return { rate, latency: await stepLatencies(t, ids) };
}

/** For each node run that started: its start minus the completion of its last dependency. */
async function stepLatencies(t: TestApp, ids: string[]): Promise<number[]> {
  const deps = new Map(CONTROL_ONLY.nodes.map((n) => [n.id, n.depends_on ?? []]));
  const out: number[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const runs = await t.container.database.db
      .selectFrom('workflow_node_runs')
      .select(['execution_id', 'node_id', 'started_at', 'completed_at'])
      .where('execution_id', 'in', ids.slice(i, i + 500))
      .execute();
    const byExecution = Map.groupBy(runs, (r) => r.execution_id);
    for (const list of byExecution.values()) {
      const byNode = new Map(list.map((r) => [r.node_id, r]));
      for (const run of list) {
        const ready = Math.max(...(deps.get(run.node_id) ?? []).map((d) => Number(byNode.get(d)?.completed_at ?? 0)));
        if (run.started_at !== null && Number.isFinite(ready) && ready > 0) out.push(Number(run.started_at) - ready);
      }
    }
  }
  return out;
}

/**
 * 10 parallel delay nodes per execution, all due in an hour, for `total` pending timers; then, with
 * those still pending, 500 one-node executions each due 3 s after it starts: their lateness.
 */
async function timerBench(t: TestApp, auth: AuthContext, total: number) {
  const perExecution = 10;
  const count = Math.ceil(total / perExecution);
  const delay = (id: string) => ({ id, type: 'delay', timeout_seconds: 7_200, config: { until: '{{trigger.due}}' } });
  const workflows = t.container.modules.use('workflows');
  const pendingId = (
    await workflows.create(auth, {
      name: 'Pending timers',
      nodes: Array.from({ length: perExecution }, (_, i) => delay(`wait${i}`)),
    })
  ).id;
  const sampleId = (await workflows.create(auth, { name: 'Sampled timer', nodes: [delay('wait0')] })).id;
  const service = t.container.modules.use('workflowExecutions');
  const db = t.container.database.db;
  const ids: string[] = [];
  const worker = t.container.createWorker();
  await worker.start();
  try {
    const far = new Date(Date.now() + 3_600_000).toISOString();
    for (let e = 0; e < count; e++)
      ids.push((await service.execute(auth, pendingId, { triggerData: { due: far } })).id);
    const armed = async () =>
      Number(
        (
          await db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('kind', '=', 'workflows.run_node')
            .where('state', '=', 'available')
            .where('run_at', '>', Date.now() + 60_000)
            .executeTakeFirstOrThrow()
        ).n,
      );
    while ((await armed()) < count * perExecution) await new Promise((r) => setTimeout(r, 200));
    const pending = await armed();
    await drained(t);
    const idleCpuPercent = await cpuPercentOver(5_000);

    const sampled: string[] = [];
    for (let i = 0; i < SAMPLED; i++)
      sampled.push(
        (await service.execute(auth, sampleId, { triggerData: { due: new Date(Date.now() + 3_000).toISOString() } }))
          .id,
      );
    await settled(t, sampled);
    const rows = await db
      .selectFrom('workflow_node_runs as r')
      .innerJoin('workflow_executions as e', 'e.id', 'r.execution_id')
      .select(['r.completed_at', 'e.trigger_data'])
      .where('r.execution_id', 'in', sampled)
      .execute();
    const late = rows.map((r) => Number(r.completed_at) - Date.parse(JSON.parse(r.trigger_data).due));
    for (const id of ids) await service.cancel(auth, id);
    return { pending, idleCpuPercent, lateMs: summary(late) };
  } finally {
    await worker.stop(10_000);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { executions: { type: 'string' }, timers: { type: 'string' }, callers: { type: 'string' } },
  });
  await run({
    ...(values.executions ? { executions: Number(values.executions) } : {}),
    ...(values.callers ? { callers: Number(values.callers) } : {}),
    ...(values.timers ? { timers: Number(values.timers) } : {}),
    log: (line) => console.log(line),
  });
  process.exit(0);
}
