import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../bench/support.ts';
import { bundle } from '../../scripts/bundle.ts';
import { ADMIN_KEY, startTestApp } from '../support/app.ts';
import { waitUntilAnswering } from './multi-process-support.ts';

// The production bundle (scripts/bundle.ts) runs what the sources run: the same routes and
// document, migrations on an empty database, and the parts it reaches by URL at run time (worker
// threads, the console's files, Swagger UI's assets).

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the production bundle', () => {
  // Inside the repository, so the packages left outside the bundle resolve from node_modules.
  const outdir = path.join(ROOT, '.test-data', `bundle-${process.pid}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bundle-'));
  let child: ChildProcess;
  let base: string;
  let output = '';

  before(async () => {
    await bundle(outdir);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [path.join(outdir, 'main.js'), 'serve'], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ADMIN_API_KEY: ADMIN_KEY,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d) => (output += String(d)));
    child.stderr?.on('data', (d) => (output += String(d)));
    await waitUntilAnswering(`${base}/healthz`, child, () => output);
  });
  after(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(outdir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('is one main file whose chunks hold only what loads on first use, with no source map or TypeScript', () => {
    const files = fs.readdirSync(outdir);
    assert.ok(files.includes('main.js'));
    assert.deepEqual(
      files.filter((f) => !f.endsWith('.js')),
      [],
    );
  });

  it('serves the same OpenAPI document as the sources', async () => {
    const sources = await startTestApp('sqlite');
    try {
      const expected = (await sources.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
      const res = await fetch(`${base}/api/v1/openapi.json`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), expected);
    } finally {
      await sources.close();
    }
  });

  it('migrates an empty database, takes an upload and processes it on a worker thread', async () => {
    const created = await fetch(`${base}/api/v1/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Bundle',
        subdomain: 'bundle',
        tier: 'enterprise',
        owner: { email: 'b@example.com', password: 'a long password', name: 'B' },
      }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const apiKey = ((await created.json()) as { api_key: string }).api_key;

    const form = new FormData();
    form.append(
      'file',
      new Blob(['Acme Corporation agreed with Globex to deliver widgets to Berlin.'], { type: 'text/plain' }),
      'memo.txt',
    );
    const uploaded = await fetch(`${base}/api/v1/documents/upload`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
      body: form,
    });
    assert.equal(uploaded.status, 201);
    const { id } = (await uploaded.json()) as { id: string };

    let status = '';
    for (let i = 0; i < 600 && status !== 'completed' && status !== 'failed'; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      const doc = await fetch(`${base}/api/v1/documents/${id}`, { headers: { 'x-api-key': apiKey } });
      status = ((await doc.json()) as { status: string }).status;
    }
    assert.equal(status, 'completed', output);
    const found = await fetch(`${base}/api/v1/search?q=Globex`, { headers: { 'x-api-key': apiKey } });
    const { results } = (await found.json()) as { results: { document: { id: string } }[] };
    assert.deepEqual(
      results.map((r) => r.document.id),
      [id],
    );
  });

  it('serves the files it reaches by URL: Swagger UI and the console', async () => {
    for (const url of ['/docs', '/docs/static/index.html', '/console/']) {
      const res = await fetch(`${base}${url}`);
      assert.equal(res.status, 200, url);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/, url);
    }
  });
});
