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

// Where the trail's cost per upload is (docs/benchmarks.md, "Audit trail"): the A/B of
// audit.bench.ts split into its parts, in one process, shuffled short rounds, CPU per upload:
//
//   stub      no hook, nothing recorded (the A/B's B side)
//   hooks     the real module (hooks, audit scope, the row built), but the record's insert skipped
//   no-index  the real module, the table without its secondary indexes (the primary key only)
//   direct    the real module as before `audit_pending`: the record inserted into `audit_records` in the transaction
//   full      the real module (the A/B's A side)
//
// Two apps per variant, made in a palindromic order (creation order falls on every variant alike).
// Cost of a variant = 1 − median per-round (stub + stub') / (variant + variant'), CPU and wall.
//
//   AUDIT_BENCH_ROUNDS=30 node --expose-gc bench/audit/upload-cost.bench.ts [sqlite|postgres]

/** The real module whose in-transaction record builds its row and marks the scope, but writes nothing. */
const hooksOnly = defineModule({
  name: 'audit',
  setup(context) {
    const parts = auditModule.setup(context) as Awaited<ReturnType<typeof auditModule.setup>>;
    const trail = parts.provides?.audit;
    if (!trail) throw new Error('audit module provides no trail');
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

export async function uploadCost(dialect: DialectName, rounds: number, n: number) {
  const order = [...VARIANTS, ...[...VARIANTS].reverse()];
  const apps: { v: Variant; s: Side }[] = [];
  for (const v of order) apps.push({ v, s: await make(dialect, v) });
  try {
    const run = (s: Side) => (i: number) => uploadOnce(s.t, s.tenant, i).then(() => {});
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
    const out: Record<string, unknown> = { dialect, rounds, uploads_per_app_and_round: n };
    const stub = took.get('stub')!;
    for (const v of VARIANTS) {
      const mine = took.get(v)!;
      const figure = (key: 'wall' | 'cpu') => {
        const m = medianWithInterval(mine.map((t, r) => stub[r]![key] / t[key]));
        return { cost_percent: pct(m.median), interval_90: [pct(m.p95), pct(m.p5)] };
      };
      out[v] = {
        cpu_ms_per_upload: Number(median(mine.map((t) => (t.cpu * 1000) / (2 * n))).toFixed(3)),
        cpu: figure('cpu'),
        wall: figure('wall'),
      };
    }
    return out;
  } finally {
    for (const { s } of apps) await s.t.close();
  }
}

/**
 * SQLite: database pages written per upload (WAL frames), by variant: what each upload's commit
 * writes, counted with the automatic checkpoint off between a truncating checkpoint and a passive one.
 */
export async function pagesPerUpload(n: number) {
  const out: Record<string, number> = {};
  for (const v of VARIANTS) {
    const s = await make('sqlite', v);
    try {
      const db = s.t.container.database.db;
      for (let i = 0; i < 20; i++) await uploadOnce(s.t, s.tenant, i);
      await sql`pragma wal_autocheckpoint = 0`.execute(db);
      await sql`pragma wal_checkpoint(truncate)`.execute(db);
      for (let i = 0; i < n; i++) await uploadOnce(s.t, s.tenant, 100 + i);
      const { rows } = await sql<{ log: number }>`pragma wal_checkpoint(passive)`.execute(db);
      out[v] = Number((Number(rows[0]?.log ?? 0) / n).toFixed(2));
    } finally {
      await s.t.close();
    }
  }
  return { wal_pages_per_upload: out };
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
    const run = (i: number) => uploadOnce(s.t, s.tenant, i).then(() => {});
    await round(s, 200, run);
    await tell('enable');
    const started = process.cpuUsage();
    await round(s, n, (i) => run(1000 + i));
    const used = process.cpuUsage(started);
    await tell('disable');
    return { variant: v, uploads: n, cpu_ms_per_upload: Number(((used.user + used.system) / 1000 / n).toFixed(3)) };
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
  if (process.env['AUDIT_BENCH_PAGES']) {
    console.log(JSON.stringify(await pagesPerUpload(100)));
    process.exit(0);
  }
  const rounds = Number(process.env['AUDIT_BENCH_ROUNDS'] ?? 30);
  const n = Number(process.env['AUDIT_BENCH_UPLOADS'] ?? 24);
  for (const dialect of DIALECTS.filter((d) => !only || d === only))
    console.log(JSON.stringify(await uploadCost(dialect, rounds, n)));
}
