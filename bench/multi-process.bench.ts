import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { createTestStore, postgresAdminUrl, type TestStore } from '../test/support/databases.ts';
import { type S3TestServer, startS3Server } from '../test/support/s3-server.ts';
import {
  cpuSeconds,
  dropRedisPrefix,
  pidsNamed,
  REDIS_URL,
  redisAvailable,
  rssMiB,
  type ServiceProcess,
  spawnService,
  stopService,
  waitReady,
} from '../test/process/multi-process-support.ts';
import { generateLoad, type LoadResult } from './auth/load-generator.ts';
import { freePort, median } from './support.ts';

// Issue 10, figure: authenticated GETs per second on PostgreSQL with 2 API processes against 1.
//
// The scale-out topology as it runs in production: `node src/main.ts serve` processes with
// WORKER_IN_PROCESS=false on one PostgreSQL database, Redis for the rate-limit counters (when one
// answers) and the S3 blob store (the in-process test server; GETs of a user never touch it). The
// request is the auth benchmark's: GET /api/v1/users/{id} with X-API-Key (Enterprise tenant, its
// ceiling raised so the limiter counts without refusing).
//
// One load generator (bench/auth/load-generator.ts's generateLoad, CONNECTIONS keep-alive sockets
// split in two halves, run in its own process) measures four targets in each round, in the same run:
// hello-world ×1 and ×2 processes (bare Fastify: the ceiling the machine leaves), the service ×1 and
// ×2. With one process both halves hit the same port. During each measurement the CPU time of
// every party is read from /proc (load generator, API processes, PostgreSQL backends, Redis, and the
// rest of the machine), and, over the whole run, PostgreSQL's own count of committed transactions
// (pg_stat_database, read once the API processes have stopped: backends report it lazily) against
// the requests the APIs counted themselves (http_requests_total).
// An idle `serve` and an idle `worker` process's RSS are measured first (docs/deploy.md, sizing).
//
//   MP_BENCH_SECONDS=5 MP_BENCH_ROUNDS=3 MP_BENCH_CONNECTIONS=50 node bench/multi-process.bench.ts

const here = path.dirname(fileURLToPath(import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const SECONDS = Number(process.env['MP_BENCH_SECONDS'] ?? 5);
const ROUNDS = Number(process.env['MP_BENCH_ROUNDS'] ?? 3);
const CONNECTIONS = Number(process.env['MP_BENCH_CONNECTIONS'] ?? 50);
const WARMUP_SECONDS = 1;
const ADMIN_KEY = `bench-mp-admin-${randomBytes(8).toString('hex')}`;
const BUCKET = 'bench-multi-process';

interface LoadSpec {
  urls: [string, string];
  headers: Record<string, string>;
  connections: number;
  seconds: number;
}

interface SplitLoadResult {
  rps: number;
  requests: number;
  /** Mean of the two halves' p50; the worse half's p99. */
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  errors: number;
  /** CPU seconds the load generator itself used (warm-up included). */
  cpuSeconds: number;
}

/** The child side: two halves of the connections, one per URL, in one process. */
async function loadChild(spec: LoadSpec): Promise<void> {
  const half = Math.max(1, Math.floor(spec.connections / 2));
  const results = await Promise.all(
    spec.urls.map((url) =>
      generateLoad({
        url,
        connections: half,
        seconds: spec.seconds,
        warmupSeconds: WARMUP_SECONDS,
        headers: spec.headers,
      }),
    ),
  );
  const statuses: Record<string, number> = {};
  for (const r of results) for (const [s, n] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
  const usage = process.cpuUsage();
  const out: SplitLoadResult = {
    rps: results.reduce((n, r: LoadResult) => n + r.rps, 0),
    requests: results.reduce((n, r) => n + r.requests, 0),
    p50Ms: Math.round(((results[0]!.p50Ms + results[1]!.p50Ms) / 2) * 100) / 100,
    p99Ms: Math.max(results[0]!.p99Ms, results[1]!.p99Ms),
    statuses,
    errors: results.reduce((n, r) => n + r.errors, 0),
    cpuSeconds: Math.round(((usage.user + usage.system) / 1e6) * 100) / 100,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

/** Busy and total CPU ticks of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.reduce((a, b) => a + b, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

interface Party {
  name: string;
  pids: () => number[];
}

/** CPU seconds of each party's processes; a process born during the interval counts from zero. */
function sampleCpu(parties: Party[]): Map<string, Map<number, number>> {
  const sample = new Map<string, Map<number, number>>();
  for (const p of parties) {
    const m = new Map<number, number>();
    for (const pid of p.pids()) {
      const s = cpuSeconds(pid);
      if (s !== null) m.set(pid, s);
    }
    sample.set(p.name, m);
  }
  return sample;
}

function cpuDelta(
  before: Map<string, Map<number, number>>,
  after: Map<string, Map<number, number>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, end] of after) {
    const start = before.get(name) ?? new Map();
    let sum = 0;
    for (const [pid, s] of end) sum += s - (start.get(pid) ?? 0);
    out[name] = Math.round(sum * 100) / 100;
  }
  return out;
}

interface Measurement extends SplitLoadResult {
  wallSeconds: number;
  /** Cores used over the measurement by each party (CPU seconds ÷ wall seconds). */
  cores: Record<string, number>;
  /**
   * CPU microseconds each party spent per request served (its CPU seconds ÷ (req/s × wall seconds)):
   * what a request costs, which moves much less than req/s when other work shares the machine.
   */
  cpuMicrosPerRequest: Record<string, number>;
}

export interface MultiProcessBenchResult {
  connections: number;
  secondsPerRound: number;
  rounds: number;
  cpus: number;
  redis: boolean;
  loadAverage: [number, number];
  idleRssMiB: { serve: number | null; serveAfterWarmup: number | null; worker: number | null };
  /** Medians over the rounds. */
  targets: Record<
    string,
    {
      rps: number;
      p50Ms: number;
      p99Ms: number;
      cores: Record<string, number>;
      cpuMicrosPerRequest: Record<string, number>;
      statuses: Record<string, number>;
      errors: number;
    }
  >;
  /**
   * PostgreSQL transactions committed in the bench database over its whole life (read after the
   * API processes stopped, so every backend has reported), per HTTP request the APIs served
   * (their own http_requests_total). Start-up and migrations are included (well under 1 %).
   */
  pg: { transactions: number; requests: number; transactionsPerRequest: number };
  /** Per round: 2 processes ÷ 1 process, for the service and for hello-world. */
  ratios: { service2vs1: number[]; hello2vs1: number[]; service1vsHello1: number[]; service2vsHello2: number[] };
  perRound: Record<string, Measurement[]>;
  pgStatStatements: string;
}

export async function run(): Promise<MultiProcessBenchResult | { skipped: string }> {
  const adminUrl = await postgresAdminUrl();
  if (!adminUrl) return { skipped: 'needs PostgreSQL (postgres://postgres@127.0.0.1:5432 or TEST_DATABASE_URL)' };
  const useRedis = await redisAvailable();
  const loadBefore = os.loadavg()[0]!;
  const prefix = `dms-mpbench:${process.pid}:`;
  const dirs: string[] = [];
  const services: ServiceProcess[] = [];
  const children: ChildProcess[] = [];
  let store: TestStore | null = null;
  let s3: S3TestServer | null = null;
  let stats: pg.Client | null = null;
  try {
    store = await createTestStore('postgres');
    dirs.push(store.dataDir);
    s3 = await startS3Server();
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'b', secretAccessKey: 'b' },
    });
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    client.destroy();
    const env = (extra: Record<string, string>): Record<string, string> => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-mpbench-'));
      dirs.push(dir);
      return {
        DATABASE_URL: store!.url!,
        ...(useRedis ? { REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix } : { REDIS_URL: '' }),
        ADMIN_API_KEY: ADMIN_KEY,
        BLOB_STORE: 's3',
        S3_ENDPOINT: s3!.endpoint,
        S3_BUCKET: BUCKET,
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'b',
        S3_SECRET_ACCESS_KEY: 'b',
        WORKER_IN_PROCESS: 'false',
        RATE_LIMIT_UNLIMITED_TIER_PER_MINUTE: '1000000000',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        DATA_DIR: dir,
        ...extra,
      };
    };
    const startApi = async (name: string) => {
      const port = await freePort();
      const svc = spawnService(name, 'serve', env({ PORT: String(port) }), ['--max-semi-space-size=4']);
      services.push(svc);
      await waitReady(svc, 60_000);
      return svc;
    };
    // The first process migrates; the second starts on a migrated database, as in a deployment.
    const api1 = await startApi('api-1');
    const api2 = await startApi('api-2');
    const worker = spawnService('worker', 'worker', env({ LOG_LEVEL: 'info' }), ['--max-semi-space-size=4']);
    services.push(worker);
    await waitReady(worker, 60_000);

    // Idle RSS: settled for 5 s with no request served (api-2 has served only /readyz).
    await new Promise((r) => setTimeout(r, 5_000));
    const idleRss = { serve: rssMiB(api2.pid), worker: rssMiB(worker.pid), serveAfterWarmup: null as number | null };
    await stopService(worker);

    const subdomain = `mpbench${process.pid}`;
    const created = await fetch(`${api1.base}/api/v1/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Bench',
        subdomain,
        tier: 'enterprise',
        owner: { email: `bench@${subdomain}.example.com`, password: 'bench password 123', name: 'Bench' },
      }),
    });
    const tenant = (await created.json()) as { api_key: string; owner: { id: string } };
    if (created.status !== 201) throw new Error(`tenant: ${created.status} ${JSON.stringify(tenant)}`);
    const headers = { 'x-api-key': tenant.api_key };
    const pathOf = `/api/v1/users/${tenant.owner.id}`;
    for (const api of [api1, api2]) {
      const probe = await fetch(`${api.base}${pathOf}`, { headers });
      if (probe.status !== 200) throw new Error(`probe on ${api.name}: ${probe.status} ${await probe.text()}`);
    }

    const hellos: ChildProcess[] = [];
    const helloUrls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const child = spawn(process.execPath, [path.join(here, 'fixtures/hello-fastify.ts')], {
        env: { ...process.env, PORT: String(port) },
        stdio: 'ignore',
      });
      children.push(child);
      hellos.push(child);
      const url = `http://127.0.0.1:${port}/`;
      for (let tries = 0; ; tries++) {
        try {
          if ((await fetch(url)).ok) break;
        } catch {
          if (tries > 300) throw new Error('hello-world did not start');
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      helloUrls.push(url);
    }

    stats = new pg.Client({ connectionString: adminUrl });
    await stats.connect();
    const dbName = new URL(store.url!).pathname.slice(1);
    const ourBackends = async () =>
      (await stats!.query('select pid from pg_stat_activity where datname = $1', [dbName])).rows.map((r) =>
        Number(r.pid),
      );
    let backendPids: number[] = [];

    const targets: { name: string; spec: LoadSpec; servers: number[] }[] = [
      {
        name: 'hello×1',
        spec: { urls: [helloUrls[0]!, helloUrls[0]!], headers: {}, connections: CONNECTIONS, seconds: SECONDS },
        servers: [hellos[0]!.pid!],
      },
      {
        name: 'hello×2',
        spec: { urls: [helloUrls[0]!, helloUrls[1]!], headers: {}, connections: CONNECTIONS, seconds: SECONDS },
        servers: hellos.map((h) => h.pid!),
      },
      {
        name: 'service×1',
        spec: {
          urls: [`${api1.base}${pathOf}`, `${api1.base}${pathOf}`],
          headers,
          connections: CONNECTIONS,
          seconds: SECONDS,
        },
        servers: [api1.pid],
      },
      {
        name: 'service×2',
        spec: {
          urls: [`${api1.base}${pathOf}`, `${api2.base}${pathOf}`],
          headers,
          connections: CONNECTIONS,
          seconds: SECONDS,
        },
        servers: [api1.pid, api2.pid],
      },
    ];
    const redisPids = pidsNamed(/^redis-server/);
    const postgresPids = () => pidsNamed(/^postgres(:|\s)|\/bin\/postgres\s/);

    const measured = new Map<string, Measurement[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const parties: Party[] = [
          { name: 'servers', pids: () => target.servers },
          { name: 'postgresBench', pids: () => backendPids },
          { name: 'postgresAll', pids: postgresPids },
          { name: 'redis', pids: () => redisPids },
        ];
        backendPids = await ourBackends();
        const cpu0 = sampleCpu(parties);
        const m0 = machineTicks();
        const t0 = performance.now();
        const child = spawn(process.execPath, [SELF, '--load', JSON.stringify(target.spec)], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.push(child);
        const result = await new Promise<SplitLoadResult>((resolve, reject) => {
          let out = '';
          child.stdout!.on('data', (d) => (out += d));
          child.on('exit', (code) =>
            code === 0
              ? resolve(JSON.parse(out) as SplitLoadResult)
              : reject(new Error(`load generator exited ${code}`)),
          );
        });
        const wall = (performance.now() - t0) / 1000;
        backendPids = [...new Set([...backendPids, ...(await ourBackends())])];
        const cpu1 = sampleCpu(parties);
        const m1 = machineTicks();
        const d = cpuDelta(cpu0, cpu1);
        const machineCores = m1.total > m0.total ? ((m1.busy - m0.busy) / (m1.total - m0.total)) * os.cpus().length : 0;
        const ours = (d['servers'] ?? 0) + (d['postgresAll'] ?? 0) + (d['redis'] ?? 0) + result.cpuSeconds;
        const round2 = (n: number) => Math.round(n * 100) / 100;
        const cores: Record<string, number> = {
          loadGenerator: round2(result.cpuSeconds / wall),
          servers: round2((d['servers'] ?? 0) / wall),
          postgresBenchBackends: round2((d['postgresBench'] ?? 0) / wall),
          postgresAll: round2((d['postgresAll'] ?? 0) / wall),
          redis: round2((d['redis'] ?? 0) / wall),
          machineBusy: round2(machineCores),
          everythingElse: round2(Math.max(0, machineCores - ours / wall)),
        };
        const served = result.rps * wall;
        const perRequest = (seconds: number) => (served > 0 ? Math.round((seconds / served) * 1e6) : 0);
        const cpuMicrosPerRequest: Record<string, number> = {
          loadGenerator: perRequest(result.cpuSeconds),
          servers: perRequest(d['servers'] ?? 0),
          postgres: perRequest(d['postgresBench'] ?? 0),
          redis: perRequest(d['redis'] ?? 0),
        };
        measured.get(target.name)!.push({ ...result, wallSeconds: round2(wall), cores, cpuMicrosPerRequest });
        process.stderr.write(
          `round ${round + 1}/${ROUNDS} ${target.name}: ${result.rps} req/s, p99 ${result.p99Ms} ms, cores ${JSON.stringify(cores)}, µs/request ${JSON.stringify(cpuMicrosPerRequest)}\n`,
        );
      }
    }
    idleRss.serveAfterWarmup = rssMiB(api2.pid);
    // Requests served, from each process's own counter; then stop them so their backends report.
    let requests = 0;
    for (const api of [api1, api2]) {
      const text = await (await fetch(`${api.base}/metrics`)).text();
      for (const line of text.split('\n'))
        if (line.startsWith('http_requests_total{')) requests += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    await Promise.all([api1, api2].map((api) => stopService(api)));
    let transactions = 0;
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 250));
      await stats.query('select pg_stat_clear_snapshot()');
      const left = await stats.query('select count(*)::int as n from pg_stat_activity where datname = $1', [dbName]);
      transactions = Number(
        (await stats.query('select xact_commit::bigint as n from pg_stat_database where datname = $1', [dbName]))
          .rows[0]?.n ?? 0,
      );
      if (left.rows[0].n === 0) break;
    }

    const summary: MultiProcessBenchResult['targets'] = {};
    for (const [name, runs] of measured) {
      const coreNames = Object.keys(runs[0]!.cores);
      const statuses: Record<string, number> = {};
      for (const r of runs) for (const [s, n] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
      summary[name] = {
        rps: Math.round(median(runs.map((r) => r.rps))),
        p50Ms: median(runs.map((r) => r.p50Ms)),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        cores: Object.fromEntries(coreNames.map((c) => [c, median(runs.map((r) => r.cores[c]!))])),
        cpuMicrosPerRequest: Object.fromEntries(
          Object.keys(runs[0]!.cpuMicrosPerRequest).map((c) => [c, median(runs.map((r) => r.cpuMicrosPerRequest[c]!))]),
        ),
        statuses,
        errors: runs.reduce((n, r) => n + r.errors, 0),
      };
    }
    const per = (a: string, b: string) =>
      measured.get(a)!.map((r, i) => Math.round((r.rps / measured.get(b)![i]!.rps) * 100) / 100);
    let pgStatStatements = 'not loaded (shared_preload_libraries does not include pg_stat_statements)';
    const preload = await stats.query(`select setting from pg_settings where name = 'shared_preload_libraries'`);
    if (String(preload.rows[0]?.setting ?? '').includes('pg_stat_statements'))
      pgStatStatements = 'loaded (not read by this benchmark)';
    return {
      connections: CONNECTIONS,
      secondsPerRound: SECONDS,
      rounds: ROUNDS,
      cpus: os.cpus().length,
      redis: useRedis,
      loadAverage: [loadBefore, os.loadavg()[0]!],
      idleRssMiB: idleRss,
      targets: summary,
      pg: {
        transactions,
        requests,
        transactionsPerRequest: requests > 0 ? Math.round((transactions / requests) * 100) / 100 : 0,
      },
      ratios: {
        service2vs1: per('service×2', 'service×1'),
        hello2vs1: per('hello×2', 'hello×1'),
        service1vsHello1: per('service×1', 'hello×1'),
        service2vsHello2: per('service×2', 'hello×2'),
      },
      perRound: Object.fromEntries(measured),
      pgStatStatements,
    };
  } finally {
    await stats?.end().catch(() => {});
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(services.map((svc) => stopService(svc, 3_000)));
    await s3?.close();
    await store?.drop();
    if (useRedis) await dropRedisPrefix(prefix).catch(() => {});
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--load') {
  await loadChild(JSON.parse(process.argv[3]!) as LoadSpec);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run(), null, 2));
}
