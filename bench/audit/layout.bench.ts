import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { newId } from '../../src/lib/ids.ts';
import { median } from '../support.ts';
import { medianWithInterval, orderOf } from './audit.bench.ts';

// The SQLite cost of the upload's audit record by table layout, without the service around it
// (docs/benchmarks.md, "Fewer B-trees"): each layout has its own database file (WAL, synchronous
// NORMAL, as the service opens it); an "upload" is one write transaction of filler rows (a
// document-like row with four indexes) plus, for the layouts that record, the audit row; every
// 24 uploads the trail's flush moves the pending rows (one transaction: insert … select, delete).
// A flush of 200 buffered reads (one transaction of 200 inserts into the trail) follows each
// round, measured apart. Shuffled rounds, CPU per upload (process.cpuUsage), cost = the layout's minus the filler's,
// median of per-round differences. Load-independent enough to compare layouts, not to give the
// service's absolute figure.
//
//   node bench/audit/layout.bench.ts                 LAYOUT_BENCH_ROUNDS=60 LAYOUT_BENCH_ROWS=200000

const COLUMNS =
  'id, tenant_id, at, actor_type, actor_id, action, target_type, target_id, outcome, status, ip, user_agent, request_id, details';
const COLUMN_DDL = `id text not null, tenant_id text not null, at integer not null, actor_type text not null,
  actor_id text, action text not null, target_type text, target_id text, outcome text not null,
  status integer, ip text, user_agent text, request_id text, details text`;

/** The four lookup indexes every layout keeps (actor, document, action, actor + action). */
const LOOKUPS = `
  create index audit_records_tenant_actor_at on audit_records (tenant_id, actor_id, at, id);
  create index audit_records_tenant_target_type_at on audit_records (tenant_id, target_id, target_type, at, id);
  create index audit_records_tenant_action_at on audit_records (tenant_id, action, at, id);
  create index audit_records_tenant_actor_action_at on audit_records (tenant_id, actor_id, action, at, id);`;

/** The trail as on main: a rowid table, its `id` key, `(tenant_id, at, id)` and the four lookups (seven B-trees). */
const RECORDS_7 = `create table audit_records (${COLUMN_DDL}, primary key (id));
  create index audit_records_tenant_at on audit_records (tenant_id, at, id); ${LOOKUPS}`;
/** Clustered: the table is its key `(tenant_id, at, id)` (five B-trees). */
const RECORDS_5 = `create table audit_records (${COLUMN_DDL}, primary key (tenant_id, at, id)) without rowid; ${LOOKUPS}`;
const PENDING_ROWID = `create table audit_pending (${COLUMN_DDL}, primary key (id));`;
const PENDING_CLUSTERED = `create table audit_pending (${COLUMN_DDL}, primary key (id)) without rowid;`;

interface Layout {
  name: string;
  ddl: string;
  /** Where the upload writes its record: nowhere, the pending table, or the trail. */
  into: null | 'audit_pending' | 'audit_records';
}

const LAYOUTS: Layout[] = [
  { name: 'none', ddl: RECORDS_7, into: null },
  { name: 'main: pending (rowid) → 7 B-trees', ddl: RECORDS_7 + PENDING_ROWID, into: 'audit_pending' },
  { name: 'pending (clustered) → 7 B-trees', ddl: RECORDS_7 + PENDING_CLUSTERED, into: 'audit_pending' },
  { name: 'pending (clustered) → 5 B-trees', ddl: RECORDS_5 + PENDING_CLUSTERED, into: 'audit_pending' },
  { name: 'direct → 7 B-trees', ddl: RECORDS_7, into: 'audit_records' },
  { name: 'direct → 5 B-trees', ddl: RECORDS_5, into: 'audit_records' },
];

const FILLER = `create table docs (id text primary key, tenant_id text not null, name text not null, hash text not null,
    created_at integer not null, body text);
  create index docs_tenant_created on docs (tenant_id, created_at, id);
  create index docs_tenant_name on docs (tenant_id, name);
  create index docs_hash on docs (tenant_id, hash);`;

const TENANT = newId();
const ACTOR = newId();
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

function record(at: number): unknown[] {
  return [
    newId(at),
    TENANT,
    at,
    'user',
    ACTOR,
    'document.upload',
    'document',
    newId(at),
    'success',
    null,
    '203.0.113.7',
    UA,
    `req-${at.toString(36)}`,
    null,
  ];
}

interface Db {
  layout: Layout;
  raw: DatabaseSync;
  upload: (i: number) => void;
  flush: () => void;
  /** A flush of `n` buffered reads: one transaction of inserts into the trail. */
  reads: (n: number) => void;
}

function open(dir: string, layout: Layout, rows: number): Db {
  const raw = new DatabaseSync(path.join(dir, `${layout.name.replace(/\W+/g, '_')}.db`));
  raw.exec('pragma journal_mode = wal; pragma synchronous = normal;');
  raw.exec(FILLER + layout.ddl);
  // The trail's history: `rows` records over the last days, so its B-trees have their depth.
  const seed = raw.prepare(`insert into audit_records (${COLUMNS}) values (${COLUMNS.replace(/\w+/g, '?')})`);
  const start = Date.now() - rows * 1_000;
  raw.exec('begin');
  for (let i = 0; i < rows; i++) seed.run(...(record(start + i * 1_000) as never[]));
  raw.exec('commit');
  const doc = raw.prepare('insert into docs values (?, ?, ?, ?, ?, ?)');
  const audit = layout.into
    ? raw.prepare(`insert into ${layout.into} (${COLUMNS}) values (${COLUMNS.replace(/\w+/g, '?')})`)
    : null;
  const pending = layout.into === 'audit_pending';
  const copy = pending
    ? raw.prepare(`insert into audit_records (${COLUMNS}) select ${COLUMNS} from audit_pending`)
    : null;
  const probe = layout.into === 'audit_pending' ? raw.prepare('select id from audit_pending limit 1') : null;
  const clear = layout.into === 'audit_pending' ? raw.prepare('delete from audit_pending') : null;
  const body = 'x'.repeat(600);
  const trail = raw.prepare(`insert into audit_records (${COLUMNS}) values (${COLUMNS.replace(/\w+/g, '?')})`);
  return {
    layout,
    raw,
    reads(n) {
      const at = Date.now();
      raw.exec('begin immediate');
      for (let i = 0; i < n; i++) {
        const row = record(at);
        row[5] = 'document.content';
        trail.run(...(row as never[]));
      }
      raw.exec('commit');
    },
    upload(i) {
      const at = Date.now();
      raw.exec('begin immediate');
      doc.run(newId(at), TENANT, `note-${i}-${Math.random()}.txt`, Math.random().toString(36), at, body);
      audit?.run(...(record(at) as never[]));
      raw.exec('commit');
    },
    flush() {
      if (!probe || !clear || !copy) return;
      if (probe.all().length === 0) return;
      raw.exec('begin immediate');
      copy.run();
      clear.run();
      raw.exec('commit');
    },
  };
}

function pagesPerUpload(db: Db, uploads: number): number {
  db.raw.exec('pragma wal_autocheckpoint = 0; pragma wal_checkpoint(truncate);');
  for (let i = 0; i < uploads; i++) {
    db.upload(i);
    if (i % 24 === 23) db.flush();
  }
  db.flush();
  const row = db.raw.prepare('pragma wal_checkpoint(passive)').get() as { log: number };
  db.raw.exec('pragma wal_autocheckpoint = 1000');
  return row.log / uploads;
}

/** WAL pages per record of flushes of `n` reads. */
function pagesPerRead(db: Db, flushes: number, n: number): number {
  db.raw.exec('pragma wal_autocheckpoint = 0; pragma wal_checkpoint(truncate);');
  for (let i = 0; i < flushes; i++) db.reads(n);
  const row = db.raw.prepare('pragma wal_checkpoint(passive)').get() as { log: number };
  db.raw.exec('pragma wal_autocheckpoint = 1000');
  return row.log / (flushes * n);
}

export function layoutCost(rounds: number, rows: number, perRound = 24) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-layout-'));
  try {
    const dbs = LAYOUTS.map((l) => open(dir, l, rows));
    const pages = dbs.map((d) => pagesPerUpload(d, 480));
    const readPages = dbs.map((d) => pagesPerRead(d, 10, 200));
    const cpu: number[][] = dbs.map(() => []);
    const readCpu: number[][] = dbs.map(() => []);
    for (let r = -3; r < rounds; r++) {
      for (const k of orderOf(r + 3, dbs.length)) {
        const d = dbs[k]!;
        const before = process.cpuUsage();
        for (let i = 0; i < perRound; i++) d.upload(r * perRound + i);
        d.flush();
        const used = process.cpuUsage(before);
        if (r >= 0) cpu[k]!.push((used.user + used.system) / perRound);
        const started = process.cpuUsage();
        d.reads(200);
        const read = process.cpuUsage(started);
        if (r >= 0) readCpu[k]!.push((read.user + read.system) / 200);
      }
    }
    const out: Record<string, unknown> = { rounds, rows, uploads_per_round: perRound };
    dbs.forEach((d, k) => {
      const diff = medianWithInterval(cpu[k]!.map((c, r) => c - cpu[0]![r]!));
      out[d.layout.name] = {
        cpu_us_per_upload: Math.round(median(cpu[k]!)),
        over_none_us: [Math.round(diff.p5), Math.round(diff.median), Math.round(diff.p95)],
        wal_pages_per_upload: Number(pages[k]!.toFixed(2)),
        read_flush_cpu_us_per_record: Number(median(readCpu[k]!).toFixed(1)),
        read_flush_wal_pages_per_record: Number(readPages[k]!.toFixed(3)),
      };
    });
    for (const d of dbs) d.raw.close();
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  console.log(
    JSON.stringify(
      layoutCost(Number(process.env['LAYOUT_BENCH_ROUNDS'] ?? 60), Number(process.env['LAYOUT_BENCH_ROWS'] ?? 200_000)),
      null,
      2,
    ),
  );
