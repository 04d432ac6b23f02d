import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { createContainer } from '../../../src/container.ts';
import { migrateToLatest } from '../../../src/db/migrator.ts';
import { ADMIN_KEY, type TestApp } from '../../support/app.ts';
import type { TestStore } from '../../support/databases.ts';

const SCRIPT = fileURLToPath(new URL('../../../scripts/db-transfer.ts', import.meta.url));

/**
 * The service on a database the test keeps (unlike startTestApp, closing it leaves the data):
 * DATA_DIR for the blobs (and SQLite), DATABASE_URL when given.
 */
export async function startService(
  dataDir: string,
  url: string | null,
  options: { worker?: boolean } = {},
): Promise<TestApp> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...(url ? { DATABASE_URL: url } : {}),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    WORKER_POLL_INTERVAL_MS: '50',
  });
  const container = await createContainer(config);
  await migrateToLatest(container.database.db);
  const app = await buildApp(container, { logger: false });
  await app.ready();
  const worker = options.worker ? container.createWorker() : null;
  worker?.start();
  const store: TestStore = { dialect: url ? 'postgres' : 'sqlite', url, dataDir, drop: async () => {} };
  return {
    dialect: store.dialect,
    app,
    container,
    store,
    worker,
    admin: (opts) => app.inject({ ...opts, headers: { authorization: `Bearer ${ADMIN_KEY}`, ...opts.headers } }),
    async close() {
      await app.close();
      await worker?.stop(2_000);
      await container.close();
    },
  };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run db:transfer -- <args>` as a real process, with the source's configuration in its environment. */
export function startTransfer(
  args: string[],
  env: { DATA_DIR: string; DATABASE_URL?: string },
): { child: ChildProcess; stderrLines: (fn: (line: string) => void) => void; done: Promise<RunResult> } {
  const child = spawn(process.execPath, [SCRIPT, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners: ((line: string) => void)[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
    for (const line of chunk.toString().split('\n')) for (const l of listeners) l(line);
  });
  const done = new Promise<RunResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, stderrLines: (fn) => listeners.push(fn), done };
}

export const runTransfer = (args: string[], env: { DATA_DIR: string; DATABASE_URL?: string }) =>
  startTransfer(args, env).done;

/** The per-table lines of the printed report: `table rows checksum`. */
export function reportLines(stdout: string): Map<string, string> {
  const lines = stdout.trim().split('\n').slice(1);
  return new Map(
    lines.map((l) => l.trim().split(/\s+/)).map(([table, rows, checksum]) => [table!, `${rows} ${checksum}`]),
  );
}
