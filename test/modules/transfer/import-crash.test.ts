import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { LEASE_MS } from '../../../src/modules/transfer/instance-lease.ts';
import { writeTenantArchive } from '../../../src/modules/transfer/tenant-archive/archive-writer.ts';
import { multipart, uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { killHard, spawnService, stopService, waitReady } from '../../process/multi-process-support.ts';
import { ADMIN_KEY, describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant } from '../../support/fixtures.ts';

const DOCS = 24;

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function count(t: TestApp, table: 'tenants' | 'documents', column: string, value: string): Promise<number> {
  const row = await t.container.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .where(column as never, '=', value as never)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function importRow(t: TestApp, subdomain: string) {
  return t.container.database.db
    .selectFrom('tenant_imports')
    .selectAll()
    .where('subdomain', '=', subdomain)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

async function recordedKeys(t: TestApp, importId: string): Promise<string[]> {
  const rows = await t.container.database.db
    .selectFrom('tenant_import_blobs')
    .select('key')
    .where('import_id', '=', importId)
    .execute();
  return rows.map((r) => r.key);
}

async function existing(t: TestApp, keys: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const key of keys) if (await t.container.blobs.head(key)) out.push(key);
  return out;
}

/**
 * Issue 35: a tenant import killed with SIGKILL in the middle (a real child service process, the
 * archive half sent) commits nothing, and the files it had stored under the new tenant's prefix are
 * removed by the sweep of abandoned imports; the import then runs again from the start.
 */
describeEachDialect('a tenant import killed mid-way leaves nothing behind', (ctx) => {
  it('kill -9 during the files: no rows; the sweep deletes every stored file; the import runs again', async () => {
    const t = ctx();
    const source = await createTenant(t, { tier: 'team' });
    for (let i = 0; i < DOCS; i++)
      await uploadOk(t, source.headers, {
        filename: `doc-${i}.txt`,
        content: Buffer.from(randomBytes(48 * 1024).toString('hex')),
      });
    const deps = { database: t.container.database, blobs: t.container.blobs, now: () => Date.now() };
    const archiveKey = `test-archives/${source.tenantId}.tar`;
    await writeTenantArchive(deps, source.tenantId, archiveKey, async () => {});
    const chunks: Buffer[] = [];
    for await (const c of await t.container.blobs.get(archiveKey)) chunks.push(Buffer.from(c));
    const archive = Buffer.concat(chunks);
    const subdomain = `crash-${Math.random().toString(36).slice(2, 8)}`;
    const body = multipart([
      { name: 'subdomain', value: subdomain },
      { name: 'archive', filename: 'tenant.tar', content: archive, contentType: 'application/x-tar' },
    ]);

    const port = await freePort();
    const svc = spawnService('import-api', 'serve', {
      PORT: String(port),
      DATA_DIR: t.store.dataDir,
      ...(t.store.url ? { DATABASE_URL: t.store.url } : {}),
      ADMIN_API_KEY: ADMIN_KEY,
      RATE_LIMIT_ENABLED: 'false',
      LOG_LEVEL: 'warn',
    });
    let request: http.ClientRequest | undefined;
    try {
      await waitReady(svc);
      // Most of the archive, never the end: the import stores files and waits for the rest.
      request = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/admin/tenants/import',
        headers: {
          ...body.headers,
          'content-length': String(body.payload.length),
          authorization: `Bearer ${ADMIN_KEY}`,
        },
      });
      let answered = '';
      request.on('error', () => {}); // the server dies under it
      request.on('response', (res) => {
        answered = `${res.statusCode}`;
        res.on('data', (d) => (answered += String(d)));
      });
      request.write(body.payload.subarray(0, Math.floor(body.payload.length * 0.7)));
      const stored = await waitFor(
        async () => {
          if (answered) throw new Error(`the import answered before the kill: ${answered}\n${svc.output()}`);
          const row = await importRow(t, subdomain);
          if (!row) return undefined;
          const keys = await recordedKeys(t, row.id);
          const present = await existing(t, keys);
          return present.length >= 3 ? { row, keys, present } : undefined;
        },
        'the import to store some files',
        60_000,
      );
      assert.equal(stored.row.status, 'running');
      assert.ok(stored.keys.length >= DOCS, 'every key the files may take was recorded before the first one');
      // A live import (fresh heartbeat) is not the sweep's.
      assert.deepEqual(await t.container.modules.use('tenantExports').sweepImports(), { imports: 0, blobs: 0 });
      await killHard(svc);
    } finally {
      request?.destroy();
      await stopService(svc);
    }

    // What the kill left: no tenant, no rows, the files stored so far, and the journal naming them.
    const row = (await importRow(t, subdomain))!;
    assert.equal(row.status, 'running');
    assert.equal(await count(t, 'tenants', 'subdomain', subdomain), 0);
    assert.equal(await count(t, 'tenants', 'id', row.tenant_id), 0);
    assert.equal(await count(t, 'documents', 'tenant_id', row.tenant_id), 0);
    const keys = await recordedKeys(t, row.id);
    const orphans = await existing(t, keys);
    assert.ok(orphans.length >= 3, `the killed import had stored files (${orphans.length})`);
    assert.ok(orphans.every((k) => k.startsWith(`tenants/${row.tenant_id}/`)));
    assert.ok(row.staging_dir && fs.existsSync(row.staging_dir), 'the staging folder survived the kill');

    // Once the heartbeat is older than the lease, the sweep deletes every file and the staging folder.
    const swept = await t.container.modules.use('tenantExports').sweepImports(Date.now() + LEASE_MS + 1_000);
    assert.equal(swept.imports, 1);
    assert.equal(swept.blobs, keys.length);
    assert.deepEqual(await existing(t, keys), [], 'no orphan file left');
    assert.deepEqual(await recordedKeys(t, row.id), []);
    const after = (await importRow(t, subdomain))!;
    assert.equal(after.status, 'abandoned');
    assert.equal(fs.existsSync(row.staging_dir!), false);
    // Swept once only.
    assert.deepEqual(await t.container.modules.use('tenantExports').sweepImports(Date.now() + LEASE_MS + 1_000), {
      imports: 0,
      blobs: 0,
    });

    // Run again: the whole archive this time.
    const again = await t.admin({
      method: 'POST',
      url: '/api/v1/admin/tenants/import',
      payload: body.payload,
      headers: body.headers,
    });
    assert.equal(again.statusCode, 201, again.body);
    const report = again.json();
    assert.equal(report.tenant.subdomain, subdomain);
    assert.equal(report.imported.documents, DOCS);
    const done = (await importRow(t, subdomain))!;
    assert.equal(done.status, 'committed');
    assert.equal(done.tenant_id, report.tenant.id);
    assert.deepEqual(await recordedKeys(t, done.id), []);
    // A committed import is never swept: its files stay.
    await t.container.modules.use('tenantExports').sweepImports(Date.now() + LEASE_MS + 1_000);
    const files = await t.container.database.db
      .selectFrom('documents')
      .select('storage_key')
      .where('tenant_id', '=', report.tenant.id)
      .execute();
    assert.equal(files.length, DOCS);
    assert.equal(
      (
        await existing(
          t,
          files.map((f) => f.storage_key),
        )
      ).length,
      DOCS,
    );
  });

  it('a refused import is marked failed, its files deleted and its journal emptied', async () => {
    const t = ctx();
    const source = await createTenant(t, { tier: 'team' });
    for (let i = 0; i < 4; i++)
      await uploadOk(t, source.headers, {
        filename: `d-${i}.txt`,
        content: Buffer.from(randomBytes(16 * 1024).toString('hex')),
      });
    const deps = { database: t.container.database, blobs: t.container.blobs, now: () => Date.now() };
    const archiveKey = `test-archives/${source.tenantId}-small.tar`;
    const written = await writeTenantArchive(deps, source.tenantId, archiveKey, async () => {});
    const chunks: Buffer[] = [];
    for await (const c of await t.container.blobs.get(archiveKey)) chunks.push(Buffer.from(c));
    const archive = Buffer.concat(chunks).subarray(0, written.size - 40 * 1024);
    const subdomain = `cut-${Math.random().toString(36).slice(2, 8)}`;
    const body = multipart([
      { name: 'subdomain', value: subdomain },
      { name: 'archive', filename: 'tenant.tar', content: archive, contentType: 'application/x-tar' },
    ]);
    const res = await t.admin({
      method: 'POST',
      url: '/api/v1/admin/tenants/import',
      payload: body.payload,
      headers: body.headers,
    });
    assertError(res, 422, 'archive_damaged');
    const row = (await importRow(t, subdomain))!;
    assert.equal(row.status, 'failed');
    assert.match(row.error ?? '', /truncated|damaged/);
    assert.deepEqual(await recordedKeys(t, row.id), []);
    assert.equal(await count(t, 'documents', 'tenant_id', row.tenant_id), 0);
  });
});
