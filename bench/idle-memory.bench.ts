import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { bundle } from '../scripts/bundle.ts';
import { memoryOf, startServer } from './documents/server.ts';

// Idle memory of `serve` (API + in-process worker, SQLite) after start settles, against bare Node in
// the same run. The sources three ways: without Node's compile cache (every module type-stripped at
// load, so the TypeScript stripper stays in memory), with a cold cache (the first start fills it)
// and with a warm one; then the production bundle (scripts/bundle.ts) with a warm cache, as
// `npm start` and the Docker image run it. Memory, unlike time, barely moves with the machine's
// load. Target (issue 10 item 5): < 110 MiB.
//   node bench/idle-memory.bench.ts

const MiB = 1024 * 1024;
const SETTLE_MS = 3_000;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function idleRss(env: Record<string, string>, main?: string): Promise<number> {
  // As `npm start` runs it: a small young generation, two malloc arenas (glibc keeps one per thread otherwise).
  const server = await startServer({ NODE_OPTIONS: '--max-semi-space-size=4', MALLOC_ARENA_MAX: '2', ...env }, main);
  try {
    await sleep(SETTLE_MS);
    return memoryOf(server.child.pid!).rss / MiB;
  } finally {
    await server.close();
  }
}

/** The median of three warm starts, after one start that fills the cache. */
async function warmMedian(cache: string, main?: string): Promise<{ cold: number; warm: number }> {
  const cold = await idleRss({ NODE_COMPILE_CACHE: cache }, main);
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) warm.push(await idleRss({ NODE_COMPILE_CACHE: cache }, main));
  warm.sort((a, b) => a - b);
  return { cold, warm: warm[1]! };
}

function bareNodeRss(): number {
  const out = execFileSync(process.execPath, ['-e', 'setTimeout(() => console.log(process.memoryUsage().rss), 200)'], {
    encoding: 'utf8',
  });
  return Number(out.trim()) / MiB;
}

export async function run() {
  const sourceCache = await fsp.mkdtemp(path.join(os.tmpdir(), 'compile-cache-'));
  const bundleCache = await fsp.mkdtemp(path.join(os.tmpdir(), 'compile-cache-'));
  // Inside the repository: the packages left outside the bundle resolve from node_modules.
  const outdir = path.join(ROOT, '.test-data', `bench-bundle-${process.pid}`);
  try {
    await bundle(outdir);
    const noCache = await idleRss({ NODE_COMPILE_CACHE: '' });
    const sources = await warmMedian(sourceCache);
    const bundled = await warmMedian(bundleCache, path.join(outdir, 'main.js'));
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      bareNodeMiB: round(bareNodeRss()),
      sourcesNoCompileCacheMiB: round(noCache),
      sourcesColdCompileCacheMiB: round(sources.cold),
      sourcesWarmCompileCacheMedianMiB: round(sources.warm),
      bundleColdCompileCacheMiB: round(bundled.cold),
      bundleWarmCompileCacheMedianMiB: round(bundled.warm),
      targetMiB: 110,
      loadAverage: os.loadavg().map((n) => round(n)),
    };
  } finally {
    await Promise.all([sourceCache, bundleCache, outdir].map((dir) => fsp.rm(dir, { recursive: true, force: true })));
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
