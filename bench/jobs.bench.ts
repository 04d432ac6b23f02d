/*
 * Job queue benchmark, on SQLite and (when it answers) PostgreSQL, each in a fresh database:
 *   throughput: enqueue N no-op jobs in bulk, then time one worker draining them (claim + complete);
 *   latency:    with the worker idle, enqueue one job at a time and measure enqueue -> handler start.
 * Latency is measured twice: enqueued through the worker's own queue (embedded mode: the in-process
 * wake-up) and through another connection with its own queue (another process: NOTIFY on
 * PostgreSQL, polling on SQLite).
 * Run: node bench/jobs.bench.ts [--jobs 20000] [--samples 200] [--concurrency 32]
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Database, type DialectName, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { JobQueue } from '../src/jobs/job-queue.ts';
import type { AnyJobPayloads } from '../src/jobs/job-types.ts';
import { Worker } from '../src/jobs/worker.ts';
import { availableDialects, createTestStore } from '../test/support/databases.ts';

export interface LatencyResult {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface JobsBenchResult {
  dialect: DialectName;
  concurrency: number;
  pollIntervalMs: number;
  throughput: { jobs: number; seconds: number; jobsPerSecond: number };
  latencyInProcess: LatencyResult;
  latencyOtherConnection: LatencyResult;
}

export interface JobsBenchOptions {
  jobs?: number;
  samples?: number;
  concurrency?: number;
  /** The production default (WORKER_POLL_INTERVAL_MS). */
  pollIntervalMs?: number;
  log?: (line: string) => void;
}

/** Runs the benchmark on every available dialect and returns the figures. */
export async function run(options: JobsBenchOptions = {}): Promise<JobsBenchResult[]> {
  const results: JobsBenchResult[] = [];
  for (const dialect of await availableDialects()) {
    const result = await benchDialect(dialect, {
      jobs: options.jobs ?? 20_000,
      samples: options.samples ?? 200,
      concurrency: options.concurrency ?? 32,
      pollIntervalMs: options.pollIntervalMs ?? 200,
    });
    options.log?.(format(result));
    results.push(result);
  }
  return results;
}

async function benchDialect(
  dialect: DialectName,
  o: { jobs: number; samples: number; concurrency: number; pollIntervalMs: number },
): Promise<JobsBenchResult> {
  const store = await createTestStore(dialect);
  const database = openDatabase({ url: store.url, dataDir: store.dataDir });
  const other = openDatabase({ url: store.url, dataDir: store.dataDir });
  try {
    await migrateToLatest(database.db);
    const throughput = await drain(database, o);
    const latencyInProcess = await latency(database, database, o);
    const latencyOtherConnection = await latency(database, other, o);
    return {
      dialect,
      concurrency: o.concurrency,
      pollIntervalMs: o.pollIntervalMs,
      throughput,
      latencyInProcess,
      latencyOtherConnection,
    };
  } finally {
    await other.destroy();
    await database.destroy();
    await store.drop();
  }
}

async function drain(database: Database, o: { jobs: number; concurrency: number; pollIntervalMs: number }) {
  const kind = 'bench.noop';
  const queue = new JobQueue<AnyJobPayloads>({ database });
  await database.db.transaction().execute((trx) =>
    queue.enqueueMany(
      trx,
      Array.from({ length: o.jobs }, (_, i) => ({ kind, payload: { i } })),
    ),
  );
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const worker = new Worker({
    database,
    queue: new JobQueue<AnyJobPayloads>({ database }),
    definitions: [{ kind, handler: async () => {} }],
    concurrency: o.concurrency,
    pollIntervalMs: o.pollIntervalMs,
    leaseMs: 60_000,
    onJobFinished: () => {
      if (++done === o.jobs) finish();
    },
  });
  const started = performance.now();
  await worker.start();
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  const completed = (await queue.countsByKindAndState()).find((c) => c.kind === kind && c.state === 'completed')?.count;
  if (completed !== o.jobs) throw new Error(`expected ${o.jobs} completed jobs, found ${completed}`);
  return { jobs: o.jobs, seconds: round(seconds), jobsPerSecond: Math.round(o.jobs / seconds) };
}

/** Enqueues through `enqueuer` (the worker's own database, or another connection) one job at a time. */
async function latency(
  database: Database,
  enqueuer: Database,
  o: { samples: number; concurrency: number; pollIntervalMs: number },
): Promise<LatencyResult> {
  const kind = 'bench.latency';
  const workerQueue = new JobQueue<AnyJobPayloads>({ database });
  const queue = enqueuer === database ? workerQueue : new JobQueue<AnyJobPayloads>({ database: enqueuer });
  const delays: number[] = [];
  let started: (() => void) | null = null;
  const worker = new Worker({
    database,
    queue: workerQueue,
    definitions: [
      {
        kind,
        handler: async (job) => {
          delays.push(performance.now() - (job.payload as { t0: number }).t0);
          started?.();
        },
      },
    ],
    concurrency: o.concurrency,
    pollIntervalMs: o.pollIntervalMs,
    leaseMs: 60_000,
  });
  await worker.start();
  try {
    for (let i = 0; i < o.samples; i++) {
      // Gaps of varying length so samples fall at every phase of the poll interval.
      await sleep(5 + Math.random() * 30);
      const ran = new Promise<void>((resolve) => (started = resolve));
      await queue.enqueue(enqueuer.db, kind, { t0: performance.now() });
      await ran;
    }
  } finally {
    await worker.stop();
  }
  delays.sort((a, b) => a - b);
  const pick = (q: number) => round(delays[Math.min(delays.length - 1, Math.ceil(q * delays.length) - 1)]!);
  return { samples: delays.length, p50Ms: pick(0.5), p99Ms: pick(0.99), maxMs: round(delays.at(-1)!) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function format(r: JobsBenchResult): string {
  const l = (x: LatencyResult) => `p50 ${x.p50Ms} ms, p99 ${x.p99Ms} ms, max ${x.maxMs} ms`;
  return [
    `jobs/${r.dialect} (concurrency ${r.concurrency}, poll ${r.pollIntervalMs} ms)`,
    `  throughput: ${r.throughput.jobs} no-op jobs in ${r.throughput.seconds} s = ${r.throughput.jobsPerSecond} jobs/s`,
    `  enqueue->start, same process:     ${l(r.latencyInProcess)}`,
    `  enqueue->start, other connection: ${l(r.latencyOtherConnection)}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      jobs: { type: 'string' },
      samples: { type: 'string' },
      concurrency: { type: 'string' },
      'poll-interval': { type: 'string' },
    },
  });
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  await run({
    jobs: num(values.jobs),
    samples: num(values.samples),
    concurrency: num(values.concurrency),
    pollIntervalMs: num(values['poll-interval']),
    log: (line) => console.log(line),
  });
}
