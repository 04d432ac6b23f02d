import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { DialectName } from '../../src/db/database.ts';
import { MODULES } from '../../src/modules.ts';
import { type AuditTrail, auditModule } from '../../src/modules/audit/index.ts';
import { defineModule, type ModuleDefinition } from '../../src/platform/module.ts';
import { multipart } from '../../test/documents/helpers.ts';
import { DIALECTS, startTestApp, type TestApp } from '../../test/support/app.ts';
import { createTenant, type TestTenant } from '../../test/support/fixtures.ts';
import { median, percentile } from '../support.ts';

// Issue 32, the audit trail's figures (docs/audit.md, docs/benchmarks.md):
//
// 1. Overhead, A/B in one run: two apps on the same dialect side by side, one with the audit
//    module, one with a stub that records nothing and installs no hook. Rounds alternate A and B
//    (the machine is shared: compare the medians of per-round ratios). Authenticated GETs: the
//    metadata of a document (not audited: only the hook's route lookup) and its content (an
//    audited read, batched); uploads (recorded in the upload's transaction).
// 2. `GET /audit` over a tenant of AUDIT_BENCH_ROWS records (default 1,000,000), generated in SQL
//    (recursive CTE on SQLite, generate_series on PostgreSQL): p50/p99 of each filter, `total` included.
//
//   AUDIT_BENCH_ROWS=10000000 AUDIT_BENCH_ROUNDS=9 node bench/audit/audit.bench.ts

const ms = (n: number) => Number(n.toFixed(2));

/** The same services, no hook and nothing recorded: the B side of the A/B. */
const noAudit = defineModule({
  name: 'audit',
  setup: () => {
    const trail = {
      recordIn: async () => {},
      record: async () => {},
      read: () => {},
      buffer: () => {},
      flush: async () => {},
      close: async () => {},
    };
    return { provides: { audit: trail as unknown as AuditTrail, auditLog: {} as never } };
  },
});
const WITHOUT_AUDIT: ModuleDefinition[] = MODULES.map((m) => (m === auditModule ? noAudit : m));

interface Side {
  t: TestApp;
  tenant: TestTenant;
  doc: string;
}

async function side(dialect: DialectName, modules?: readonly ModuleDefinition[]): Promise<Side> {
  // No rate limit on either side: the A/B measures the trail, not the enterprise tier's per-minute cap.
  const env = { RATE_LIMIT_ENABLED: 'false' };
  const t = await startTestApp(dialect, modules ? { modules, env } : { env });
  const tenant = await createTenant(t, { tier: 'enterprise' });
  const res = await uploadOnce(t, tenant, 0);
  return { t, tenant, doc: res };
}

async function uploadOnce(t: TestApp, tenant: TestTenant, i: number): Promise<string> {
  const body = multipart([
    {
      name: 'file',
      filename: `note-${i}.txt`,
      content: Buffer.from(`A short note number ${i}, for the upload benchmark.\n`.repeat(20)),
    },
  ]);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/documents/upload',
    payload: body.payload,
    headers: { ...tenant.headers, ...body.headers },
  });
  if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${res.body}`);
  return res.json().id as string;
}

/** Seconds taken by `n` calls of `one`, `concurrency` at a time. */
async function timed(n: number, concurrency: number, one: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await one(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

/** Scales the request counts of the A/B (AUDIT_BENCH_SCALE=0.5: half as many per round). */
const SCALE = Number(process.env['AUDIT_BENCH_SCALE'] ?? 1);

/** Young-generation collection, when the process runs with --expose-gc (see `round`). */
const minorGc = (globalThis as { gc?: (o?: { type: 'minor' | 'major' }) => void }).gc;

/** CPU nanoseconds a PostgreSQL backend has run (`/proc/<pid>/schedstat`: ns on CPU, ns waiting, slices). */
function backendCpuNs(pid: number): number {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0; // ended since it was listed
  }
}

/**
 * CPU seconds spent so far for `s`: this process (every app of the A/B lives in it, but rounds run
 * one side at a time, so a round's delta is that side's), plus, on PostgreSQL, the server backends
 * connected to the side's own database (each test app has one). The server's shared processes
 * (WAL writer, checkpointer) are not counted.
 */
async function cpuOf(s: Side): Promise<Map<number, number>> {
  const usage = process.cpuUsage();
  const cpu = new Map<number, number>([[-1, (usage.user + usage.system) * 1_000]]);
  if (s.t.dialect !== 'postgres') return cpu;
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity where datname = current_database()`.execute(s.t.container.database.db);
  for (const { pid } of rows) cpu.set(pid, backendCpuNs(pid));
  return cpu;
}

function cpuSecondsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ns = 0;
  for (const [pid, at] of after) ns += at - (before.get(pid) ?? 0);
  return ns / 1e9;
}

/**
 * One timed round of one side: the requests, then (inside the timing) what they left behind:
 * the side's buffered reads are flushed, so a batch written by a timer is not charged to the next
 * side's round, and, with --expose-gc, a young-generation collection of the round's garbage.
 * Returns wall seconds and CPU seconds (process + the side's PostgreSQL backends).
 */
async function round(s: Side, n: number, one: (i: number) => Promise<void>): Promise<{ wall: number; cpu: number }> {
  const before = await cpuOf(s);
  const started = performance.now();
  await timed(n, 8, one);
  await s.t.container.modules.use('audit').flush();
  minorGc?.({ type: 'minor' });
  const wall = (performance.now() - started) / 1000;
  return { wall, cpu: cpuSecondsBetween(before, await cpuOf(s)) };
}

/** The orders of three sides, cycled through round by round: each side runs first, second and last equally often. */
const ORDERS = [
  [0, 1, 2],
  [1, 2, 0],
  [2, 0, 1],
  [0, 2, 1],
  [2, 1, 0],
  [1, 0, 2],
] as const;

/** The median of `values` and a bootstrap 90 % interval of that median (fixed seed: repeatable). */
function medianWithInterval(values: number[]): { median: number; p5: number; p95: number } {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const medians: number[] = [];
  for (let b = 0; b < 2_000; b++)
    medians.push(median(Array.from(values, () => values[Math.floor(random() * values.length)]!)));
  return { median: median(values), p5: percentile(medians, 5), p95: percentile(medians, 95) };
}

/**
 * The A/B of the trail's cost, with its own noise floor measured alongside:
 *
 * - A: the audit module; A': a second, identical app with the audit module; B: the stub.
 * - Many short rounds; in each, every side serves `n` requests, in an order that cycles through
 *   all six permutations. Per round, the time ratios B/A (throughput with/without) and A'/A.
 * - Cost = 1 − median of the B/A ratios; noise = how far the A/A ratios' median is from 1, and the
 *   bootstrap interval of either median. A cost inside the A/A spread is not shown by this run.
 */
async function overhead(dialect: DialectName, rounds: number) {
  const a = await side(dialect);
  const a2 = await side(dialect);
  const b = await side(dialect, WITHOUT_AUDIT);
  const sides = [a, a2, b];
  try {
    const get = (s: Side, url: string) => async () => {
      const res = await s.t.app.inject({ method: 'GET', url, headers: s.tenant.headers });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    };
    const cases = {
      'GET /documents/{id}': { n: Math.ceil(200 * SCALE), run: (s: Side) => get(s, `/api/v1/documents/${s.doc}`) },
      'GET /documents/{id}/content': {
        n: Math.ceil(200 * SCALE),
        run: (s: Side) => get(s, `/api/v1/documents/${s.doc}/content`),
      },
      'POST /documents/upload': {
        n: Math.ceil(24 * SCALE),
        run: (s: Side) => (i: number) => uploadOnce(s.t, s.tenant, i).then(() => {}),
      },
    };
    const out: Record<string, unknown> = {};
    for (const [name, c] of Object.entries(cases)) {
      // Warm every side (route serialisers, prepared statements, JIT).
      for (const s of sides) await round(s, c.n, c.run(s));
      // Per round: B/A and A'/A of wall time (throughput with/without) and of CPU time per request.
      const wall = { ab: [] as number[], aa: [] as number[] };
      const cpu = { ab: [] as number[], aa: [] as number[] };
      const rps: number[][] = [[], [], []];
      const cpuMs: number[][] = [[], [], []];
      for (let r = 0; r < rounds; r++) {
        const took: { wall: number; cpu: number }[] = [];
        for (const k of ORDERS[r % ORDERS.length]!) took[k] = await round(sides[k]!, c.n, c.run(sides[k]!));
        took.forEach((t, k) => {
          rps[k]!.push(c.n / t.wall);
          cpuMs[k]!.push((t.cpu * 1000) / c.n);
        });
        const [x, x2, y] = took as [(typeof took)[0], (typeof took)[0], (typeof took)[0]];
        wall.ab.push(y.wall / x.wall);
        wall.aa.push(x2.wall / x.wall);
        cpu.ab.push(y.cpu / x.cpu);
        cpu.aa.push(x2.cpu / x.cpu);
      }
      const pct = (ratio: number) => ms((1 - ratio) * 100);
      const figures = (ratios: { ab: number[]; aa: number[] }) => {
        const cost = medianWithInterval(ratios.ab);
        const noise = medianWithInterval(ratios.aa);
        return {
          cost_percent: pct(cost.median),
          cost_percent_90: [pct(cost.p95), pct(cost.p5)],
          aa_percent: pct(noise.median),
          aa_percent_90: [pct(noise.p95), pct(noise.p5)],
        };
      };
      out[name] = {
        rounds,
        requests_per_round: c.n,
        rps: { audit: ms(median(rps[0]!)), audit_again: ms(median(rps[1]!)), without: ms(median(rps[2]!)) },
        cpu_ms_per_request: {
          audit: ms(median(cpuMs[0]!)),
          audit_again: ms(median(cpuMs[1]!)),
          without: ms(median(cpuMs[2]!)),
        },
        wall: figures(wall),
        cpu: figures(cpu),
      };
      process.stderr.write(`${dialect} ${name}: ${JSON.stringify(out[name])}\n`);
    }
    return out;
  } finally {
    for (const s of sides) await s.t.close();
  }
}

const ACTIONS = [
  'document.download',
  'document.content',
  'document.update',
  'document.upload',
  'document.share',
  'access.denied',
  'document.delete',
  'api_key.create',
  'user.update',
  'folder.create',
];

/** `rows` records of one tenant over the last year: 50 actors, 10,000 documents, 10 actions. */
async function generate(t: TestApp, tenantId: string, rows: number): Promise<number> {
  const db = t.container.database.db;
  const start = Date.now() - 365 * 86_400_000;
  const step = Math.max(1, Math.floor((365 * 86_400_000) / rows));
  const started = performance.now();
  const chunk = 1_000_000;
  for (let from = 0; from < rows; from += chunk) {
    const to = Math.min(rows, from + chunk) - 1;
    if (t.dialect === 'postgres') {
      await sql`
        insert into audit_records (id, tenant_id, at, actor_type, actor_id, action, target_type, target_id, outcome, status, ip, user_agent, request_id, details)
        select lpad(i::text, 10, '0') || '-bench', ${tenantId}, ${start}::bigint + i::bigint * ${step}, 'user', 'user-' || (i % 50),
               (${sql.raw(`array[${ACTIONS.map((a) => `'${a}'`).join(',')}]`)})[i % 10 + 1], 'document', 'doc-' || (i % 10000),
               'success', 200, '10.0.0.1', 'bench/1.0', null, null
        from generate_series(${from}::bigint, ${to}::bigint) as g(i)`.execute(db);
    } else {
      await sql`
        with recursive n(i) as (select ${from} union all select i + 1 from n where i < ${to})
        insert into audit_records (id, tenant_id, at, actor_type, actor_id, action, target_type, target_id, outcome, status, ip, user_agent, request_id, details)
        select printf('%010d-bench', i), ${tenantId}, ${start} + i * ${step}, 'user', 'user-' || (i % 50),
               case i % 10 ${sql.raw(ACTIONS.map((a, k) => `when ${k} then '${a}'`).join(' '))} end, 'document', 'doc-' || (i % 10000),
               'success', 200, '10.0.0.1', 'bench/1.0', null, null
        from n`.execute(db);
    }
  }
  // VACUUM as well as ANALYZE: what autovacuum does to a table in production (sets the visibility
  // map, so capped counts and filters can be index-only scans instead of heap reads).
  if (t.dialect === 'postgres') await sql`vacuum analyze audit_records`.execute(db);
  else await sql`analyze`.execute(db);
  return (performance.now() - started) / 1000;
}

async function listing(dialect: DialectName, rows: number, repeats: number) {
  const t = await startTestApp(dialect);
  try {
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const seconds = await generate(t, tenant.tenantId, rows);
    const mid = new Date(Date.now() - 180 * 86_400_000).toISOString();
    const week = new Date(Date.now() - 187 * 86_400_000).toISOString();
    const cases: Record<string, string> = {
      newest: '',
      'page 50': '?page=50&page_size=100',
      actor: '?actor=user-7',
      document: '?document_id=doc-4242',
      action: '?action=document.share',
      'from/to (one week)': `?from=${encodeURIComponent(week)}&to=${encodeURIComponent(mid)}`,
      'actor + action': '?actor=user-7&action=document.download',
      'document + from': `?document_id=doc-4242&from=${encodeURIComponent(mid)}`,
    };
    const out: Record<string, unknown> = { rows, generated_in_s: ms(seconds) };
    for (const [name, query] of Object.entries(cases)) {
      const times: number[] = [];
      for (let i = 0; i < repeats + 3; i++) {
        const started = performance.now();
        const res = await t.app.inject({ method: 'GET', url: `/api/v1/audit${query}`, headers: tenant.headers });
        const took = performance.now() - started;
        if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${res.body}`);
        if (i >= 3) times.push(took);
      }
      out[name] = { p50_ms: ms(percentile(times, 50)), p99_ms: ms(percentile(times, 99)) };
    }
    return out;
  } finally {
    await t.close();
  }
}

export async function run() {
  const rounds = Number(process.env['AUDIT_BENCH_ROUNDS'] ?? 36);
  const rows = Number(process.env['AUDIT_BENCH_ROWS'] ?? 1_000_000);
  const repeats = Number(process.env['AUDIT_BENCH_REPEATS'] ?? 100);
  const parts = (process.env['AUDIT_BENCH_PARTS'] ?? 'overhead,listing').split(',');
  const only = process.env['AUDIT_BENCH_DIALECTS']?.split(',');
  const result: Record<string, unknown> = {};
  for (const dialect of DIALECTS.filter((d) => !only || only.includes(d))) {
    if (parts.includes('overhead')) result[`overhead_${dialect}`] = await overhead(dialect, rounds);
    if (parts.includes('listing')) result[`listing_${dialect}`] = await listing(dialect, rows, repeats);
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await run(), null, 2));
