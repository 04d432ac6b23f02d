import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../scripts/bundle.ts';
import { freePort, median, startAndWait, stop } from './support.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELLO = path.join(ROOT, 'bench', 'fixtures', 'hello-fastify.ts');

/** Start to /healthz answering of one entry file, on SQLite with an empty data folder. */
async function startupMs(main: string, env: Record<string, string>): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bench-start-'));
  const port = await freePort();
  const s = await startAndWait(
    [main, 'serve'],
    { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_API_KEY: 'bench-admin-key', ...env },
    `http://127.0.0.1:${port}/healthz`,
  );
  await stop(s.child);
  fs.rmSync(dataDir, { recursive: true, force: true });
  return s.ms;
}

/**
 * Start to /healthz answering, on SQLite with an empty data folder (target: < 1.5 s), against the
 * same measurement of a bare Fastify hello-world in the same run (the floor Node itself sets): the
 * sources, and the production bundle (scripts/bundle.ts) as `npm start` runs it, each with a warm
 * compile cache of its own.
 */
export async function run(rounds = 5) {
  const service: number[] = [];
  const bundled: number[] = [];
  const baseline: number[] = [];
  const outdir = path.join(ROOT, '.test-data', `bench-bundle-${process.pid}`);
  const caches = [
    fs.mkdtempSync(path.join(os.tmpdir(), 'compile-cache-')),
    fs.mkdtempSync(path.join(os.tmpdir(), 'compile-cache-')),
  ] as const;
  await bundle(outdir);
  const source = path.join(ROOT, 'src/main.ts');
  const main = path.join(outdir, 'main.js');
  // One start each fills its compile cache.
  await startupMs(source, { NODE_COMPILE_CACHE: caches[0] });
  await startupMs(main, { NODE_COMPILE_CACHE: caches[1] });
  for (let i = 0; i < rounds; i++) {
    service.push(await startupMs(source, { NODE_COMPILE_CACHE: caches[0] }));
    bundled.push(await startupMs(main, { NODE_COMPILE_CACHE: caches[1] }));

    const helloPort = await freePort();
    const h = await startAndWait([HELLO], { PORT: String(helloPort) }, `http://127.0.0.1:${helloPort}/`);
    baseline.push(h.ms);
    await stop(h.child);
  }
  for (const dir of [outdir, ...caches]) fs.rmSync(dir, { recursive: true, force: true });
  return {
    name: 'startup',
    service_median_ms: Math.round(median(service)),
    service_max_ms: Math.round(Math.max(...service)),
    bundle_median_ms: Math.round(median(bundled)),
    bundle_max_ms: Math.round(Math.max(...bundled)),
    hello_fastify_median_ms: Math.round(median(baseline)),
    ratio: Number((median(service) / median(baseline)).toFixed(2)),
    bundle_ratio: Number((median(bundled) / median(baseline)).toFixed(2)),
    load_average: os.loadavg().map((n) => Number(n.toFixed(1))),
    target: 'service median < 1500 ms',
    pass: median(service) < 1500,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await run());
