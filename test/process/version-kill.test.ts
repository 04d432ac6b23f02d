import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { freePort } from '../../bench/support.ts';
import { killHard, type ServiceProcess, spawnService, stopService, waitReady } from './multi-process-support.ts';

const ADMIN = 'version-kill-admin-key-0123456789';
const V1 = Buffer.from('The first version of the handbook.\n');

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/** Every file under `dir` (relative paths). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe('kill -9 of the API during a version upload (SQLite, embedded)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'version-kill-'));
  const services: ServiceProcess[] = [];
  after(async () => {
    for (const s of services) await stopService(s, 2_000);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async (name: string) => {
    const port = await freePort();
    const svc = spawnService(name, 'serve', {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_API_KEY: ADMIN,
      LOG_LEVEL: 'warn',
    });
    services.push(svc);
    await waitReady(svc, 90_000);
    return svc;
  };

  it('leaves the previous version current, no version row, no stored file; the orphan guard is committed', async () => {
    let api = await start('api-1');
    const created = await fetch(`${api.base}/api/v1/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Kill',
        subdomain: 'kill',
        tier: 'enterprise',
        owner: { email: 'owner@kill.test', password: 'a long password 1', name: 'Owner' },
      }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const tenant = (await created.json()) as Json;
    const headers = { 'x-api-key': tenant.api_key as string };
    const tenantId = tenant.tenant.id as string;
    const form = new FormData();
    form.append('file', new Blob([V1]), 'handbook.txt');
    const uploaded = (await (
      await fetch(`${api.base}/api/v1/documents/upload`, { method: 'POST', headers, body: form })
    ).json()) as Json;
    const id = uploaded.id as string;
    // The document files of the tenant (its thumbnail may be rendered meanwhile, elsewhere).
    const blobRoot = path.join(dataDir, 'blobs', 'tenants', tenantId, 'documents');
    const filesBefore = filesUnder(blobRoot);

    // Half of a 4 MB version is sent, then the process is killed while it is streaming it.
    const content = Buffer.alloc(4 * 1024 * 1024, 0x62);
    const boundary = 'versionkillboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="handbook.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const url = new URL(`/api/v1/documents/${id}/versions`, api.base!);
    const answered = new Promise<number>((resolve) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: url.pathname,
          agent: false,
          headers: {
            ...headers,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': head.length + content.length + tail.length,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', () => resolve(0));
      req.write(Buffer.concat([head, content.subarray(0, content.length / 2)]));
    });
    // The orphan guard is committed before the first byte is stored: wait for it, then for bytes on disk.
    const dbFile = path.join(dataDir, 'service.db');
    const guardsOf = () => {
      const db = new DatabaseSync(dbFile, { readOnly: true });
      try {
        return (
          db.prepare(`select payload, run_at from jobs where kind = 'documents.collect_orphan'`).all() as {
            payload: string;
            run_at: number;
          }[]
        )
          .map((r) => ({ ...JSON.parse(r.payload), runAt: Number(r.run_at) }))
          .filter((p) => p.documentId !== id);
      } finally {
        db.close();
      }
    };
    const deadline = Date.now() + 30_000;
    while (guardsOf().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    await killHard(api);
    assert.equal(await answered, 0, 'the client got no answer: the process died mid-upload');

    const db = new DatabaseSync(dbFile, { readOnly: true });
    try {
      assert.equal(
        (db.prepare('select count(*) as n from document_versions').get() as { n: number }).n,
        0,
        'no version row',
      );
      const row = db.prepare('select sha256, storage_key from documents where id = ?').get(id) as {
        sha256: string;
        storage_key: string;
      };
      assert.equal(
        row.sha256,
        createHash('sha256').update(V1).digest('hex'),
        'the document is still its first version',
      );
    } finally {
      db.close();
    }
    const guards = guardsOf();
    assert.equal(guards.length, 1, 'the version upload committed its orphan guard');
    assert.ok(guards[0].runAt > Date.now() + 50 * 60_000, 'due about an hour later');
    // Nothing was published under a final key: only the document's own file (a partial temp file is the hourly sweep's).
    assert.deepEqual(filesUnder(blobRoot), filesBefore);
    assert.ok(!filesUnder(blobRoot).some((f) => f.includes(guards[0].documentId)));

    api = await start('api-2');
    const list = (await (await fetch(`${api.base}/api/v1/documents/${id}/versions`, { headers })).json()) as Json;
    assert.equal(list.current_version, 1);
    assert.equal(list.versions.length, 1);
    assert.equal(await (await fetch(`${api.base}/api/v1/documents/${id}/download`, { headers })).text(), V1.toString());
    // A retried upload now succeeds as version 2.
    const retry = new FormData();
    retry.append('file', new Blob([content]), 'handbook.txt');
    const again = await fetch(`${api.base}/api/v1/documents/${id}/versions`, { method: 'POST', headers, body: retry });
    assert.equal(again.status, 201, await again.clone().text());
    assert.equal(((await again.json()) as Json).number, 2);
  });
});
