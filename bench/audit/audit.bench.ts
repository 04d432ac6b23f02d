import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { DialectName } from '../../src/db/database.ts';
import { MODULES } from '../../src/modules.ts';
import { type AuditTrail, auditModule } from '../../src/modules/audit/index.ts';
import { defineModule, type ModuleDefinition } from '../../src/platform/module.ts';
import { multipart } from '../../test/modules/documents/helpers.ts';
import { DIALECTS, startTestApp, type TestApp } from '../../test/support/app.ts';
import { createTenant, type TestTenant } from '../../test/support/fixtures.ts';
import { median, percentile } from '../support.ts';

// Issue 32, the audit trail's figures (docs/audit.md, docs/benchmarks.md):
//
// 1. Overhead, A/B in one run (`overhead` below): four apps on the same dialect side by side, two
//    with the audit module, two with a stub that records nothing and installs no hook; many short
//    rounds in shuffled order; wall time and CPU time (this process + the app's PostgreSQL
//    backends) per round; the cost is 1 − the median of per-round ratios, and the A/A ratios of the
//    two same-side apps give the noise floor. Authenticated GETs: the metadata of a document (not
//    audited: only the hook's route lookup) and its content (an audited read, batched); uploads
//    (recorded in the upload's transaction). Run with --expose-gc (each round then ends with a
//    young-generation collection of its own garbage).
// 2. `GET /audit` over a tenant of AUDIT_BENCH_ROWS records (default 1,000,000), generated in SQL
//    (recursive CTE on SQLite, generate_series on PostgreSQL): p50/p99 of each filter, `total` included.
//
//   AUDIT_BENCH_PARTS=overhead AUDIT_BENCH_ROUNDS=36 node --expose-gc bench/audit/audit.bench.ts
//   AUDIT_BENCH_PARTS=listing AUDIT_BENCH_ROWS=10000000 node bench/audit/audit.bench.ts

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
export const WITHOUT_AUDIT: ModuleDefinition[] = MODULES.map((m) => (m === auditModule ? noAudit : m));

export interface Side {
  t: TestApp;
  tenant: TestTenant;
  doc: string;
}

export async function side(dialect: DialectName, modules?: readonly ModuleDefinition[]): Promise<Side> {
  // No rate limit on either side: the A/B measures the trail, not the enterprise tier's per-minute cap.
  const env = { RATE_LIMIT_ENABLED: 'false' };
  const t = await startTestApp(dialect, modules ? { modules, env } : { env });
  const tenant = await createTenant(t, { tier: 'enterprise' });
  const res = await uploadOnce(t, tenant, 0);
  return { t, tenant, doc: res };
}

export async function uploadOnce(t: TestApp, tenant: TestTenant, i: number): Promise<string> {
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
export async function round(
  s: Side,
  n: number,
  one: (i: number) => Promise<void>,
): Promise<{ wall: number; cpu: number }> {
  const before = await cpuOf(s);
  const started = performance.now();
  await timed(n, 8, one);
  await s.t.container.modules.use('audit').flush();
  minorGc?.({ type: 'minor' });
  const wall = (performance.now() - started) / 1000;
  return { wall, cpu: cpuSecondsBetween(before, await cpuOf(s)) };
}

/** A seeded shuffle of `n` sides for round `r`: every side runs at every position equally often, in no fixed pattern. */
export function orderOf(r: number, n: number): number[] {
  let seed = 7 + r * 7_919;
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = seed % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** The median of `values` and a bootstrap 90 % interval of that median (fixed seed: repeatable). */
export function medianWithInterval(values: number[]): { median: number; p5: number; p95: number } {
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
 * - Four apps on the dialect: A and A' with the audit module, B and B' with the stub. Two of each,
 *   so that a difference between two instances (which app was made first, its database file or
 *   database) shows as noise instead of passing for the trail's cost.
 * - Many short rounds; in each, every app serves `n` requests, in a shuffled order (seeded).
 *   Per round: (B + B') / (A + A') of wall time (throughput with/without) and of CPU time per
 *   request, and the same-side ratios A'/A and B'/B (A/A comparisons).
 * - Cost = 1 − median of the with/without ratios, with a bootstrap 90 % interval; noise = the A/A
 *   ratios' median and interval. A cost inside the A/A spread is not shown by the run.
 */
async function overhead(dialect: DialectName, rounds: number) {
  // Made in the order B, A, A', B' (A and A' in the middle): a run measured the first-made app of
  // each pair ~9 % slower in CPU per upload than the second (A/A), so a creation-order trend must
  // fall on both sides' sums equally, not on the audited pair.
  const b = await side(dialect, WITHOUT_AUDIT);
  const a = await side(dialect);
  const a2 = await side(dialect);
  const b2 = await side(dialect, WITHOUT_AUDIT);
  const sides = [a, a2, b, b2];
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
      const wall = { ab: [] as number[], aa: [] as number[] };
      const cpu = { ab: [] as number[], aa: [] as number[] };
      const rps: number[][] = [[], [], [], []];
      const cpuMs: number[][] = [[], [], [], []];
      for (let r = 0; r < rounds; r++) {
        const took: { wall: number; cpu: number }[] = [];
        for (const k of orderOf(r, sides.length)) took[k] = await round(sides[k]!, c.n, c.run(sides[k]!));
        took.forEach((t, k) => {
          rps[k]!.push(c.n / t.wall);
          cpuMs[k]!.push((t.cpu * 1000) / c.n);
        });
        for (const [key, into] of [
          ['wall', wall],
          ['cpu', cpu],
        ] as const) {
          const [x, x2, y, y2] = took.map((t) => t[key]) as [number, number, number, number];
          into.ab.push((y + y2) / (x + x2));
          // Each pair's later-made app over its earlier-made one.
          into.aa.push(x2 / x, y2 / y);
        }
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
        // A, A', B, B'.
        rps: rps.map((v) => ms(median(v))),
        cpu_ms_per_request: cpuMs.map((v) => ms(median(v))),
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
