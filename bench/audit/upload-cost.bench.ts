import { StatementSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { DialectName } from '../../src/db/database.ts';
import { MODULES } from '../../src/modules.ts';
import { auditModule } from '../../src/modules/audit/index.ts';
import { actorOf } from '../../src/modules/audit/audit-trail.ts';
import { defineModule, type ModuleDefinition } from '../../src/platform/module.ts';
import { DIALECTS } from '../../test/support/app.ts';
import { median } from '../support.ts';
import { medianWithInterval, orderOf, round, type Side, side, uploadOnce, WITHOUT_AUDIT } from './audit.bench.ts';

// Where the trail's cost per upload or content read is (docs/benchmarks.md, "Audit trail"): the A/B of
// audit.bench.ts split into its parts, in one process, shuffled short rounds, CPU per request
// (AUDIT_BENCH_CASE=upload, the default, or content: `GET /documents/{id}/content`, rounds of 200):
//
//   stub      no hook, nothing recorded (the A/B's B side)
//   hooks     the real module (hooks, audit scope, the row built), but the record's insert skipped
//             (for reads: the row built, never buffered nor written)
//   no-index  the real module, the table without its secondary indexes (the primary key only)
//   direct    the real module as before `audit_pending`: the record inserted into `audit_records` in the transaction
//   full      the real module (the A/B's A side)
//
// Two apps per variant, made in a palindromic order (creation order falls on every variant alike).
// Cost of a variant = 1 − median per-round (stub + stub') / (variant + variant'), CPU and wall.
//
//   AUDIT_BENCH_ROUNDS=30 node --expose-gc bench/audit/upload-cost.bench.ts [sqlite|postgres]
//   AUDIT_BENCH_COUNT=1 node bench/audit/upload-cost.bench.ts    SQLite statements and WAL pages per request

/** The real module whose in-transaction record builds its row and marks the scope, but writes nothing. */
const hooksOnly = defineModule({
  name: 'audit',
  setup(context) {
    const parts = auditModule.setup(context) as Awaited<ReturnType<typeof auditModule.setup>>;
    const trail = parts.provides?.audit;
    if (!trail) throw new Error('audit module provides no trail');
    // A read's row is built by the hook, then dropped here.
    trail.buffer = () => {};
    trail.recordIn = async (_trx, entry = {}) => {
      const scope = trail.scope();
      const tenantId = entry.tenantId ?? scope?.auth?.tenant.id;
      if (!tenantId) return;
      trail.row({
        tenantId,
        actor: { type: 'user', id: scope?.auth?.userId ?? null },
        action: entry.action ?? 'document.upload',
        targetId: entry.targetId ?? null,
        outcome: 'success',
        origin: scope?.origin ?? null,
      });
      if (scope) scope.recordedInTransaction = true;
    };
    return parts;
  },
});
const HOOKS_ONLY: ModuleDefinition[] = MODULES.map((m) => (m === auditModule ? hooksOnly : m));

/** The real module as before `audit_pending`: the in-transaction record inserted straight into `audit_records`. */
const direct = defineModule({
  name: 'audit',
  setup(context) {
    const parts = auditModule.setup(context) as Awaited<ReturnType<typeof auditModule.setup>>;
    const trail = parts.provides?.audit;
    if (!trail) throw new Error('audit module provides no trail');
    trail.recordIn = async (trx, entry = {}) => {
      const scope = trail.scope();
      const tenantId = entry.tenantId ?? scope?.auth?.tenant.id;
      if (!tenantId || !scope?.auth) return;
      await trail.record(trx, {
        tenantId,
        actor: actorOf(scope.auth),
        action: entry.action ?? 'document.upload',
        targetType: 'document',
        targetId: entry.targetId ?? null,
        outcome: 'success',
        origin: scope.origin,
      });
      scope.recordedInTransaction = true;
    };
    return parts;
  },
});
const DIRECT: ModuleDefinition[] = MODULES.map((m) => (m === auditModule ? direct : m));

const SECONDARY = [
  'audit_records_tenant_at',
  'audit_records_tenant_actor_at',
  'audit_records_tenant_target_type_at',
  'audit_records_tenant_action_at',
  'audit_records_tenant_actor_action_at',
];

async function withoutIndexes(s: Side): Promise<Side> {
  for (const name of SECONDARY) await sql`drop index if exists ${sql.id(name)}`.execute(s.t.container.database.db);
  return s;
}

type Variant = 'stub' | 'hooks' | 'no-index' | 'direct' | 'full';
/** AUDIT_BENCH_VARIANTS=stub,direct,full: a subset (the stub always included, first). */
const VARIANTS: Variant[] = (
  process.env['AUDIT_BENCH_VARIANTS']?.split(',') ?? ['stub', 'hooks', 'no-index', 'direct', 'full']
).filter((v): v is Variant => ['hooks', 'no-index', 'direct', 'full'].includes(v));
VARIANTS.unshift('stub');

async function make(dialect: DialectName, v: Variant): Promise<Side> {
  if (v === 'stub') return side(dialect, WITHOUT_AUDIT);
  if (v === 'hooks') return side(dialect, HOOKS_ONLY);
  if (v === 'no-index') return withoutIndexes(await side(dialect));
  if (v === 'direct') return side(dialect, DIRECT);
  return side(dialect);
}

type Case = 'upload' | 'content';
const CASE: Case = process.env['AUDIT_BENCH_CASE'] === 'content' ? 'content' : 'upload';

/** One request of the case against `s`. */
function requestOf(what: Case, s: Side): (i: number) => Promise<void> {
  if (what === 'upload') return (i) => uploadOnce(s.t, s.tenant, i).then(() => {});
  return async () => {
    const res = await s.t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${s.doc}/content`,
      headers: s.tenant.headers,
    });
    if (res.statusCode !== 200) throw new Error(`content: ${res.statusCode}`);
  };
}

export async function uploadCost(dialect: DialectName, rounds: number, n: number, what: Case = CASE) {
  const order = [...VARIANTS, ...[...VARIANTS].reverse()];
  const apps: { v: Variant; s: Side }[] = [];
  for (const v of order) apps.push({ v, s: await make(dialect, v) });
  try {
    const run = (s: Side) => requestOf(what, s);
    for (const { s } of apps) await round(s, n, run(s));
    const took = new Map<Variant, { wall: number; cpu: number }[]>(VARIANTS.map((v) => [v, []]));
    for (let r = 0; r < rounds; r++) {
      const per = new Map<Variant, { wall: number; cpu: number }>();
      for (const k of orderOf(r, apps.length)) {
        const { v, s } = apps[k]!;
        const t = await round(s, n, run(s));
        const sum = per.get(v) ?? { wall: 0, cpu: 0 };
        per.set(v, { wall: sum.wall + t.wall, cpu: sum.cpu + t.cpu });
      }
      for (const [v, t] of per) took.get(v)!.push(t);
    }
    const pct = (x: number) => Number(((1 - x) * 100).toFixed(1));
    const out: Record<string, unknown> = { dialect, case: what, rounds, requests_per_app_and_round: n };
    const stub = took.get('stub')!;
    for (const v of VARIANTS) {
      const mine = took.get(v)!;
      const figure = (key: 'wall' | 'cpu') => {
        const m = medianWithInterval(mine.map((t, r) => stub[r]![key] / t[key]));
        return { cost_percent: pct(m.median), interval_90: [pct(m.p95), pct(m.p5)] };
      };
      out[v] = {
        cpu_ms_per_request: Number(median(mine.map((t) => (t.cpu * 1000) / (2 * n))).toFixed(3)),
        cpu: figure('cpu'),
        wall: figure('wall'),
      };
    }
    return out;
  } finally {
    for (const { s } of apps) await s.t.close();
  }
}

/** SQLite statements run in this process, by their first word (node:sqlite's statements, counted from here on). */
function countStatements(): Map<string, number> {
  const counts = new Map<string, number>();
  const proto = StatementSync.prototype as unknown as Record<
    'run' | 'all' | 'iterate' | 'get',
    (...a: unknown[]) => unknown
  >;
  for (const method of ['run', 'all', 'iterate', 'get'] as const) {
    const plain = proto[method];
    proto[method] = function counted(this: StatementSync, ...args: unknown[]) {
      const word = /^\s*(\w+)/.exec(this.sourceSQL)?.[1]?.toLowerCase() ?? '?';
      counts.set(word, (counts.get(word) ?? 0) + 1);
      return plain.apply(this, args);
    };
  }
  return counts;
}

/**
 * SQLite, per request of the case, by variant: the statements run (by first word; the flush of the
 * round's records included) and the database pages written (WAL frames), counted with the
 * automatic checkpoint off between a truncating checkpoint and a passive one.
 */
export async function perRequest(n: number, what: Case = CASE) {
  const counts = countStatements();
  const out: Record<string, unknown> = { case: what, requests: n };
  for (const v of VARIANTS) {
    const s = await make('sqlite', v);
    try {
      const db = s.t.container.database.db;
      const one = requestOf(what, s);
      for (let i = 0; i < 20; i++) await one(i);
      await s.t.container.modules.use('audit').flush();
      await sql`pragma wal_autocheckpoint = 0`.execute(db);
      await sql`pragma wal_checkpoint(truncate)`.execute(db);
      counts.clear();
      // In rounds of 8 concurrent callers, as the A/B's, each ended by the trail's flush.
      for (let at = 0; at < n; at += 200) await round(s, Math.min(200, n - at), (i) => one(100 + at + i));
      const statements = Object.fromEntries(
        [...counts].sort((x, y) => y[1] - x[1]).map(([word, c]) => [word, Number((c / n).toFixed(3))]),
      );
      const { rows } = await sql<{ log: number }>`pragma wal_checkpoint(passive)`.execute(db);
      out[v] = {
        statements_per_request: statements,
        wal_pages_per_request: Number((Number(rows[0]?.log ?? 0) / n).toFixed(2)),
      };
    } finally {
      await s.t.close();
    }
  }
  return out;
}

/**
 * One variant's uploads in a loop, for a sampling profiler outside the process (`perf record
 * --control fifo:CTL,ACK --delay=-1`): AUDIT_BENCH_PERF_CTL names perf's control fifo, enabled
 * after the warm-up and disabled after `n` uploads, so the profile holds the uploads only.
 */
async function loop(dialect: DialectName, v: Variant, n: number) {
  const s = await make(dialect, v);
  const ctl = process.env['AUDIT_BENCH_PERF_CTL'];
  const tell = async (what: string) => {
    if (ctl) (await import('node:fs')).writeFileSync(ctl, `${what}\n`);
  };
  try {
    const run = requestOf(CASE, s);
    await round(s, 200, run);
    await tell('enable');
    const started = process.cpuUsage();
    await round(s, n, (i) => run(1000 + i));
    const used = process.cpuUsage(started);
    await tell('disable');
    return {
      variant: v,
      case: CASE,
      requests: n,
      cpu_ms_per_request: Number(((used.user + used.system) / 1000 / n).toFixed(3)),
    };
  } finally {
    await s.t.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const only = process.argv[2];
  const looped = process.env['AUDIT_BENCH_LOOP'] as Variant | undefined;
  if (looped) {
    console.log(
      JSON.stringify(
        await loop((only ?? 'sqlite') as DialectName, looped, Number(process.env['AUDIT_BENCH_UPLOADS'] ?? 2000)),
      ),
    );
    process.exit(0);
  }
  if (process.env['AUDIT_BENCH_PAGES'] || process.env['AUDIT_BENCH_COUNT']) {
    console.log(JSON.stringify(await perRequest(CASE === 'content' ? 1000 : 200)));
    process.exit(0);
  }
  const rounds = Number(process.env['AUDIT_BENCH_ROUNDS'] ?? 30);
  const n = Number(process.env['AUDIT_BENCH_UPLOADS'] ?? (CASE === 'content' ? 200 : 24));
  for (const dialect of DIALECTS.filter((d) => !only || d === only))
    console.log(JSON.stringify(await uploadCost(dialect, rounds, n)));
}
