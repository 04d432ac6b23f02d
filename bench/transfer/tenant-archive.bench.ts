import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SQLInputValue } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config/config.ts';
import { createContainer } from '../../src/container.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { importTenantArchive } from '../../src/modules/transfer/tenant-archive/archive-reader.ts';
import { writeTenantArchive } from '../../src/modules/transfer/tenant-archive/archive-writer.ts';
import { documentRow } from '../../test/support/document-rows.ts';
import { median } from '../support.ts';

/*
 * Issue 35's figure for tenant export and import: a tenant of BENCH_ARCHIVE_DOCS documents
 * (default 1,000) of BENCH_ARCHIVE_DOC_KB each (default 500 KB: 500 MB in all; each with its text
 * and 3 passages with a 256-dimension embedding), on SQLite and the local blob folder. Timed, in
 * the same run, BENCH_ARCHIVE_ROUNDS rounds (default 3), medians:
 *   - the baseline: a plain copy of the same bytes (every document's blob read and written to a
 *     new key of the same store, one after another: what any export or import must at least do);
 *   - the export: writeTenantArchive (rows to NDJSON, then the tar streamed into the blob store);
 *   - the import: importTenantArchive from the archive file (checked, files stored, rows in one
 *     transaction, ids remapped since the source tenant still exists).
 * The ratio is baseline time / measured time (1.0 = as fast as the plain copy). RSS is sampled
 * every 50 ms during each phase (the bench process: service and data in one process; with
 * BENCH_ARCHIVE_CHILD=1, a process of its own that runs only the export or the import).
 */
const DOCS = Number(process.env['BENCH_ARCHIVE_DOCS'] ?? 1_000);
const DOC_BYTES = Number(process.env['BENCH_ARCHIVE_DOC_KB'] ?? 500) * 1024;
const ROUNDS = Number(process.env['BENCH_ARCHIVE_ROUNDS'] ?? 3);
/** `0` skips the per-blob copy baseline (slow at 5 GB); the `cp -r` baseline always runs. */
const PUT_BASELINE = process.env['BENCH_ARCHIVE_PUT_BASELINE'] !== '0';

/** `cp -r src dst` under /usr/bin/time: milliseconds and cp's peak RSS (MB). */
function cpR(src: string, dst: string): Promise<{ ms: number; peakRssMb: number }> {
  const start = performance.now();
  return new Promise((resolve, reject) =>
    execFile('/usr/bin/time', ['-f', '%M', 'cp', '-r', src, dst], (error, _stdout, stderr) => {
      if (error) return reject(error);
      const kb = Number(/(\d+)\s*$/.exec(stderr.trim())?.[1] ?? 0);
      resolve({ ms: performance.now() - start, peakRssMb: Math.round(kb / 1024) });
    }),
  );
}
/**
 * BENCH_ARCHIVE_CHILD=1: export and import run in a process of their own with the worker's memory
 * settings (archive-child.ts), timed and sampled there: the RSS is then the service's own, not
 * this process's, which also holds the generated tenant.
 */
const CHILD = process.env['BENCH_ARCHIVE_CHILD'] === '1';

interface ChildResult {
  ms: number;
  detail: unknown;
  idle_rss_mb: number;
  peak_rss_mb: number;
  [figure: string]: unknown;
}

function inChild(dataDir: string, args: string[]): Promise<ChildResult> {
  const script = fileURLToPath(new URL('./archive-child.ts', import.meta.url));
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--max-semi-space-size=4', script, dataDir, ...args],
      { env: { ...process.env, MALLOC_ARENA_MAX: '2' }, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${args[0]} in a child: ${error.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ChildResult);
      },
    ),
  );
}

const log = (message: string) => process.stderr.write(`${new Date().toISOString()} ${message}\n`);

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; peakRssMb: number; value: T }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  const start = performance.now();
  try {
    const value = await work();
    return {
      ms: performance.now() - start,
      peakRssMb: Math.round(Math.max(peak, process.memoryUsage.rss()) / 2 ** 20),
      value,
    };
  } finally {
    clearInterval(timer);
  }
}

export async function run() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-archive-'));
  const config = loadConfig({ DATA_DIR: dataDir, ADMIN_API_KEY: 'bench-admin-key-0123456789', LOG_LEVEL: 'silent' });
  const container = await createContainer(config);
  await migrateToLatest(container.database.db);
  const { database, blobs } = container;
  const db = database.db;
  try {
    const tenant = 'bench-archive-tenant';
    const now = Date.now();
    await sql`insert into tenants (id, name, subdomain, tier, status, cors_origins, created_at, updated_at) values (${tenant}, 'Bench', 'bench', 'enterprise', 'active', '[]', ${now}, ${now})`.execute(
      db,
    );
    const embedding = new Float32Array(256);
    const body = randomBytes(DOC_BYTES);
    for (let i = 0; i < DOCS; i++) {
      if (i % 1000 === 0) log(`generating document ${i} of ${DOCS}`);
      const id = `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`;
      // Each file differs (its first bytes), as real files do.
      body.writeUInt32BE(i, 0);
      const key = `tenants/${tenant}/documents/${id}`;
      const stored = await blobs.put(
        key,
        (async function* () {
          yield body;
        })() as unknown as import('node:stream').Readable,
      );
      const row = {
        ...documentRow(tenant, id, { created_at: now + i, updated_at: now + i }),
        storage_key: key,
        file_size: stored.size,
        sha256: stored.sha256,
      };
      const columns = Object.keys(row);
      await sql`insert into documents (${sql.join(columns.map((c) => sql.ref(c)))}) values (${sql.join(Object.values(row) as SQLInputValue[])})`.execute(
        db,
      );
      const text = `document ${i} invoice contract payment `.repeat(40);
      await sql`insert into document_contents (document_id, tenant_id, content, pages, created_at) values (${id}, ${tenant}, ${text}, 1, ${now})`.execute(
        db,
      );
      for (let c = 0; c < 3; c++) {
        for (let d = 0; d < embedding.length; d++) embedding[d] = Math.sin(i * 31 + c * 7 + d);
        await sql`insert into document_chunks (document_id, chunk_index, tenant_id, page, text, embedding, embedding_model, created_at) values (${id}, ${c}, ${tenant}, 1, ${text.slice(0, 400)}, ${Buffer.from(embedding.buffer.slice(0))}, 'local-hash-256', ${now})`.execute(
          db,
        );
      }
    }
    const keys = (
      await sql<{ storage_key: string }>`select storage_key from documents where tenant_id = ${tenant}`.execute(db)
    ).rows.map((r) => r.storage_key);
    const totalBytes = DOCS * DOC_BYTES;

    const idleRssMb = Math.round(process.memoryUsage.rss() / 2 ** 20);
    const baseline: number[] = [];
    const exports: number[] = [];
    const imports: number[] = [];
    let exportRss = 0;
    let importRss = 0;
    let archiveBytes = 0;
    const deps = { database, blobs, now: () => Date.now() };
    const cps: number[] = [];
    let cpRss = 0;
    const child: Record<string, unknown>[] = [];
    const tenantFolder = path.join(dataDir, 'blobs', 'tenants', tenant, 'documents');
    const settle = () => execFileSync('sync');
    for (let round = 0; round < ROUNDS; round++) {
      settle();
      log(`round ${round}: cp -r`);
      const cp = await cpR(tenantFolder, path.join(dataDir, `cp-copy-${round}`));
      cps.push(cp.ms);
      cpRss = Math.max(cpRss, cp.peakRssMb);
      fs.rmSync(path.join(dataDir, `cp-copy-${round}`), { recursive: true, force: true });
      if (PUT_BASELINE) {
        settle();
        log(`round ${round}: per-blob copy`);
        const copy = await timed(async () => {
          for (const key of keys) await blobs.put(`bench-copy/${round}/${key}`, await blobs.get(key));
        });
        baseline.push(copy.ms);
        for (const key of keys) await blobs.delete(`bench-copy/${round}/${key}`);
      }
      settle();
      log(`round ${round}: export`);

      const archiveKey = `bench-archives/${round}.tar`;
      if (CHILD) {
        const exported = await inChild(dataDir, ['export', tenant, archiveKey]);
        exports.push(exported.ms);
        exportRss = Math.max(exportRss, exported.peak_rss_mb);
        archiveBytes = exported.detail as number;
        child.push({ phase: 'export', ...exported });
      } else {
        const exported = await timed(() => writeTenantArchive(deps, tenant, archiveKey, async () => {}));
        exports.push(exported.ms);
        exportRss = Math.max(exportRss, exported.peakRssMb);
        archiveBytes = exported.value.size;
      }

      settle();
      log(`round ${round}: import`);
      let files: number;
      if (CHILD) {
        const imported = await inChild(dataDir, ['import', archiveKey, `bench-copy-${round}`]);
        imports.push(imported.ms);
        importRss = Math.max(importRss, imported.peak_rss_mb);
        files = (imported.detail as { files: number }).files;
        child.push({ phase: 'import', ...imported });
      } else {
        const imported = await timed(async () =>
          importTenantArchive(deps, await blobs.get(archiveKey), { subdomain: `bench-copy-${round}` }),
        );
        imports.push(imported.ms);
        importRss = Math.max(importRss, imported.peakRssMb);
        files = imported.value.imported.files ?? 0;
      }
      if (files !== DOCS) throw new Error(`imported ${files} files of ${DOCS}`);
      await blobs.delete(archiveKey);
    }
    const b = PUT_BASELINE ? median(baseline) : Number.NaN;
    const c = median(cps);
    const ratio = (base: number, ms: number) => Math.round((base / ms) * 100) / 100;
    return {
      date: new Date().toISOString(),
      documents: DOCS,
      file_bytes: totalBytes,
      archive_bytes: archiveBytes,
      rounds: ROUNDS,
      cp_r_ms: Math.round(c),
      cp_r_mb_per_s: Math.round(totalBytes / 2 ** 20 / (c / 1000)),
      cp_r_peak_rss_mb: cpRss,
      export_ratio_to_cp_r: ratio(c, median(exports)),
      import_ratio_to_cp_r: ratio(c, median(imports)),
      baseline_copy_ms: PUT_BASELINE ? Math.round(b) : null,
      baseline_mb_per_s: PUT_BASELINE ? Math.round(totalBytes / 2 ** 20 / (b / 1000)) : null,
      export_ms: Math.round(median(exports)),
      export_ratio: PUT_BASELINE ? ratio(b, median(exports)) : null,
      import_ms: Math.round(median(imports)),
      import_ratio: PUT_BASELINE ? ratio(b, median(imports)) : null,
      idle_rss_mb: idleRssMb,
      export_peak_rss_mb: exportRss,
      import_peak_rss_mb: importRss,
      rss_of: CHILD ? 'a process of its own (archive-child.ts, worker settings)' : 'the bench process',
      ...(CHILD ? { child } : {}),
      load_average: os.loadavg().map((l) => Math.round(l * 10) / 10),
    };
  } finally {
    await container.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
