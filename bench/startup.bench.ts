import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, median, startAndWait, stop } from './support.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HELLO = path.join(ROOT, 'bench', 'fixtures', 'hello-fastify.ts');

/**
 * Start to /healthz answering, on SQLite with an empty data folder (target: < 1.5 s), against the
 * same measurement of a bare Fastify hello-world in the same run (the floor Node itself sets).
 */
export async function run(rounds = 5) {
  const service: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bench-start-'));
    const port = await freePort();
    const s = await startAndWait(
      [path.join(ROOT, 'src/main.ts'), 'serve'],
      { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_API_KEY: 'bench-admin-key' },
      `http://127.0.0.1:${port}/healthz`,
    );
    service.push(s.ms);
    await stop(s.child);
    fs.rmSync(dataDir, { recursive: true, force: true });

    const helloPort = await freePort();
    const h = await startAndWait([HELLO], { PORT: String(helloPort) }, `http://127.0.0.1:${helloPort}/`);
    baseline.push(h.ms);
    await stop(h.child);
  }
  return {
    name: 'startup',
    service_median_ms: Math.round(median(service)),
    service_max_ms: Math.round(Math.max(...service)),
    hello_fastify_median_ms: Math.round(median(baseline)),
    ratio: Number((median(service) / median(baseline)).toFixed(2)),
    target: 'service median < 1500 ms',
    pass: median(service) < 1500,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await run());
