import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { transferInstance } from '../../src/modules/transfer/instance-transfer.ts';
import { documentRow } from '../../test/support/document-rows.ts';

/*
 * Issue 35's figure: `npm run db:transfer` SQLite -> PostgreSQL against a plain server-side
 * `COPY ... FROM '<file>'` of the same rows into the same migrated schema (foreign keys dropped and
 * triggers disabled there too, so both write the same indexes), measured in the same run.
 * BENCH_TRANSFER_DOCS documents (default 20,000), each with its text (~1.5 KB), 3 passages with a
 * 256-dimension float32 embedding, and an event. Needs the local PostgreSQL server (superuser,
 * for server-side COPY files). BENCH_TRANSFER_ROUNDS rounds (default 3), transfer and COPY
 * alternating, medians; the transfer's copy-and-verify phase is timed from its progress lines.
 */
const DOCS = Number(process.env['BENCH_TRANSFER_DOCS'] ?? 20_000);
const ADMIN = process.env['TEST_DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';
const WORDS =
  'invoice contract payment quarterly audit hiking summit recipe chocolate salary notice clause employee account report budget travel meeting'.split(
    ' ',
  );

function text(i: number, words: number): string {
  let s = '';
  for (let w = 0; w < words; w++) s += `${WORDS[(i * 7 + w * 13) % WORDS.length]}${w % 9 === 0 ? ` ${i}-${w}` : ''} `;
  return s;
}

function fill(file: string): number {
  const raw = new DatabaseSync(file);
  const now = Date.now();
  const tenant = 'bench-tenant';
  raw
    .prepare(
      `insert into tenants (id, name, subdomain, tier, status, cors_origins, created_at, updated_at) values (?, 'Bench', 'bench', 'team', 'active', '[]', ?, ?)`,
    )
    .run(tenant, now, now);
  const row = documentRow(tenant, 'x');
  const columns = Object.keys(row);
  const insertDoc = raw.prepare(
    `insert into documents (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
  );
  const insertContent = raw.prepare(
    'insert into document_contents (document_id, tenant_id, content, pages, created_at) values (?, ?, ?, 1, ?)',
  );
  const insertChunk = raw.prepare(
    'insert into document_chunks (document_id, chunk_index, tenant_id, page, text, embedding, embedding_model, created_at) values (?, ?, ?, 1, ?, ?, ?, ?)',
  );
  const insertEvent = raw.prepare(
    `insert into events (id, tenant_id, name, data, created_at) values (?, ?, 'document.uploaded', ?, ?)`,
  );
  const embedding = new Float32Array(256);
  raw.exec('begin');
  for (let i = 0; i < DOCS; i++) {
    const id = `doc-${String(i).padStart(7, '0')}`;
    insertDoc.run(
      ...(Object.values(documentRow(tenant, id, { created_at: now + i, updated_at: now + i })) as SQLInputValue[]),
    );
    const body = text(i, 200);
    insertContent.run(id, tenant, body, now + i);
    for (let c = 0; c < 3; c++) {
      for (let d = 0; d < embedding.length; d++) embedding[d] = Math.sin(i * 31 + c * 7 + d);
      insertChunk.run(
        id,
        c,
        tenant,
        body.slice(c * 400, c * 400 + 400),
        new Uint8Array(embedding.buffer.slice(0)),
        'local-hash-256',
        now + i,
      );
    }
    insertEvent.run(`evt-${i}`, tenant, JSON.stringify({ document_id: id, filename: `${id}.txt` }), now + i);
    if (i % 5_000 === 4_999) raw.exec('commit; begin');
  }
  raw.exec('commit');
  const rows = (
    raw
      .prepare(
        `select (select count(*) from documents) + (select count(*) from document_contents) + (select count(*) from document_chunks) + (select count(*) from events) + 1 as n`,
      )
      .get() as { n: number }
  ).n;
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
  await withAdmin((c) =>
    c.query(`drop database if exists ${name} with (force)`).then(() => c.query(`create database ${name}`)),
  );
  const u = new URL(ADMIN);
  u.pathname = `/${name}`;
  return u.toString();
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

/** The transfer into a fresh database, timed by phase from its progress lines. */
async function timedTransfer(dir: string, url: string) {
  const marks: Record<string, number> = {};
  const t0 = performance.now();
  const reports = await transferInstance({
    from: { dataDir: dir },
    to: { url },
    progress: (line) => {
      const at = performance.now() - t0;
      if (line.startsWith('copying ')) marks['copy'] = at;
      else if (line.startsWith('verifying')) marks['verify'] = at;
      else if (line.startsWith('restoring ')) marks['restore'] = at;
      // The first derived table's line: the later ones come after the full-text rebuild.
      else if (line.startsWith('rebuilding ')) marks['rebuild'] ??= at;
    },
  });
  const total = performance.now() - t0;
  if (!reports.every((r) => r.ok)) throw new Error('transfer not verified');
  return {
    total,
    setup: marks['copy']!,
    copyAndVerify: marks['rebuild']! - marks['copy']!,
    verify: marks['restore']! - marks['verify']!,
    restore: marks['rebuild']! - marks['restore']!,
    rebuild: total - marks['rebuild']!,
  };
}

/** A plain server-side COPY of the same rows into a freshly migrated database (foreign keys dropped, triggers off, as the transfer has them). */
async function timedCopy(dir: string, url: string, csvDir: string, tables: string[]) {
  const database = openDatabase({ url, dataDir: dir, pipelinedConnections: 0, preparedStatements: false });
  try {
    await migrateToLatest(database.db);
    const pool = database.pgPool!;
    const fks = (
      await pool.query<{ t: string; n: string }>(
        `select c.relname as t, k.conname as n from pg_constraint k join pg_class c on c.oid = k.conrelid where k.contype = 'f'`,
      )
    ).rows;
    for (const fk of fks) await pool.query(`alter table "${fk.t}" drop constraint "${fk.n}"`);
    for (const table of tables) await pool.query(`alter table "${table}" disable trigger user`);
    const t = performance.now();
    for (const table of tables) await pool.query(`copy "${table}" from '${csvDir}/${table}.csv' with (format csv)`);
    return performance.now() - t;
  } finally {
    await database.destroy();
  }
}

export async function run() {
  const ROUNDS = Number(process.env['BENCH_TRANSFER_ROUNDS'] ?? 3);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bench-transfer-'));
  const csvDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bench-copy-'));
  fs.chmodSync(csvDir, 0o777);
  const names: string[] = [];
  const fresh = async (kind: string) => {
    const name = `dms_bench_${kind}_${process.pid}_${names.length}`;
    names.push(name);
    return createDb(name);
  };
  try {
    const source = openDatabase({ url: null, dataDir: dir });
    await migrateToLatest(source.db);
    await source.destroy();
    const rows = fill(path.join(dir, 'service.db'));

    // The rows COPY loads: what the first transfer wrote, dumped to files the server reads.
    const first = await fresh('transfer');
    const transfers = [await timedTransfer(dir, first)];
    const pool = new pg.Pool({ connectionString: first, max: 1 });
    const tables: string[] = [];
    for (const r of (
      await pool.query<{ relname: string }>(
        `select relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and relkind = 'r' and relname not in ('kysely_migration', 'kysely_migration_lock', 'service_instances', 'search_documents')`,
      )
    ).rows) {
      if ((await pool.query(`select 1 from "${r.relname}" limit 1`)).rowCount) tables.push(r.relname);
    }
    for (const table of tables) await pool.query(`copy "${table}" to '${csvDir}/${table}.csv' with (format csv)`);
    await pool.end();

    // Alternate the two so that the machine's load falls on both alike; medians.
    const copies = [await timedCopy(dir, await fresh('copy'), csvDir, tables)];
    for (let round = 1; round < ROUNDS; round++) {
      transfers.push(await timedTransfer(dir, await fresh('transfer')));
      copies.push(await timedCopy(dir, await fresh('copy'), csvDir, tables));
    }
    const copyAndVerify = median(transfers.map((t) => t.copyAndVerify));
    const copy = median(copies);
    return {
      documents: DOCS,
      rows,
      rounds: ROUNDS,
      plain_copy_ms: copies.map(Math.round),
      transfer_copy_and_verify_ms: transfers.map((t) => Math.round(t.copyAndVerify)),
      transfer_verify_ms: transfers.map((t) => Math.round(t.verify)),
      transfer_restore_ms: transfers.map((t) => Math.round(t.restore)),
      transfer_setup_ms: transfers.map((t) => Math.round(t.setup)),
      transfer_fulltext_rebuild_ms: transfers.map((t) => Math.round(t.rebuild)),
      transfer_total_ms: transfers.map((t) => Math.round(t.total)),
      ratio_copy_vs_transfer_copy_and_verify: Number((copy / copyAndVerify).toFixed(2)),
      ratio_copy_vs_transfer_total: Number((copy / median(transfers.map((t) => t.total))).toFixed(2)),
      transfer_rows_per_s: Math.round(rows / (copyAndVerify / 1000)),
      bench_process_rss_mb: Math.round(process.memoryUsage().rss / 1048576),
    };
  } finally {
    for (const name of names)
      await withAdmin((c) => c.query(`drop database if exists ${name} with (force)`)).catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(csvDir, { recursive: true, force: true });
  }
}
