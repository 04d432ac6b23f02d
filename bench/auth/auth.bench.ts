import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestStore, postgresAdminUrl, type TestStore } from '../../test/support/databases.ts';
import { freePort, median, startAndWait, stop } from '../support.ts';
import { backendPids, cpuSnapshot, cpuSpent } from './cpu.ts';
import type { LoadResult } from './load-generator.ts';

// Authenticated GET of a small resource (authentication, rate limiting, one query, serialisation)
// against a bare Fastify hello-world, on SQLite and on PostgreSQL, with an API key and with a user
// token, all in one run. Every server is started once; the run is ROUNDS rounds, each measuring
// hello-world first and then every target for SECONDS (and hello-world once more at the end), so each
// ratio compares measurements taken seconds apart (this machine is shared and its load swings); the
// medians of the rounds are reported, with the CPU time per request of the server process and of its
// PostgreSQL backends, which moves much less with other people's load than requests per second do.
// Goals (issue 10 item 3): ≥ 0.30 of hello-world on PostgreSQL, ≥ 0.5 on SQLite, p99 < 15 ms at 50 connections.
//   AUTH_BENCH_SECONDS=4 AUTH_BENCH_ROUNDS=3 AUTH_BENCH_CONNECTIONS=50 AUTH_BENCH_USER_TOKEN=1 node bench/auth/auth.bench.ts
// AUTH_BENCH_COMPARE_WITH=<another checkout> also serves that checkout's bench/auth/serve-app.ts
// (e.g. a `git worktree` of the previous commit) in the same rounds, reported under `compare`.
// AUTH_BENCH_ONLY=postgres,postgresUserToken measures only those targets (and hello-world): shorter
// rounds, so an A/B comparison on a busy machine alternates faster.

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env['AUTH_BENCH_SECONDS'] ?? 4);
const ROUNDS = Number(process.env['AUTH_BENCH_ROUNDS'] ?? 3);
const CONNECTIONS = Number(process.env['AUTH_BENCH_CONNECTIONS'] ?? 50);
const USER_TOKEN = process.env['AUTH_BENCH_USER_TOKEN'] !== '0';
const COMPARE_WITH = process.env['AUTH_BENCH_COMPARE_WITH'] || null;
const ONLY = process.env['AUTH_BENCH_ONLY'] ? new Set(process.env['AUTH_BENCH_ONLY'].split(',')) : null;
const GOALS = { postgresRatio: 0.3, sqliteRatio: 0.5, p99Ms: 15 };

interface Measured extends LoadResult {
  /** CPU microseconds per request of the server process, and of its PostgreSQL backends. */
  serverCpuUs: number | null;
  dbCpuUs: number | null;
}

export interface TargetSummary {
  /** Medians over the rounds. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  worstP99Ms: number;
  /**
   * Median over the rounds of (this target's req/s ÷ hello-world's req/s at that moment, interpolated
   * between the hello-world measurements that open this round and the next).
   */
  ratioVsHello: number;
  serverCpuUsPerRequest: number | null;
  dbCpuUsPerRequest: number | null;
  rounds: { rps: number; p99Ms: number; ratioVsHello: number }[];
  statuses: Record<string, number>;
  errors: number;
}

type Summaries = Partial<Record<'sqlite' | 'postgres' | 'sqliteUserToken' | 'postgresUserToken', TargetSummary>>;

export interface AuthBenchResult {
  connections: number;
  secondsPerRound: number;
  rounds: number;
  cpus: number;
  /** 1-minute load average at the start and at the end (other work on the machine). */
  loadAverage: [number, number];
  helloWorld: TargetSummary;
  /** API key (`X-API-Key`); absent when AUTH_BENCH_ONLY leaves it out. */
  sqlite?: TargetSummary;
  postgres?: TargetSummary;
  /** User token (`Authorization: Bearer` + `X-Tenant-Subdomain`). */
  sqliteUserToken?: TargetSummary;
  postgresUserToken?: TargetSummary;
  /** The same targets served by AUTH_BENCH_COMPARE_WITH, in the same rounds. */
  compare?: { checkout: string } & Summaries;
  goals: typeof GOALS & { met: { sqlite: boolean | null; postgres: boolean | null } };
}

interface Endpoint {
  url: string;
  headers: Record<string, string>;
}

interface Target {
  name: string;
  endpoint: Endpoint;
  serverPid: number;
  /** The PostgreSQL database the server uses, to count its backends' CPU. */
  database: string | null;
}

/** Runs the load generator in its own process against a target, sampling CPU over the measured window. */
function measure(target: Target, pgClient: pg.Client | null): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const { url, headers } = target.endpoint;
    const child = spawn(
      process.execPath,
      [path.join(here, 'load-generator.ts'), url, String(CONNECTIONS), String(SECONDS), JSON.stringify(headers)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    // After the 1 s warm-up: the pids serving now, and their CPU so far.
    let first: { at: number; server: Map<number, number>; db: Map<number, number>; dbPids: number[] } | null = null;
    const sampling = new Promise<void>((done) => {
      setTimeout(async () => {
        const dbPids = pgClient && target.database ? await backendPids(pgClient, target.database).catch(() => []) : [];
        first = { at: performance.now(), server: cpuSnapshot([target.serverPid]), db: cpuSnapshot(dbPids), dbPids };
        done();
      }, 1_300);
    });
    child.on('exit', (code) => {
      const end = {
        at: performance.now(),
        server: cpuSnapshot([target.serverPid]),
        db: first ? cpuSnapshot(first.dbPids) : new Map(),
      };
      if (code !== 0) return reject(new Error(`load generator exited ${code}`));
      void sampling.then(() => {
        const result = JSON.parse(out) as LoadResult;
        const requests = first ? (result.rps * (end.at - first.at)) / 1000 : 0;
        const perRequest = (ms: number) => (requests > 0 ? Math.round((ms * 1000) / requests) : null);
        resolve({
          ...result,
          serverCpuUs: first && first.server.size > 0 ? perRequest(cpuSpent(first.server, end.server)) : null,
          dbCpuUs: first && target.database && first.db.size > 0 ? perRequest(cpuSpent(first.db, end.db)) : null,
        });
      });
    });
  });
}

/** Starts a checkout's bench/auth/serve-app.ts and reads the endpoints it prints (API key; user token). */
async function startApp(
  checkout: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; apiKey: Endpoint; userToken: Endpoint | null }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...(process.env['APP_NODE_OPTS']?.split(' ').filter(Boolean) ?? []),
      path.join(checkout, 'bench/auth/serve-app.ts'),
    ],
    { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.on('exit', (code) => reject(new Error(`app exited ${code}`)));
  });
  const printed = JSON.parse(line) as Endpoint & { userToken?: Endpoint };
  for (const endpoint of [printed, printed.userToken]) {
    if (!endpoint) continue;
    const check = await fetch(endpoint.url, { headers: endpoint.headers });
    if (check.status !== 200) throw new Error(`probe answered ${check.status}: ${await check.text()}`);
  }
  return { child, apiKey: { url: printed.url, headers: printed.headers }, userToken: printed.userToken ?? null };
}

/**
 * Hello-world's req/s at the moment a target was measured: interpolated between the round's own
 * hello-world measurement and the next one (the machine's load drifts within a round).
 */
function helloAt(hello: Measured[], round: number, position: number, perRound: number): number {
  const from = hello[round]!.rps;
  const to = hello[round + 1]?.rps ?? from;
  return from + ((to - from) * position) / perRound;
}

function summarise(results: Measured[], hello: Measured[], position: number, perRound: number): TargetSummary {
  const round2 = (n: number) => Math.round(n * 100) / 100;
  const ratios = results.map((r, i) => Math.round((r.rps / helloAt(hello, i, position, perRound)) * 1000) / 1000);
  const statuses: Record<string, number> = {};
  for (const r of results)
    for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  const medianOf = (values: (number | null)[]) => {
    const known = values.filter((v): v is number => v !== null);
    return known.length > 0 ? median(known) : null;
  };
  return {
    rps: Math.round(median(results.map((r) => r.rps))),
    p50Ms: round2(median(results.map((r) => r.p50Ms))),
    p99Ms: round2(median(results.map((r) => r.p99Ms))),
    worstP99Ms: Math.max(...results.map((r) => r.p99Ms)),
    ratioVsHello: median(ratios),
    serverCpuUsPerRequest: medianOf(results.map((r) => r.serverCpuUs)),
    dbCpuUsPerRequest: medianOf(results.map((r) => r.dbCpuUs)),
    rounds: results.map((r, i) => ({ rps: r.rps, p99Ms: r.p99Ms, ratioVsHello: ratios[i]! })),
    statuses,
    errors: results.reduce((n, r) => n + r.errors, 0),
  };
}

export async function run(): Promise<AuthBenchResult> {
  const loadBefore = os.loadavg()[0]!;
  const children: ChildProcess[] = [];
  const dataDirs: string[] = [];
  const stores: TestStore[] = [];
  const adminUrl = await postgresAdminUrl();
  const pgClient = adminUrl ? new pg.Client({ connectionString: adminUrl }) : null;
  await pgClient?.connect();
  const targets: Target[] = [];

  /** Both dialects of one checkout, named with a prefix. */
  const serve = async (checkout: string, prefix: string) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-auth-bench-'));
    dataDirs.push(dataDir);
    const sqliteApp = await startApp(checkout, { DATA_DIR: dataDir, DATABASE_URL: '' });
    children.push(sqliteApp.child);
    targets.push({
      name: `${prefix}sqlite`,
      endpoint: sqliteApp.apiKey,
      serverPid: sqliteApp.child.pid!,
      database: null,
    });
    if (USER_TOKEN && sqliteApp.userToken)
      targets.push({
        name: `${prefix}sqliteUserToken`,
        endpoint: sqliteApp.userToken,
        serverPid: sqliteApp.child.pid!,
        database: null,
      });
    if (!adminUrl) return;
    const store = await createTestStore('postgres');
    stores.push(store);
    const database = new URL(store.url!).pathname.slice(1);
    const pgApp = await startApp(checkout, { DATA_DIR: store.dataDir, DATABASE_URL: store.url! });
    children.push(pgApp.child);
    targets.push({ name: `${prefix}postgres`, endpoint: pgApp.apiKey, serverPid: pgApp.child.pid!, database });
    if (USER_TOKEN && pgApp.userToken)
      targets.push({
        name: `${prefix}postgresUserToken`,
        endpoint: pgApp.userToken,
        serverPid: pgApp.child.pid!,
        database,
      });
  };

  try {
    const helloPort = await freePort();
    const hello = await startAndWait(
      [path.join(here, '../fixtures/hello-fastify.ts')],
      { PORT: String(helloPort) },
      `http://127.0.0.1:${helloPort}/`,
    );
    children.push(hello.child);
    targets.push({
      name: 'helloWorld',
      endpoint: { url: `http://127.0.0.1:${helloPort}/`, headers: {} },
      serverPid: hello.child.pid!,
      database: null,
    });
    await serve(path.join(here, '../..'), '');
    if (COMPARE_WITH) await serve(path.resolve(COMPARE_WITH), 'compare.');

    const measuredTargets = targets.filter(
      (t) => t.name === 'helloWorld' || !ONLY || ONLY.has(t.name.replace(/^compare\./, '')),
    );
    const measured = new Map<string, Measured[]>(measuredTargets.map((t) => [t.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of measuredTargets) {
        const result = await measure(target, pgClient);
        measured.get(target.name)!.push(result);
        process.stderr.write(
          `round ${round + 1}/${ROUNDS} ${target.name}: ${result.rps} req/s, p99 ${result.p99Ms} ms, CPU/request server ${result.serverCpuUs} µs, db ${result.dbCpuUs ?? '-'} µs\n`,
        );
      }
    }
    // A closing hello-world measurement, so the last round's targets have one after them too.
    const helloRuns = measured.get('helloWorld')!;
    const closing = await measure(measuredTargets[0]!, pgClient);
    const summaries = Object.fromEntries(
      [...measured].map(([name, results]) => [
        name,
        summarise(
          results,
          [...helloRuns, closing],
          measuredTargets.findIndex((t) => t.name === name),
          measuredTargets.length,
        ),
      ]),
    ) as Record<string, TargetSummary>;
    const pick = (prefix: string): Summaries =>
      Object.fromEntries(
        (['sqlite', 'postgres', 'sqliteUserToken', 'postgresUserToken'] as const).flatMap((k) =>
          summaries[prefix + k] ? [[k, summaries[prefix + k]]] : [],
        ),
      );
    const mine = pick('');
    const meets = (s: TargetSummary | undefined, ratio: number) =>
      s ? s.ratioVsHello >= ratio && s.p99Ms < GOALS.p99Ms : null;
    return {
      connections: CONNECTIONS,
      secondsPerRound: SECONDS,
      rounds: ROUNDS,
      cpus: os.cpus().length,
      loadAverage: [loadBefore, os.loadavg()[0]!],
      helloWorld: summaries['helloWorld']!,
      ...mine,
      ...(COMPARE_WITH ? { compare: { checkout: path.resolve(COMPARE_WITH), ...pick('compare.') } } : {}),
      goals: {
        ...GOALS,
        met: { sqlite: meets(mine.sqlite, GOALS.sqliteRatio), postgres: meets(mine.postgres, GOALS.postgresRatio) },
      },
    };
  } finally {
    for (const child of children) await stop(child);
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
    await pgClient?.end();
    for (const store of stores) await store.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run(), null, 2));
}
