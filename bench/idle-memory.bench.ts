import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { memoryOf, startServer } from './documents/server.ts';

// Idle memory of `serve` (API + in-process worker, SQLite) as `npm start` runs it, after start
// settles, against bare Node in the same run. Three ways: without Node's compile cache (every module
// type-stripped at load, so the TypeScript stripper stays in memory), with a cold cache (the first
// start fills it) and with a warm one (what every later start, and the Docker image, gets).
// Memory, unlike time, does not move with the machine's load. Target (issue 10 item 5): < 110 MiB.
//   node bench/idle-memory.bench.ts

const MiB = 1024 * 1024;
const SETTLE_MS = 3_000;

async function idleRss(env: Record<string, string>): Promise<number> {
  // As `npm start` runs it: a small young generation, two malloc arenas (glibc keeps one per thread otherwise).
  const server = await startServer({ NODE_OPTIONS: '--max-semi-space-size=4', MALLOC_ARENA_MAX: '2', ...env });
  try {
    await sleep(SETTLE_MS);
    return memoryOf(server.child.pid!).rss / MiB;
  } finally {
    await server.close();
  }
}

function bareNodeRss(): number {
  const out = execFileSync(process.execPath, ['-e', 'setTimeout(() => console.log(process.memoryUsage().rss), 200)'], { encoding: 'utf8' });
  return Number(out.trim()) / MiB;
}

export async function run() {
  const cache = await fsp.mkdtemp(path.join(os.tmpdir(), 'compile-cache-'));
  try {
    const noCache = await idleRss({ NODE_COMPILE_CACHE: '' });
    const cold = await idleRss({ NODE_COMPILE_CACHE: cache });
    const warm: number[] = [];
    for (let i = 0; i < 3; i++) warm.push(await idleRss({ NODE_COMPILE_CACHE: cache }));
    warm.sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      bareNodeMiB: round(bareNodeRss()),
      noCompileCacheMiB: round(noCache),
      coldCompileCacheMiB: round(cold),
      warmCompileCacheMedianMiB: round(warm[1]!),
      targetMiB: 110,
    };
  } finally {
    await fsp.rm(cache, { recursive: true, force: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
