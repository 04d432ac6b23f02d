/*
 * Webhook delivery benchmark, on SQLite and (when it answers) PostgreSQL, each in a fresh database,
 * against a local HTTPS receiver running in its own process (bench/webhooks/receiver.ts):
 *   ceiling:    the receiver hammered directly over keep-alive TLS (undici, 8 connections,
 *               32 requests in flight, a delivery-sized signed body): its own requests/s;
 *   throughput: a burst of events recorded through the EventLog (the way modules emit them),
 *               fanned out to 4 webhooks, delivered by the in-process worker at its default
 *               concurrency (8); deliveries/s from the first event to the last arrival;
 *   isolation:  events at a steady rate to two webhooks, one of which never answers (every
 *               attempt times out after 5 s): delivery latency to the healthy one, p50/p99/max;
 *   crash:      10,000 events to two webhooks, delivered by a separate worker process
 *               (`node src/main.ts worker`) that is killed with SIGKILL part-way and started
 *               again: every event must arrive at every endpoint; duplicates are counted.
 * On PostgreSQL the throughput phase also reports the database transactions per delivery
 * (pg_stat_database commits and rollbacks of the bench's database during the phase).
 * Run: npm run bench webhooks   (or node bench/webhooks.bench.ts [--events 2500] [--seconds 30]
 *      [--dialect sqlite|postgres] [--phases throughput,isolation,crash])
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { Agent } from 'undici';
import type { DialectName } from '../src/db/database.ts';
import { signWebhookBody } from '../src/lib/webhook-signature.ts';
import { startTestApp, type TestApp } from '../test/support/app.ts';
import { availableDialects } from '../test/support/databases.ts';
import { createTenant, type TestTenant } from '../test/support/fixtures.ts';
import { percentile } from './support.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

interface PathStats {
  path: string;
  count: number;
  distinctEvents: number;
  duplicates: number;
  lastArrival: number;
  latenciesMs: number[];
}

interface Receiver {
  url: string;
  caFile: string;
  caPem: string;
  stats(path: string): Promise<PathStats>;
  stop(): Promise<void>;
}

export interface WebhooksBenchResult {
  dialect: DialectName;
  receiverCeiling: { requests: number; seconds: number; perSecond: number };
  throughput?: {
    events: number;
    recordSeconds: number;
    webhooks: number;
    deliveries: number;
    seconds: number;
    perSecond: number;
    ofCeiling: number;
    latencyP50Ms: number;
    latencyP99Ms: number;
    duplicates: number;
    deferred: number;
    /** PostgreSQL only: transactions of the bench's database per delivery, recording included. */
    transactionsPerDelivery?: number;
  };
  crash?: {
    events: number;
    webhooks: number;
    killedAfterDeliveries: number;
    /** From the first worker's start to the kill (its process start included). */
    secondsBeforeKill: number;
    allDelivered: boolean;
    missing: number;
    duplicates: number;
    secondsAfterRestart: number;
  };
  isolation?: {
    events: number;
    seconds: number;
    healthy: { delivered: number; p50Ms: number; p99Ms: number; maxMs: number };
    dead: { requestsReceived: number; attemptsFailed: number; stillPending: number; cancelledOrOther: number };
  };
}

export interface WebhooksBenchOptions {
  events?: number;
  webhooks?: number;
  hammerSeconds?: number;
  isolationSeconds?: number;
  isolationRate?: number;
  crashEvents?: number;
  /** Only this dialect (default: every available one). */
  dialect?: DialectName;
  /** Only these phases (default: all). */
  phases?: readonly Phase[];
  log?: (line: string) => void;
}

type Phase = 'throughput' | 'isolation' | 'crash';
const PHASES: readonly Phase[] = ['throughput', 'isolation', 'crash'];

export async function run(options: WebhooksBenchOptions = {}): Promise<WebhooksBenchResult[]> {
  const o = {
    phases: options.phases ?? PHASES,
    events: options.events ?? 2_500,
    webhooks: options.webhooks ?? 4,
    hammerSeconds: options.hammerSeconds ?? 5,
    isolationSeconds: options.isolationSeconds ?? 30,
    isolationRate: options.isolationRate ?? 20,
    crashEvents: options.crashEvents ?? 10_000,
  };
  const receiver = await startReceiver();
  const results: WebhooksBenchResult[] = [];
  try {
    for (const dialect of (await availableDialects()).filter((d) => !options.dialect || d === options.dialect)) {
      const result = await benchDialect(dialect, receiver, o);
      options.log?.(JSON.stringify(result));
      results.push(result);
    }
  } finally {
    await receiver.stop();
  }
  return results;
}

async function benchDialect(
  dialect: DialectName,
  receiver: Receiver,
  o: Required<Omit<WebhooksBenchOptions, 'log' | 'dialect'>>,
): Promise<WebhooksBenchResult> {
  const receiverCeiling = await hammer(receiver, o.hammerSeconds);
  const result: WebhooksBenchResult = { dialect, receiverCeiling };
  const env = {
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
    WORKER_POLL_INTERVAL_MS: '200',
    RATE_LIMIT_ENABLED: 'false',
  };
  if (o.phases.includes('throughput') || o.phases.includes('isolation')) {
    const t = await startTestApp(dialect, { worker: true, env });
    try {
      if (o.phases.includes('throughput')) result.throughput = await burst(t, receiver, o, receiverCeiling.perSecond);
      if (o.phases.includes('isolation')) result.isolation = await deadNeighbour(t, receiver, o);
    } finally {
      await t.close();
    }
  }
  if (!o.phases.includes('crash')) return result;
  // The crash run has its own store and no in-process worker: a worker process does the work.
  const c = await startTestApp(dialect, { env });
  try {
    result.crash = await killedWorker(c, receiver, o.crashEvents, env);
    return result;
  } finally {
    await c.close();
  }
}

/** Commits and rollbacks of the test app's PostgreSQL database so far (null on SQLite). */
async function transactionCount(t: TestApp): Promise<number | null> {
  if (t.dialect !== 'postgres') return null;
  const { rows } = await sql<{ n: string }>`
    select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`.execute(
    t.container.database.db,
  );
  return Number(rows[0]!.n);
}

/** A worker process killed with SIGKILL in the middle of a burst, then started again. */
async function killedWorker(
  t: TestApp,
  receiver: Receiver,
  events: number,
  env: Record<string, string>,
): Promise<WebhooksBenchResult['crash']> {
  const tenant = await createTenant(t, { tier: 'enterprise' });
  const paths = [`/crash-${t.dialect}-a`, `/crash-${t.dialect}-b`];
  for (const p of paths) await createWebhook(t, tenant, `${receiver.url}${p}`, ['document.uploaded']);
  for (let i = 0; i < events; i += 500) {
    await t.container.database.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(events, i + 500); j++) {
        await t.container.events.record(trx, {
          tenantId: tenant.tenantId,
          name: 'document.uploaded',
          data: eventData(j),
        });
      }
    });
  }
  const workerEnv = {
    ...env,
    DATA_DIR: t.store.dataDir,
    ...(t.store.url ? { DATABASE_URL: t.store.url } : {}),
    ADMIN_API_KEY: 'bench-admin-key-0123456789abcdef',
    LOG_LEVEL: 'silent',
    // Jobs held by the killed worker are taken over once their lease runs out.
    JOB_LEASE_MS: '5000',
  };
  const total = async () => (await Promise.all(paths.map((p) => receiver.stats(p)))).reduce((n, s) => n + s.count, 0);
  const firstStarted = performance.now();
  const first = startWorkerProcess(workerEnv);
  const killAt = Math.round(events * paths.length * 0.3);
  await waitUntil(async () => ((await total()) >= killAt ? true : undefined), 300_000);
  const secondsBeforeKill = round((performance.now() - firstStarted) / 1000);
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  const killedAfterDeliveries = await total();
  const restarted = performance.now();
  const second = startWorkerProcess(workerEnv);
  try {
    const stats = await waitUntil(async () => {
      const all = await Promise.all(paths.map((p) => receiver.stats(p)));
      return all.every((s) => s.distinctEvents >= events) ? all : undefined;
    }, 600_000).catch(() => Promise.all(paths.map((p) => receiver.stats(p))));
    return {
      events,
      webhooks: paths.length,
      killedAfterDeliveries,
      secondsBeforeKill,
      allDelivered: stats.every((s) => s.distinctEvents === events),
      missing: stats.reduce((n, s) => n + (events - s.distinctEvents), 0),
      duplicates: stats.reduce((n, s) => n + (s.count - s.distinctEvents), 0),
      secondsAfterRestart: round((performance.now() - restarted) / 1000),
    };
  } finally {
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
  }
}

function startWorkerProcess(env: Record<string, string>): ChildProcess {
  return fork(path.join(here, '..', 'src', 'main.ts'), ['worker'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
}

/** The receiver's own ceiling: as many delivery-shaped requests as it answers, straight from a client. */
async function hammer(receiver: Receiver, seconds: number) {
  const agent = new Agent({ connect: { ca: receiver.caPem }, connections: 8 });
  const body = JSON.stringify({
    id: 'evt_bench',
    type: 'document.uploaded',
    timestamp: new Date().toISOString(),
    data: {
      document_id: '0b6f7c1e-3a52-4d8e-9a41-7f2c5d9e8b10',
      filename: 'bench.txt',
      folder_id: null,
      file_type: 'txt',
      file_size: 12,
      status: 'processing',
      ai_status: 'queued',
    },
  });
  const headers = { 'content-type': 'application/json', 'x-service-signature': signWebhookBody('whsec_bench', body) };
  let done = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const lane = async () => {
    while (performance.now() < until) {
      const res = await agent.request({ origin: receiver.url, path: '/ceiling', method: 'POST', headers, body });
      await res.body.dump();
      done++;
    }
  };
  await Promise.all(Array.from({ length: 32 }, lane));
  const elapsed = (performance.now() - started) / 1000;
  await agent.close();
  return { requests: done, seconds: round(elapsed), perSecond: Math.round(done / elapsed) };
}

async function burst(t: TestApp, receiver: Receiver, o: { events: number; webhooks: number }, ceiling: number) {
  const tenant = await createTenant(t, { tier: 'enterprise' });
  const paths = Array.from({ length: o.webhooks }, (_, i) => `/burst-${t.dialect}-${i}`);
  for (const p of paths) await createWebhook(t, tenant, `${receiver.url}${p}`, ['document.uploaded']);
  const expected = o.events * o.webhooks;
  const transactionsBefore = await transactionCount(t);
  const started = performance.timeOrigin + performance.now();
  for (let i = 0; i < o.events; i += 100) {
    await t.container.database.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(o.events, i + 100); j++) {
        await t.container.events.record(trx, {
          tenantId: tenant.tenantId,
          name: 'document.uploaded',
          data: eventData(j),
        });
      }
    });
  }
  const recordSeconds = (performance.timeOrigin + performance.now() - started) / 1000;
  const stats = await waitUntil(async () => {
    const all = await Promise.all(paths.map((p) => receiver.stats(p)));
    return all.reduce((n, s) => n + s.count, 0) >= expected ? all : undefined;
  }, 300_000);
  const seconds = (Math.max(...stats.map((s) => s.lastArrival)) - started) / 1000;
  const latencies = stats.flatMap((s) => s.latenciesMs);
  const perSecond = Math.round(expected / seconds);
  // An idle PostgreSQL backend reports its statistics up to 10 s after its last transaction.
  if (transactionsBefore !== null) await new Promise((r) => setTimeout(r, 11_000));
  const transactionsAfter = await transactionCount(t);
  return {
    events: o.events,
    recordSeconds: round(recordSeconds),
    webhooks: o.webhooks,
    deliveries: expected,
    seconds: round(seconds),
    perSecond,
    ofCeiling: round(perSecond / ceiling),
    latencyP50Ms: Math.round(percentile(latencies, 50)),
    latencyP99Ms: Math.round(percentile(latencies, 99)),
    duplicates: stats.reduce((n, s) => n + s.duplicates, 0),
    deferred: await counterValue(t, 'webhook_deliveries_skipped_total', { reason: 'deferred' }),
    ...(transactionsBefore !== null && transactionsAfter !== null
      ? { transactionsPerDelivery: round((transactionsAfter - transactionsBefore) / expected) }
      : {}),
  };
}

/** A labelled counter's value from the app's metrics registry (deferrals, attempts). */
async function counterValue(t: TestApp, name: string, labels: Record<string, string>): Promise<number> {
  const metric = t.container.metrics.registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return hit ? Number(hit.value) : 0;
}

async function deadNeighbour(t: TestApp, receiver: Receiver, o: { isolationSeconds: number; isolationRate: number }) {
  const tenant = await createTenant(t, { tier: 'enterprise' });
  const healthyPath = `/healthy-${t.dialect}`;
  await createWebhook(t, tenant, `${receiver.url}${healthyPath}`, ['dag.task.created']);
  const dead = await createWebhook(t, tenant, `${receiver.url}/hang`, ['dag.task.created']);
  const before = (await receiver.stats('/hang')).count;
  const events = o.isolationSeconds * o.isolationRate;
  const started = performance.now();
  for (let i = 0; i < events; i++) {
    const due = started + (i * 1000) / o.isolationRate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await t.container.events.record(t.container.database.db, {
      tenantId: tenant.tenantId,
      name: 'dag.task.created',
      data: {
        task_id: `task_${i}`,
        execution_id: 'exe_bench',
        workflow_id: 'wf_bench',
        title: 'Approve',
        assignee_type: 'role',
        assignee_value: 'finance',
        due_at: null,
      },
    });
  }
  const healthy = await waitUntil(async () => {
    const s = await receiver.stats(healthyPath);
    return s.count >= events ? s : undefined;
  }, 120_000);
  const seconds = (performance.now() - started) / 1000;
  const rows = await t.container.database.db
    .selectFrom('webhook_deliveries')
    .select(['status'])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenant.tenantId)
    .where('webhook_id', '=', dead.id)
    .groupBy('status')
    .execute();
  const byStatus = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  return {
    events,
    seconds: round(seconds),
    healthy: {
      delivered: healthy.count,
      p50Ms: Math.round(percentile(healthy.latenciesMs, 50)),
      p99Ms: Math.round(percentile(healthy.latenciesMs, 99)),
      maxMs: Math.round(Math.max(...healthy.latenciesMs)),
    },
    dead: {
      requestsReceived: (await receiver.stats('/hang')).count - before,
      attemptsFailed: byStatus['failed'] ?? 0,
      stillPending: byStatus['pending'] ?? 0,
      cancelledOrOther: Object.entries(byStatus)
        .filter(([s]) => !['failed', 'pending'].includes(s))
        .reduce((n, [, c]) => n + c, 0),
    },
  };
}

function eventData(i: number) {
  return {
    document_id: `doc_${i}`,
    filename: `bench-${i}.txt`,
    folder_id: null,
    file_type: 'txt',
    file_size: 12,
    status: 'processing',
    ai_status: 'queued',
  };
}

async function createWebhook(t: TestApp, tenant: TestTenant, url: string, events: string[]): Promise<{ id: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: tenant.headers,
    payload: { url, events },
  });
  if (res.statusCode !== 201) throw new Error(`webhook create failed: ${res.body}`);
  return res.json();
}

async function waitUntil<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('benchmark timed out waiting for deliveries');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function startReceiver(): Promise<Receiver> {
  const child: ChildProcess = fork(path.join(here, 'webhooks', 'receiver.ts'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, (s: PathStats) => void>();
  child.on('message', (message: PathStats & { ready?: boolean }) => {
    if (message.path !== undefined) {
      waiting.get(message.path)?.(message);
      waiting.delete(message.path);
    }
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message: { ready?: boolean; port: number; caFile: string }) => {
      if (!message.ready) return reject(new Error('receiver did not start'));
      resolve({
        url: `https://127.0.0.1:${message.port}`,
        caFile: message.caFile,
        caPem: fs.readFileSync(message.caFile, 'utf8'),
        stats: (p) =>
          new Promise((done) => {
            waiting.set(p, done);
            child.send({ stats: p });
          }),
        stop: async () => {
          const exited = new Promise((r) => child.once('exit', r));
          child.send({ exit: true });
          await exited;
        },
      });
    });
  });
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      events: { type: 'string' },
      seconds: { type: 'string' },
      dialect: { type: 'string' },
      hammer: { type: 'string' },
      crash: { type: 'string' },
      phases: { type: 'string' },
    },
  });
  const results = await run({
    ...(values.phases ? { phases: values.phases.split(',') as Phase[] } : {}),
    ...(values.dialect ? { dialect: values.dialect as DialectName } : {}),
    ...(values.events ? { events: Number(values.events) } : {}),
    ...(values.seconds ? { isolationSeconds: Number(values.seconds) } : {}),
    ...(values.hammer ? { hammerSeconds: Number(values.hammer) } : {}),
    ...(values.crash ? { crashEvents: Number(values.crash) } : {}),
    log: (line) => console.log(line),
  });
  void results;
  process.exit(0);
}
