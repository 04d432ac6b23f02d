import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { DERIVED_TABLES } from '../../src/db/transfer/derived.ts';
import { transferInstance } from '../../src/modules/transfer/instance-transfer.ts';
import { documentRow } from '../../test/support/document-rows.ts';

/*
 * Issue 35's figure: `npm run db:transfer` SQLite -> PostgreSQL against a plain server-side
 * `COPY ... FROM '<file>'` of the same rows into the same migrated schema (foreign keys dropped and
 * triggers disabled there too, so both write the same indexes), measured in the same run.
 * BENCH_TRANSFER_DOCS documents (default 20,000), each with its text (~1.5 KB), 3 passages with a
 * 256-dimension float32 embedding, and an event. Needs the local PostgreSQL server (superuser,
 * for server-side COPY files).
 */
const DOCS = Number(process.env['BENCH_TRANSFER_DOCS'] ?? 20_000);
const ADMIN = process.env['TEST_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';
const WORDS = 'invoice contract payment quarterly audit hiking summit recipe chocolate salary notice clause employee account report budget travel meeting'.split(' ');

function text(i: number, words: number): string {
  let s = '';
  for (let w = 0; w < words; w++) s += `${WORDS[(i * 7 + w * 13) % WORDS.length]}${w % 9 === 0 ? ` ${i}-${w}` : ''} `;
  return s;
}

export function fill(file: string): number {
  const raw = new DatabaseSync(file);
  const now = Date.now();
  const tenant = 'bench-tenant';
  raw.prepare(`insert into tenants (id, name, subdomain, tier, status, cors_origins, created_at, updated_at) values (?, 'Bench', 'bench', 'team', 'active', '[]', ?, ?)`).run(tenant, now, now);
  const row = documentRow(tenant, 'x');
  const columns = Object.keys(row);
  const insertDoc = raw.prepare(`insert into documents (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
  const insertContent = raw.prepare('insert into document_contents (document_id, tenant_id, content, pages, created_at) values (?, ?, ?, 1, ?)');
  const insertChunk = raw.prepare('insert into document_chunks (document_id, chunk_index, tenant_id, page, text, embedding, embedding_model, created_at) values (?, ?, ?, 1, ?, ?, ?, ?)');
  const insertEvent = raw.prepare(`insert into events (id, tenant_id, name, data, created_at) values (?, ?, 'document.uploaded', ?, ?)`);
  const embedding = new Float32Array(256);
  raw.exec('begin');
  for (let i = 0; i < DOCS; i++) {
    const id = `doc-${String(i).padStart(7, '0')}`;
    insertDoc.run(...(Object.values(documentRow(tenant, id, { created_at: now + i, updated_at: now + i })) as SQLInputValue[]));
    const body = text(i, 200);
    insertContent.run(id, tenant, body, now + i);
    for (let c = 0; c < 3; c++) {
      for (let d = 0; d < embedding.length; d++) embedding[d] = Math.sin(i * 31 + c * 7 + d);
      insertChunk.run(id, c, tenant, body.slice(c * 400, c * 400 + 400), new Uint8Array(embedding.buffer.slice(0)), 'local-hash-256', now + i);
    }
    insertEvent.run(`evt-${i}`, tenant, JSON.stringify({ document_id: id, filename: `${id}.txt` }), now + i);
    if (i % 5_000 === 4_999) raw.exec('commit; begin');
  }
  raw.exec('commit');
  const rows = (raw.prepare(`select (select count(*) from documents) + (select count(*) from document_contents) + (select count(*) from document_chunks) + (select count(*) from events) + 1 as n`).get() as { n: number }).n;
  raw.close();
  return rows;
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function createDb(name: string): Promise<string> {
  await withAdmin((c) => c.query(`drop database if exists ${name} with (force)`).then(() => c.query(`create database ${name}`)));
  const u = new URL(ADMIN);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bench-transfer-'));
  const csvDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bench-copy-'));
  fs.chmodSync(csvDir, 0o777);
  const names = [`dms_bench_transfer_${process.pid}`, `dms_bench_copy_${process.pid}`];
  try {
    const source = openDatabase({ url: null, dataDir: dir });
    await migrateToLatest(source.db);
    await source.destroy();
    let t = performance.now();
    const rows = fill(path.join(dir, 'service.db'));
    const fillMs = performance.now() - t;

    // The transfer, end to end (migrating the target, copying, verifying, rebuilding the full-text index).
    const target = await createDb(names[0]!);
    t = performance.now();
    const reports = await transferInstance({ from: { dataDir: dir }, to: { url: target } });
    const transferMs = performance.now() - t;
    if (!reports.every((r) => r.ok)) throw new Error('transfer not verified');
    const rss = process.memoryUsage().rss;

    // Its parts that a COPY does not do: migrating an empty database, rebuilding the derived index.
    const pool = new pg.Pool({ connectionString: target, max: 1 });
    t = performance.now();
    for (const statement of DERIVED_TABLES['search_documents']!.postgres) await pool.query(statement);
    const rebuildMs = performance.now() - t;
    const tables = (await pool.query<{ relname: string }>(`select relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and relkind = 'r' and relname not in ('kysely_migration', 'kysely_migration_lock', 'service_instances', 'search_documents') and exists (select 1 from pg_class x where x.oid = c.oid and reltuples <> 0)`)).rows.map((r) => r.relname);
    const nonEmpty: string[] = [];
    for (const table of tables) if ((await pool.query(`select 1 from "${table}" limit 1`)).rowCount) nonEmpty.push(table);
    for (const table of nonEmpty) await pool.query(`copy "${table}" to '${csvDir}/${table}.csv' with (format csv)`);
    await pool.end();

    const baseline = await createDb(names[1]!);
    const db2 = openDatabase({ url: baseline, dataDir: dir, pipelinedConnections: 0, preparedStatements: false });
    t = performance.now();
    await migrateToLatest(db2.db);
    const migrateMs = performance.now() - t;
    const p2 = db2.pgPool!;
    const fks = (await p2.query<{ t: string; n: string }>(`select c.relname as t, k.conname as n from pg_constraint k join pg_class c on c.oid = k.conrelid where k.contype = 'f'`)).rows;
    for (const fk of fks) await p2.query(`alter table "${fk.t}" drop constraint "${fk.n}"`);
    for (const table of nonEmpty) await p2.query(`alter table "${table}" disable trigger user`);
    t = performance.now();
    for (const table of nonEmpty) await p2.query(`copy "${table}" from '${csvDir}/${table}.csv' with (format csv)`);
    const copyMs = performance.now() - t;
    await db2.destroy();

    const copyAndVerifyMs = transferMs - migrateMs - rebuildMs;
    return {
      documents: DOCS,
      rows,
      fill_ms: Math.round(fillMs),
      transfer_total_ms: Math.round(transferMs),
      of_which_migrate_ms: Math.round(migrateMs),
      of_which_fulltext_rebuild_ms: Math.round(rebuildMs),
      transfer_copy_and_verify_ms: Math.round(copyAndVerifyMs),
      plain_copy_ms: Math.round(copyMs),
      ratio_copy_vs_transfer_copy_and_verify: Number((copyMs / copyAndVerifyMs).toFixed(2)),
      ratio_copy_vs_transfer_total: Number((copyMs / transferMs).toFixed(2)),
      rows_per_s: Math.round(rows / (copyAndVerifyMs / 1000)),
      rss_mb_after: Math.round(rss / 1048576),
    };
  } finally {
    for (const name of names) await withAdmin((c) => c.query(`drop database if exists ${name} with (force)`)).catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(csvDir, { recursive: true, force: true });
  }
}
