import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../bench/support.ts';
import { bundleIfStale } from '../../scripts/bundle.ts';
import { waitUntilAnswering } from './multi-process-support.ts';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.ts');

function startServer(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  return { child, output: () => out };
}

describe('the service process', () => {
  const dirs: string[] = [];

  it('`npm start` passes SIGTERM on to the server, which stops gracefully', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-npm-'));
    dirs.push(dataDir);
    const port = await freePort();
    const root = path.resolve(path.dirname(MAIN), '..');
    // `npm start` first rebuilds the bundle it runs when the sources are newer: done here, so the
    // wait below is the start alone.
    await bundleIfStale(path.join(root, 'dist'));
    const child = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        PORT: String(port),
        DATA_DIR: dataDir,
        ADMIN_API_KEY: 'npm-start-test-key',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => (out += String(d)));
    child.stderr?.on('data', (d) => (out += String(d)));
    await waitUntilAnswering(`http://127.0.0.1:${port}/healthz`, child, () => out);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    await exited;
    assert.match(out, /"msg":"stopped"/, out);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`), 'nothing listens after SIGTERM to npm');
  });
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('starts on an empty data folder, generates and keeps the admin key, and stops cleanly on SIGTERM', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-proc-'));
    dirs.push(dataDir);
    const port = await freePort();
    const { child, output } = startServer({ PORT: String(port), DATA_DIR: dataDir });
    await waitUntilAnswering(`http://127.0.0.1:${port}/healthz`, child, output);

    const key = fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim();
    assert.match(output(), new RegExp(key), 'the generated key is printed once');
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/admin/tenants`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('x-request-id'));

    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output());
    assert.match(output(), /"msg":"stopped"/);

    // A second start reuses the stored key and does not print it again.
    const port2 = await freePort();
    const second = startServer({ PORT: String(port2), DATA_DIR: dataDir });
    await waitUntilAnswering(`http://127.0.0.1:${port2}/healthz`, second.child, second.output);
    assert.doesNotMatch(second.output(), new RegExp(key));
    const again = new Promise((r) => second.child.once('exit', r));
    second.child.kill('SIGTERM');
    await again;
  });

  it('drains an in-flight upload on SIGTERM: the upload completes, then the process exits', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-proc-'));
    dirs.push(dataDir);
    const port = await freePort();
    const { child, output } = startServer({ PORT: String(port), DATA_DIR: dataDir, ADMIN_API_KEY: 'drain-admin-key' });
    await waitUntilAnswering(`http://127.0.0.1:${port}/healthz`, child, output);
    const created = await fetch(`http://127.0.0.1:${port}/api/v1/admin/tenants`, {
      method: 'POST',
      headers: { authorization: 'Bearer drain-admin-key', 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Drain',
        subdomain: 'drain',
        tier: 'enterprise',
        owner: { email: 'd@example.com', password: 'a long password', name: 'D' },
      }),
    });
    const apiKey = (await created.json()).api_key as string;

    const boundary = 'drainboundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    const first = 'first half of a slow upload\n';
    const second = 'second half, sent after SIGTERM\n';
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/documents/upload',
          headers: {
            'x-api-key': apiKey,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': Buffer.byteLength(head + first + second + tail),
          },
        },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write(head + first);
      // Half the body is in; the server is told to stop; the rest arrives afterwards.
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end(second + tail), 300);
      }, 300);
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const res = await answer;
    assert.equal(res.status, 201, res.body);
    assert.equal(JSON.parse(res.body).filename, 'slow.txt');
    assert.equal(await exited, 0, output());
  });

  it('refuses to start with a message naming every bad variable', async () => {
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      env: { ...process.env, PORT: 'x', DATABASE_URL: 'ftp://nope', LOG_LEVEL: 'loud' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (d) => (err += String(d)));
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 2);
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL']) assert.match(err, new RegExp(name));
  });
});
