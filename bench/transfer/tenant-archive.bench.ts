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
 *   - `cp -r` of the tenant's blob folder, alone and followed by `sync -f` (see cpR: the export and
 *     the import end with every byte durable, so the copy made durable is the fair baseline).
 * The ratio is baseline time / measured time (1.0 = as fast as the plain copy). RSS is sampled
 * every 50 ms during each phase (the bench process: service and data in one process; with
 * BENCH_ARCHIVE_CHILD=1, a process of its own that runs only the export or the import).
 */
const DOCS = Number(process.env['BENCH_ARCHIVE_DOCS'] ?? 1_000);
const DOC_BYTES = Number(process.env['BENCH_ARCHIVE_DOC_KB'] ?? 500) * 1024;
const ROUNDS = Number(process.env['BENCH_ARCHIVE_ROUNDS'] ?? 3);
/** `0` skips the per-blob copy baseline (slow at 5 GB); the `cp -r` baseline always runs. */
const PUT_BASELINE = process.env['BENCH_ARCHIVE_PUT_BASELINE'] !== '0';

/**
 * `cp -r src dst` under /usr/bin/time: milliseconds and cp's peak RSS (MB); then `sync -f dst`
 * (syncfs of the filesystem), timed apart. `cp -r` alone ends with most of its bytes still dirty
 * in the page cache (1 GB fits under the kernel's writeback thresholds: cp never waits for the
 * disk), while an export or an import ends only once every byte it wrote is durable (a job that
 * reports "done" must): the fair baseline is the copy made durable, the cheapest way a shell can
 * (one syncfs rather than an fsync per file). Both ratios are reported.
 */
async function cpR(
  src: string,
  dst: string,
): Promise<{ ms: number; durableMs: number; peakRssMb: number; cpuS: number }> {
  const start = performance.now();
  const { peakRssMb, cpuS } = await new Promise<{ peakRssMb: number; cpuS: number }>((resolve, reject) =>
    execFile('/usr/bin/time', ['-f', '%M %U %S', 'cp', '-r', src, dst], (error, _stdout, stderr) => {
      if (error) return reject(error);
      const [kb, user, system] = (/(\d+) ([\d.]+) ([\d.]+)\s*$/.exec(stderr.trim()) ?? []).slice(1).map(Number);
      resolve({ peakRssMb: Math.round((kb ?? 0) / 1024), cpuS: (user ?? 0) + (system ?? 0) });
    }),
  );
  const ms = performance.now() - start;
  execFileSync('sync', ['-f', dst]);
  return { ms, durableMs: performance.now() - start, peakRssMb, cpuS };
}
/**
 * BENCH_ARCHIVE_CHILD=1: export and import run in a process of their own with the worker's memory
 * settings (archive-child.ts), timed and sampled there: the RSS is then the service's own, not
 * this process's, which also holds the generated tenant. BENCH_ARCHIVE_NODE_ARGS adds node
 * options to those processes (`--cpu-prof --cpu-prof-dir=...`, `--trace-gc`).
 *
 * BENCH_ARCHIVE_AB=<another checkout of the service> (with CHILD): every round runs the export and
 * the import of both trees, in alternating order, on the same generated tenant, so that the
 * machine's load falls on both alike: an A/B in one run ("this" is this checkout, "other" that one).
 */
const CHILD = process.env['BENCH_ARCHIVE_CHILD'] === '1' || Boolean(process.env['BENCH_ARCHIVE_AB']);
const NODE_ARGS = (process.env['BENCH_ARCHIVE_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
const HERE = fileURLToPath(new URL('../..', import.meta.url));
const TREES: { name: string; root: string }[] = [
  { name: 'this', root: HERE },
  ...(process.env['BENCH_ARCHIVE_AB'] ? [{ name: 'other', root: path.resolve(process.env['BENCH_ARCHIVE_AB']) }] : []),
];

interface ChildResult {
  ms: number;
  detail: unknown;
  idle_rss_mb: number;
  peak_rss_mb: number;
  [figure: string]: unknown;
}

function inChild(root: string, dataDir: string, args: string[]): Promise<ChildResult> {
  const script = path.join(root, 'bench/transfer/archive-child.ts');
  // Under /usr/bin/time: the child's CPU time (user + system, every thread: the thread pool's
  // reads, writes and fsyncs too), a figure the other helpers' load leaves nearly alone.
  return new Promise((resolve, reject) =>
    execFile(
      '/usr/bin/time',
      ['-f', 'cpu %U %S', process.execPath, '--max-semi-space-size=4', ...NODE_ARGS, script, dataDir, ...args],
      { cwd: root, env: { ...process.env, MALLOC_ARENA_MAX: '2' }, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${args[0]} in a child: ${error.message}\n${stderr}`));
        const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr.trim());
        const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ChildResult;
        if (cpu) Object.assign(result, { cpu_user_s: Number(cpu[1]), cpu_system_s: Number(cpu[2]) });
        resolve(result);
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
  // BENCH_ARCHIVE_DATA_DIR: generate the tenant there once, keep it, and reuse it on the next runs
  // (iterating on one size without paying the generation each time).
  const kept = process.env['BENCH_ARCHIVE_DATA_DIR'];
  const dataDir = kept ? path.resolve(kept) : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-archive-'));
  const reuse = kept !== undefined && fs.existsSync(path.join(dataDir, 'service.db'));
  fs.mkdirSync(dataDir, { recursive: true });
  const config = loadConfig({ DATA_DIR: dataDir, ADMIN_API_KEY: 'bench-admin-key-0123456789', LOG_LEVEL: 'silent' });
  const container = await createContainer(config);
  await migrateToLatest(container.database.db);
  const { database, blobs } = container;
  const db = database.db;
  try {
    const tenant = 'bench-archive-tenant';
    const runId = Date.now().toString(36); // subdomains of this run's imports (a kept data folder has earlier ones)
    const now = Date.now();
    if (!reuse)
      await sql`insert into tenants (id, name, subdomain, tier, status, cors_origins, created_at, updated_at) values (${tenant}, 'Bench', 'bench', 'enterprise', 'active', '[]', ${now}, ${now})`.execute(
        db,
      );
    const embedding = new Float32Array(256);
    const body = randomBytes(DOC_BYTES);
    for (let i = 0; i < (reuse ? 0 : DOCS); i++) {
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
    let archiveBytes = 0;
    const deps = { database, blobs, now: () => Date.now() };
    const cps: number[] = [];
    const cpCpu: number[] = [];
    const durableCps: number[] = [];
    let cpRss = 0;
    const per = new Map(
      TREES.map((t) => [
        t.name,
        { exports: [] as number[], imports: [] as number[], exportRss: 0, importRss: 0, child: [] as unknown[] },
      ]),
    );
    const tenantFolder = path.join(dataDir, 'blobs', 'tenants', tenant, 'documents');
    const settle = () => execFileSync('sync');
    for (let round = 0; round < ROUNDS; round++) {
      settle();
      log(`round ${round}: cp -r`);
      const cp = await cpR(tenantFolder, path.join(dataDir, `cp-copy-${round}`));
      cps.push(cp.ms);
      cpCpu.push(cp.cpuS);
      durableCps.push(cp.durableMs);
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
      // Alternating which tree goes first, round by round.
      const order = round % 2 === 0 ? TREES : [...TREES].reverse();
      for (const tree of order) {
        const figures = per.get(tree.name)!;
        const archiveKey = `bench-archives/${tree.name}-${round}.tar`;
        const subdomain = `bench-copy-${tree.name}-${round}-${runId}`;
        settle();
        log(`round ${round}: export (${tree.name})`);
        if (CHILD) {
          const exported = await inChild(tree.root, dataDir, ['export', tenant, archiveKey]);
          figures.exports.push(exported.ms);
          figures.exportRss = Math.max(figures.exportRss, exported.peak_rss_mb);
          archiveBytes = exported.detail as number;
          figures.child.push({ phase: 'export', round, ...exported });
        } else {
          const exported = await timed(() => writeTenantArchive(deps, tenant, archiveKey, async () => {}));
          figures.exports.push(exported.ms);
          figures.exportRss = Math.max(figures.exportRss, exported.peakRssMb);
          archiveBytes = exported.value.size;
        }

        settle();
        log(`round ${round}: import (${tree.name})`);
        let files: number;
        if (CHILD) {
          const imported = await inChild(tree.root, dataDir, ['import', archiveKey, subdomain]);
          figures.imports.push(imported.ms);
          figures.importRss = Math.max(figures.importRss, imported.peak_rss_mb);
          files = (imported.detail as { files: number }).files;
          const { detail: _detail, ...rest } = imported;
          figures.child.push({ phase: 'import', round, ...rest });
        } else {
          const imported = await timed(async () =>
            importTenantArchive(deps, await blobs.get(archiveKey), { subdomain }),
          );
          figures.imports.push(imported.ms);
          figures.importRss = Math.max(figures.importRss, imported.peakRssMb);
          files = imported.value.imported.files ?? 0;
        }
        if (files !== DOCS) throw new Error(`imported ${files} files of ${DOCS}`);
        await blobs.delete(archiveKey);
        // The imported tenant's files: gone, so that a 5 GB run does not fill the disk round after round.
        const imported = (await sql<{ id: string }>`select id from tenants where subdomain = ${subdomain}`.execute(db))
          .rows[0];
        if (imported) fs.rmSync(path.join(dataDir, 'blobs', 'tenants', imported.id), { recursive: true, force: true });
      }
    }
    const b = PUT_BASELINE ? median(baseline) : Number.NaN;
    const c = median(cps);
    const d = median(durableCps);
    const ratio = (base: number, ms: number) => Math.round((base / ms) * 100) / 100;
    const trees = Object.fromEntries(
      [...per].map(([name, f]) => [
        name,
        {
          root: TREES.find((t) => t.name === name)!.root,
          export_ms: f.exports.map(Math.round),
          import_ms: f.imports.map(Math.round),
          export_ratio_to_durable_cp: ratio(d, median(f.exports)),
          import_ratio_to_durable_cp: ratio(d, median(f.imports)),
          export_ratio_to_cp_r: ratio(c, median(f.exports)),
          import_ratio_to_cp_r: ratio(c, median(f.imports)),
          export_ratio: PUT_BASELINE ? ratio(b, median(f.exports)) : null,
          import_ratio: PUT_BASELINE ? ratio(b, median(f.imports)) : null,
          export_peak_rss_mb: f.exportRss,
          import_peak_rss_mb: f.importRss,
          ...(CHILD ? { child: f.child } : {}),
        },
      ]),
    );
    return {
      date: new Date().toISOString(),
      documents: DOCS,
      file_bytes: totalBytes,
      archive_bytes: archiveBytes,
      rounds: ROUNDS,
      cp_r_ms: cps.map(Math.round),
      cp_r_then_syncfs_ms: durableCps.map(Math.round),
      cp_r_mb_per_s: Math.round(totalBytes / 2 ** 20 / (c / 1000)),
      durable_cp_mb_per_s: Math.round(totalBytes / 2 ** 20 / (d / 1000)),
      cp_r_peak_rss_mb: cpRss,
      cp_r_cpu_s: cpCpu,
      baseline_copy_ms: PUT_BASELINE ? Math.round(b) : null,
      idle_rss_mb: idleRssMb,
      rss_of: CHILD ? 'a process of its own (archive-child.ts, worker settings)' : 'the bench process',
      trees,
      load_average: os.loadavg().map((l) => Math.round(l * 10) / 10),
    };
  } finally {
    await container.close();
    if (!kept) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
