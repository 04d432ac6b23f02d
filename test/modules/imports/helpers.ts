import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../jobs/helpers.ts';
import { ADMIN_KEY, type TestApp } from '../../support/app.ts';
import { DRIVE_ACCESS_TOKEN, type DriveTestServer, FOLDER } from '../../support/google-drive-server.ts';

export const BASE = '/api/v1/migrations/projects';

/** The app's environment to reach the local Drive server (retries quick, two lanes). */
export function driveEnv(drive: DriveTestServer): Record<string, string> {
  return {
    GOOGLE_DRIVE_API_URL: drive.url,
    GOOGLE_OAUTH_TOKEN_URL: drive.tokenUrl,
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    IMPORT_RETRY_DELAYS: '0.05,0.05,0.05',
    IMPORT_CONCURRENCY: '2',
  };
}

/** Credentials the local server accepts, refreshable. */
export function credentials(drive: DriveTestServer) {
  return {
    access_token: DRIVE_ACCESS_TOKEN,
    refresh_token: drive.client.refreshToken,
    client_id: drive.client.id,
    client_secret: drive.client.secret,
  };
}

let counter = 0;

/** A fresh folder tree on the server with the given files (name -> content or native type), ids unique to this call. */
export function addTree(
  drive: DriveTestServer,
  files: { path: string; content?: string; mimeType?: string; ownedByMe?: boolean; exportSize?: number }[],
) {
  counter += 1;
  const prefix = `t${counter}`;
  const rootId = `${prefix}-root`;
  drive.add({ id: rootId, name: `Root ${counter}`, mimeType: FOLDER, parents: ['my-drive'] });
  const folderIds = new Map<string, string>([['', rootId]]);
  const ids: Record<string, string> = {};
  for (const file of files) {
    const parts = file.path.split('/');
    let parent = rootId;
    for (let i = 0; i < parts.length - 1; i++) {
      const key = parts.slice(0, i + 1).join('/');
      let id = folderIds.get(key);
      if (!id) {
        id = `${prefix}-folder-${key.replace(/\W/g, '_')}`;
        drive.add({ id, name: parts[i]!, mimeType: FOLDER, parents: [parent] });
        folderIds.set(key, id);
      }
      parent = id;
    }
    const id = `${prefix}-file-${file.path.replace(/\W/g, '_')}`;
    drive.add({
      id,
      name: parts.at(-1)!,
      mimeType: file.mimeType ?? 'text/plain',
      parents: [parent],
      ...(file.content !== undefined ? { content: Buffer.from(file.content) } : {}),
      ...(file.ownedByMe !== undefined ? { ownedByMe: file.ownedByMe } : {}),
      ...(file.exportSize !== undefined ? { exportSize: file.exportSize } : {}),
    });
    ids[file.path] = id;
  }
  return { rootId, ids, folderIds };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
export type Json = any;

export async function createProject(
  t: TestApp,
  headers: Record<string, string>,
  config: Record<string, unknown>,
  name = 'Drive import',
): Promise<Json> {
  const res = await t.app.inject({
    method: 'POST',
    url: BASE,
    headers,
    payload: { name, source_type: 'google_drive', config },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

export async function action(t: TestApp, headers: Record<string, string>, id: string, verb: string) {
  return t.app.inject({ method: 'POST', url: `${BASE}/${id}/${verb}`, headers });
}

export async function waitForStatus(
  t: TestApp,
  headers: Record<string, string>,
  id: string,
  statuses: string[],
  timeoutMs = 30_000,
): Promise<Json> {
  return waitFor(
    async () => {
      const body = (await t.app.inject({ url: `${BASE}/${id}`, headers })).json();
      return statuses.includes(body.status) ? body : undefined;
    },
    `project ${id} to reach ${statuses.join('/')}`,
    timeoutMs,
  );
}

export async function items(t: TestApp, headers: Record<string, string>, id: string, query = ''): Promise<Json[]> {
  const res = await t.app.inject({ url: `${BASE}/${id}/items?page_size=100${query}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** Scans a project to `ready` and imports it to a terminal state; returns the final project. */
export async function scanAndImport(t: TestApp, headers: Record<string, string>, id: string): Promise<Json> {
  assert.equal((await action(t, headers, id, 'scan')).statusCode, 202);
  await waitForStatus(t, headers, id, ['ready']);
  assert.equal((await action(t, headers, id, 'start')).statusCode, 202);
  return waitForStatus(t, headers, id, ['completed', 'completed_with_errors']);
}

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/main.ts');

/** A worker process (`node src/main.ts worker`) on the test app's database and data folder, reaching the Drive server. */
export function spawnWorker(t: TestApp, drive: DriveTestServer, leaseMs: number) {
  let out = '';
  const child = spawn(process.execPath, [MAIN, 'worker'], {
    env: {
      ...process.env,
      ...driveEnv(drive),
      DATA_DIR: t.store.dataDir,
      ...(t.store.url ? { DATABASE_URL: t.store.url } : {}),
      ADMIN_API_KEY: ADMIN_KEY,
      JOB_LEASE_MS: String(leaseMs),
      WORKER_POLL_INTERVAL_MS: '50',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    output: () => out,
    /** SIGKILL, resolved once the process is gone. */
    async kill(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
