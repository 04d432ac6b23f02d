import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newId } from '../../src/lib/ids.ts';
import type { BlobStore } from '../../src/providers/blobs/blob-store.ts';
import { createBlobStore } from '../../src/providers/blobs/create-blob-store.ts';
import { ADMIN_KEY, startTestApp, type TestApp } from '../../test/support/app.ts';
import { documentRow } from '../../test/support/document-rows.ts';
import { createTenant, type TestTenant } from '../../test/support/fixtures.ts';
import { median, percentile, stop } from '../support.ts';

// Issue 16 figures: migrate N files from the local (shared) store to an S3-compatible server on
// this machine, against a plain streaming copy of the same files (same concurrency, same run), and
// the p99 of 1 MiB downloads by the tenant while the migration runs.
//   STORAGE_BENCH_FILES=10000 STORAGE_BENCH_AVG_KB=512 npm run bench storage
// STORAGE_BENCH_ROUNDS=n migrates n tenants of N files one after the other, a plain copy before,
// between and after them; each round's ratio uses the copies either side, and the median is the figure.

const KiB = 1024;
const MiB = 1024 * KiB;
const here = path.dirname(fileURLToPath(import.meta.url));

export async function run() {
  const fileCount = Number(process.env['STORAGE_BENCH_FILES'] ?? 2000);
  const avgBytes = Number(process.env['STORAGE_BENCH_AVG_KB'] ?? 512) * KiB;
  const concurrency = Number(process.env['STORAGE_MIGRATION_CONCURRENCY'] ?? 4);
  const rounds = Math.max(1, Number(process.env['STORAGE_BENCH_ROUNDS'] ?? 1));
  const s3 = await startS3Child(['dedicated', 'baseline']);
  const env = {
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    RATE_LIMIT_ENABLED: 'false',
    DEDICATED_STORAGE_URL: `s3://dedicated/t/{tenant_id}?endpoint=${encodeURIComponent(s3.endpoint)}&force_path_style=true`,
    DEDICATED_STORAGE_ACCESS_KEY_ID: 'k',
    DEDICATED_STORAGE_SECRET_ACCESS_KEY: 's',
    STORAGE_MIGRATION_CONCURRENCY: String(concurrency),
  };
  // The API (and the seeding) in this process; the migration in a worker process of its own, whose
  // peak RSS is the figure (scale-out layout: API processes serve while a worker migrates).
  const t = await startTestApp('sqlite', { env });
  // Started as `npm run worker` starts it (package.json), young generation capped.
  const worker = spawn(process.execPath, ['--max-semi-space-size=4', path.join(here, '../../src/main.ts'), 'worker'], {
    env: {
      ...process.env,
      ...env,
      DATA_DIR: t.store.dataDir,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: process.env['STORAGE_BENCH_LOG'] ?? 'warn',
      WORKER_POLL_INTERVAL_MS: '50',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    await new Promise((r) => setTimeout(r, 3_000));
    const workerIdleRss = await peakRssOf(worker.pid!);
    const tenants: { tenant: TestTenant; docs: SeededDoc[] }[] = [];
    for (let r = 0; r < rounds; r++) {
      const tenant = await createTenant(t, { tier: 'enterprise' });
      tenants.push({ tenant, docs: await seedFiles(t, tenant, fileCount, avgBytes) });
    }
    const busy = await createTenant(t, { tier: 'enterprise' });
    const busyDocs = await seedFiles(t, busy, fileCount, avgBytes);
    const totalBytes = tenants[0]!.docs.reduce((n, d) => n + d.size, 0);
    const shared = t.container.modules.use('storageProviders').shared;
    const baselineStore = await createBlobStore({
      driver: 's3',
      endpoint: s3.endpoint,
      bucket: 'baseline',
      region: 'us-east-1',
      accessKeyId: 'k',
      secretAccessKey: 's',
      forcePathStyle: true,
    });
    // A plain copy before and after each migration (the source copies stay during the retention
    // period), so drift of a shared machine shows and averages out.
    const copies = [await measure(() => plainCopy(shared, baselineStore, tenants[0]!.docs, concurrency))];
    const migrations: Measured[] = [];
    for (const [r, { tenant, docs }] of tenants.entries()) {
      migrations.push(await measure(() => migrateAndWait(t, tenant)));
      copies.push(await measure(() => plainCopy(shared, baselineStore, tenants[r + 1]?.docs ?? docs, concurrency)));
    }
    const workerPeakRss = await peakRssOf(worker.pid!);
    const ratios = migrations.map((m, r) => (copies[r]!.seconds + copies[r + 1]!.seconds) / 2 / m.seconds);
    const baseline = {
      seconds: median(copies.map((c) => c.seconds)),
      peakRss: Math.max(...copies.map((c) => c.peakRss)),
    };
    const migration = { seconds: median(migrations.map((m) => m.seconds)) };
    // Latency under a second migration (another tenant's identical files), measured apart from throughput.
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const downloads = startDownloads(
      address,
      busy,
      busyDocs.filter((d) => d.size === MiB).map((d) => d.id),
    );
    const busyMigration = await measure(() => migrateAndWait(t, busy));
    const latencies = await downloads.stop();
    const mibs = (seconds: number) => Math.round(totalBytes / MiB / seconds);
    return {
      files: fileCount,
      totalMiB: Math.round(totalBytes / MiB),
      concurrency,
      rounds,
      plainCopy: {
        medianSeconds: round(baseline.seconds),
        seconds: copies.map((c) => round(c.seconds)),
        MiBs: mibs(baseline.seconds),
        peakRssMiB: Math.round(baseline.peakRss / MiB),
      },
      workerIdleRssMiB: Math.round(workerIdleRss / MiB),
      migration: {
        medianSeconds: round(migration.seconds),
        seconds: migrations.map((m) => round(m.seconds)),
        MiBs: mibs(migration.seconds),
        workerPeakRssMiB: Math.round(workerPeakRss / MiB),
      },
      throughputRatio: { median: round(median(ratios)), rounds: ratios.map(round) },
      migrationUnderDownloads: {
        seconds: round(busyMigration.seconds),
        workerPeakRssMiB: Math.round((await peakRssOf(worker.pid!)) / MiB),
        apiPeakRssMiB: Math.round(busyMigration.peakRss / MiB),
      },
      downloadsDuringMigration: {
        count: latencies.length,
        p50Ms: round(percentile(latencies, 50)),
        p99Ms: round(percentile(latencies, 99)),
        errors: downloads.errors(),
      },
    };
  } finally {
    await stop(worker);
    await t.close();
    // The S3 child deletes its folder of gigabytes on SIGTERM: give it the time that takes.
    const exited = new Promise((resolve) => s3.child.once('exit', resolve));
    s3.child.kill('SIGTERM');
    await exited;
  }
}

interface SeededDoc {
  id: string;
  key: string;
  size: number;
}

/** Writes the files straight into the shared folder store and their rows into the database. */
async function seedFiles(t: TestApp, tenant: TestTenant, count: number, avgBytes: number): Promise<SeededDoc[]> {
  const pattern = randomBytes(MiB);
  const root = path.join(t.store.dataDir, 'blobs');
  const docs: SeededDoc[] = [];
  for (let i = 0; i < count; i++) {
    // Every tenth file is 1 MiB (the downloads); the rest spread around the average.
    const size = i % 10 === 0 ? MiB : Math.max(KiB, Math.round(avgBytes * (0.5 + ((i * 7919) % 1000) / 1000)));
    const bytes = Buffer.from(pattern.subarray(0, size));
    bytes.writeUInt32BE(i, 0);
    const id = newId();
    const key = `tenants/${tenant.tenantId}/documents/${id}`;
    await fsp.mkdir(path.dirname(path.join(root, key)), { recursive: true });
    await fsp.writeFile(path.join(root, key), bytes);
    docs.push({ id, key, size });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await t.container.database.db
      .insertInto('documents')
      .values(documentRow(tenant.tenantId, id, { file_size: size, sha256, storage_key: key }))
      .execute();
  }
  return docs;
}

/** The baseline: each file streamed from the local store to the bucket, nothing else. */
async function plainCopy(from: BlobStore, to: BlobStore, docs: SeededDoc[], concurrency: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < docs.length) {
      const doc = docs[next++]!;
      await to.put(doc.key, await from.get(doc.key));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

async function migrateAndWait(t: TestApp, tenant: TestTenant): Promise<void> {
  const res = await t.admin({
    method: 'POST',
    url: `/api/v1/admin/storage/config/${tenant.tenantId}/migrate`,
    payload: { target_provider: 'dedicated' },
  });
  if (res.statusCode !== 202) throw new Error(`migrate: ${res.statusCode} ${res.body}`);
  for (;;) {
    const view = (await t.admin({ method: 'GET', url: `/api/v1/admin/storage/migrations/${tenant.tenantId}` })).json();
    if (view.status === 'completed') return;
    if (!['pending', 'in_progress'].includes(view.status)) throw new Error(`migration ended ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One client downloading 1 MiB documents back to back over HTTP until stopped. */
function startDownloads(base: string, tenant: TestTenant, ids: string[]) {
  const latencies: number[] = [];
  let errors = 0;
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/documents/${ids[i % ids.length]}/download`, { headers: tenant.headers });
      const body = await res.arrayBuffer();
      if (res.status !== 200 || body.byteLength !== MiB) errors++;
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    errors: () => errors,
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

interface Measured {
  seconds: number;
  peakRss: number;
}

/** Duration and peak RSS (sampled every 10 ms) of `work`. */
async function measure(work: () => Promise<unknown>): Promise<Measured> {
  let peakRss = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10);
  const start = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { seconds: (performance.now() - start) / 1000, peakRss };
}

/** The process's peak resident set (VmHWM), in bytes. */
async function peakRssOf(pid: number): Promise<number> {
  const status = await fsp.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * KiB;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function startS3Child(buckets: string[]): Promise<{ child: ChildProcess; endpoint: string }> {
  const child = spawn(process.execPath, [path.join(here, 's3-child.ts'), ...buckets], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d) => {
      out += String(d);
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ child, endpoint: (JSON.parse(line) as { endpoint: string }).endpoint });
    });
    child.once('exit', (code) => reject(new Error(`S3 child exited with ${code}`)));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await run(), null, 2));
