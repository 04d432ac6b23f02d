import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startAndWait } from '../support.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ADMIN = 'bench-admin-key-0123456789';

/** The service as its own process on SQLite (worker included unless `env` says otherwise), with one enterprise tenant. */
export async function startService(env: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bench-console-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child } = await startAndWait(
    [path.join(ROOT, 'src/main.ts'), 'serve'],
    { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent', ADMIN_API_KEY: ADMIN, ...env },
    `${url}/healthz`,
    30_000,
  );
  const subdomain = `bench${Date.now().toString(36)}`;
  const owner = { email: `owner@${subdomain}.test`, password: 'correct horse battery staple', name: 'Owner' };
  const res = await fetch(`${url}/api/v1/admin/tenants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', subdomain, tier: 'enterprise', owner }),
  });
  if (res.status !== 201) throw new Error(`tenant: ${res.status} ${await res.text()}`);
  const apiKey = ((await res.json()) as { api_key: string }).api_key;
  return { child, url, apiKey, subdomain, owner, dataDir };
}
