/*
 * Word vectors at start (issue 34): `serve` on SQLite with an empty data folder, with the word
 * vectors (read in the background once listening) and with `WORD_VECTORS_FILE=none`, alternately,
 * three rounds: start to `/healthz`, start to `/health` saying `word_vectors.state: "ready"`, and
 * the idle RSS once settled. The vectors' cost is the RSS difference within a round. The production
 * bundle with a warm compile cache, as `npm start` runs it (bench/startup.bench.ts).
 *   node bench/search-startup.bench.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../scripts/bundle.ts';
import { memoryOf } from './documents/server.ts';
import { freePort, median, startAndWait, stop } from './support.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SETTLE_MS = 3_000;
const MiB = 1024 * 1024;

async function once(main: string, cache: string, env: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dv-search-start-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const { child, ms } = await startAndWait(
    [main, 'serve'],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ADMIN_API_KEY: 'bench-admin-key-0123456789',
      NODE_OPTIONS: '--max-semi-space-size=4',
      MALLOC_ARENA_MAX: '2',
      NODE_COMPILE_CACHE: cache,
      ...env,
    },
    `${base}/healthz`,
    30_000,
  );
  try {
    let state = '';
    let readyMs: number | null = null;
    while (performance.now() - started < 30_000) {
      state = ((await (await fetch(`${base}/health`)).json()) as { capabilities: { word_vectors: { state: string } } })
        .capabilities.word_vectors.state;
      if (state !== 'loading') {
        readyMs = performance.now() - started;
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    return { healthzMs: ms, vectorsState: state, vectorsSettledMs: readyMs, rssMiB: memoryOf(child.pid!).rss / MiB };
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run() {
  const withVectors: Awaited<ReturnType<typeof once>>[] = [];
  const without: Awaited<ReturnType<typeof once>>[] = [];
  const outdir = path.join(ROOT, '.test-data', `bench-bundle-${process.pid}`);
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'compile-cache-'));
  await bundle(outdir);
  const main = path.join(outdir, 'main.js');
  try {
    await once(main, cache, {});
    for (let round = 0; round < 3; round++) {
      withVectors.push(await once(main, cache, {}));
      without.push(await once(main, cache, { WORD_VECTORS_FILE: 'none' }));
    }
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
    fs.rmSync(cache, { recursive: true, force: true });
  }
  const costs = withVectors.map((w, i) => w.rssMiB - without[i]!.rssMiB);
  const round1 = (n: number) => Number(n.toFixed(1));
  return {
    loadAverage: os.loadavg().map(round1),
    withVectors: {
      healthzMs: round1(median(withVectors.map((r) => r.healthzMs))),
      readyMs: round1(median(withVectors.map((r) => r.vectorsSettledMs ?? Number.NaN))),
      states: withVectors.map((r) => r.vectorsState),
      rssMiB: round1(median(withVectors.map((r) => r.rssMiB))),
    },
    withoutVectors: {
      healthzMs: round1(median(without.map((r) => r.healthzMs))),
      rssMiB: round1(median(without.map((r) => r.rssMiB))),
    },
    vectorsIdleRssMiB: { median: round1(median(costs)), rounds: costs.map(round1) },
    targets: { healthzMs: 1500, vectorsIdleRssMiB: 60 },
  };
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
