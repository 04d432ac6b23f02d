import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestStore, postgresAdminUrl } from '../../test/support/databases.ts';
import { freePort, startAndWait, stop } from '../support.ts';
import type { LoadResult } from './load-generator.ts';

// Authenticated GET of a small resource with an API key (authentication, rate limiting, tenant
// lookup, one query, serialisation) against a bare Fastify hello-world, same run, same machine.
// Target: ≥ 40% of the hello-world's requests/s and p99 < 25 ms at 50 connections, on SQLite.
//   AUTH_BENCH_SECONDS=10 AUTH_BENCH_CONNECTIONS=50 node bench/auth/auth.bench.ts

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env['AUTH_BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['AUTH_BENCH_CONNECTIONS'] ?? 50);

export interface AuthBenchResult {
  connections: number;
  seconds: number;
  cpus: number;
  helloWorld: LoadResult;
  sqlite: LoadResult & { ratioVsHello: number };
  postgres?: LoadResult & { ratioVsHello: number };
}

/** Runs the load generator in its own process against a URL. */
function loadFrom(url: string, headers: Record<string, string> = {}): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(here, 'load-generator.ts'), url, String(CONNECTIONS), String(SECONDS), JSON.stringify(headers)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load generator exited ${code}`))));
  });
}

/** Starts serve-app.ts and reads the URL and headers it prints. */
async function startApp(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; headers: Record<string, string> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(process.env['APP_NODE_OPTS'] ? [process.env['APP_NODE_OPTS']] : []), path.join(here, 'serve-app.ts')], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.on('exit', (code) => reject(new Error(`app exited ${code}`)));
  });
  const { url, headers } = JSON.parse(line) as { url: string; headers: Record<string, string> };
  const check = await fetch(url, { headers });
  if (check.status !== 200) throw new Error(`probe answered ${check.status}: ${await check.text()}`);
  return { child, url, headers };
}

export async function run(): Promise<AuthBenchResult> {
  const helloPort = await freePort();
  const hello = await startAndWait([path.join(here, '../fixtures/hello-fastify.ts')], { PORT: String(helloPort) }, `http://127.0.0.1:${helloPort}/`);
  let helloWorld: LoadResult;
  try {
    helloWorld = await loadFrom(`http://127.0.0.1:${helloPort}/`);
  } finally {
    await stop(hello.child);
  }

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-auth-bench-'));
  const sqliteApp = await startApp({ DATA_DIR: dataDir, DATABASE_URL: '' });
  let sqlite: LoadResult;
  try {
    sqlite = await loadFrom(sqliteApp.url, sqliteApp.headers);
  } finally {
    await stop(sqliteApp.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  let postgres: LoadResult | undefined;
  if (await postgresAdminUrl()) {
    const store = await createTestStore('postgres');
    const pgApp = await startApp({ DATA_DIR: store.dataDir, DATABASE_URL: store.url! });
    try {
      postgres = await loadFrom(pgApp.url, pgApp.headers);
    } finally {
      await stop(pgApp.child);
      await store.drop();
    }
  }
  const ratio = (r: LoadResult) => Math.round((r.rps / helloWorld.rps) * 1000) / 1000;
  return {
    connections: CONNECTIONS,
    seconds: SECONDS,
    cpus: os.cpus().length,
    helloWorld,
    sqlite: { ...sqlite, ratioVsHello: ratio(sqlite) },
    ...(postgres ? { postgres: { ...postgres, ratioVsHello: ratio(postgres) } } : {}),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run(), null, 2));
}
