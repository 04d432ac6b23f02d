import fs from 'node:fs';
import { loadConfig } from '../../src/config/config.ts';
import { createContainer } from '../../src/container.ts';
import { importTenantArchive } from '../../src/modules/transfer/tenant-archive/archive-reader.ts';
import { writeTenantArchive } from '../../src/modules/transfer/tenant-archive/archive-writer.ts';

/*
 * One export or import of tenant-archive.bench.ts run in a process of its own, as the worker runs
 * it (`MALLOC_ARENA_MAX=2 node --max-semi-space-size=4`, set by the parent): the whole service's
 * container on the bench's data folder and nothing else, so its RSS is the service's, not the
 * bench harness's (which also holds the generated tenant). Prints one JSON line: time, RSS when
 * idle (container up, before the work) and its peak, V8 heap and external memory at the peak.
 *
 *   node bench/transfer/archive-child.ts <data dir> export <tenant id> <archive key>
 *   node bench/transfer/archive-child.ts <data dir> import <archive key> <subdomain>
 */
const [dataDir, mode, a, b] = process.argv.slice(2) as [string, 'export' | 'import', string, string];
const config = loadConfig({ DATA_DIR: dataDir, ADMIN_API_KEY: 'bench-admin-key-0123456789', LOG_LEVEL: 'silent' });
const container = await createContainer(config);
const deps = { database: container.database, blobs: container.blobs, now: () => Date.now() };
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const idle = process.memoryUsage();
let peak = idle;
const timer = setInterval(() => {
  const now = process.memoryUsage();
  if (now.rss > peak.rss) peak = now;
}, 50);
const started = performance.now();
const cpuBefore = process.cpuUsage();
let detail: unknown;
if (mode === 'export') {
  detail = (await writeTenantArchive(deps, a, b, async () => {})).size;
} else {
  detail = (await importTenantArchive(deps, await container.blobs.get(a), { subdomain: b })).imported;
}
const ms = performance.now() - started;
// Every thread's CPU (getrusage): the thread pool's reads, writes and fsyncs, and the main thread's work.
const cpu = process.cpuUsage(cpuBefore);
clearInterval(timer);
const last = process.memoryUsage();
if (last.rss > peak.rss) peak = last;
await container.close();
fs.writeSync(
  1,
  `${JSON.stringify({
    ms,
    detail,
    work_cpu_user_s: cpu.user / 1e6,
    work_cpu_system_s: cpu.system / 1e6,
    idle_rss_mb: mb(idle.rss),
    idle_heap_used_mb: mb(idle.heapUsed),
    peak_rss_mb: mb(peak.rss),
    peak_heap_total_mb: mb(peak.heapTotal),
    peak_heap_used_mb: mb(peak.heapUsed),
    peak_external_mb: mb(peak.external),
    peak_array_buffers_mb: mb(peak.arrayBuffers),
  })}\n`,
);
