import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as tar from 'tar-stream';
import { multipart, uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { DIALECTS, startTestApp, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/** Fills a tenant with one of every kind of object, through the API. */
async function fill(t: TestApp, tenant: TestTenant) {
  const h = tenant.headers;
  const call = async (method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown, headers = h) => {
    const res = await t.app.inject({
      method,
      url: `/api/v1${url}`,
      headers,
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const parent = await call('POST', '/folders', { name: 'Contracts' });
  const child = await call('POST', '/folders', { name: '2026', parent_id: parent.id });
  await call('POST', '/tags', { name: 'urgent', color: '#ff0000' });
  const member = await loginAs(t, tenant, 'member');
  const ws = await call('POST', '/workspaces', { name: 'Legal', description: 'the legal team' });
  await call('POST', `/workspaces/${ws.id}/members`, { user_id: member.userId });
  const docs: string[] = [];
  for (let i = 0; i < 3; i++) {
    docs.push(
      await uploadOk(t, h, {
        filename: `contract-${i}.txt`,
        content: Buffer.from(`Contract number ${i}: the lessee pays rent monthly. ${'clause '.repeat(50 * (i + 1))}\n`),
        fields: { folder_id: i === 0 ? child.id : parent.id, tags: 'urgent' },
      }),
    );
  }
  // The third document gets versions 2 and 3, then version 2 is restored: version 1's bytes stay
  // under the document's own key, the current file is version 2's, and version 3 is an earlier one.
  for (const n of [2, 3]) {
    const body = multipart([
      {
        name: 'file',
        filename: `contract-2-v${n}.txt`,
        content: Buffer.from(`Contract number 2, version ${n}: the lessee pays rent ${'quarterly '.repeat(20 * n)}\n`),
        contentType: 'text/plain',
      },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/documents/${docs[2]}/versions`,
      payload: body.payload,
      headers: { ...h, ...body.headers },
    });
    assert.equal(res.statusCode, 201, res.body);
  }
  await call('POST', `/documents/${docs[2]}/versions/2/restore`);
  await call('POST', `/documents/${docs[0]}/share`, { user_id: member.userId, permission: 'view' });
  await call('POST', `/documents/${docs[1]}/share`, { workspace_id: ws.id, permission: 'edit' });
  const db = t.container.database.db;
  await waitFor(
    async () =>
      (await db.selectFrom('documents').select('status').where('tenant_id', '=', tenant.tenantId).execute()).every(
        (d) => d.status === 'completed' || d.status === 'processed',
      ),
    'documents processed',
    60_000,
  ).catch(() => undefined);
  await call('POST', '/webhooks', { url: 'https://hooks.example.com/docs', events: ['document.processed'] });
  await call('POST', '/dag/workflows', {
    name: 'Route contracts',
    description: 'tags new uploads',
    trigger: { type: 'manual' },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'end', type: 'end', depends_on: ['start'] },
    ],
  }).catch(() => undefined);
  return { docs, member };
}

/** Every API answer of a tenant that does not depend on ids, in a comparable form. */
async function snapshot(t: TestApp, headers: Record<string, string>) {
  const get = async (url: string) => (await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers })).json();
  const strip = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === 'object') {
      const out: Json = {};
      for (const [k, v] of Object.entries(value)) {
        if (
          k === 'id' ||
          k.endsWith('_id') ||
          k.endsWith('_ids') ||
          (k === 'url' && typeof v === 'string' && v.includes('/api/'))
        )
          continue;
        if (['created_at', 'updated_at', 'thumbnail_url', 'download_url', 'last_used_at', 'secret_preview'].includes(k))
          continue;
        out[k] = strip(v);
      }
      return out;
    }
    return value;
  };
  const documents = (await get('/documents?page_size=100')).data;
  const sortBy = (rows: Json[], key: string) => [...rows].sort((a, b) => String(a[key]).localeCompare(String(b[key])));
  const contents: Record<string, string> = {};
  for (const d of documents) {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/documents/${d.id}/download`, headers });
    contents[d.filename] = createHash('sha256').update(res.rawPayload).digest('hex');
  }
  // Every document's versions (ids and users' ids aside) and each version's downloaded bytes.
  const versions: Record<string, Json> = {};
  for (const d of documents) {
    const list = await get(`/documents/${d.id}/versions`);
    const bytes: string[] = [];
    for (const v of list.versions) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${d.id}/versions/${v.number}/download`,
        headers,
      });
      assert.equal(res.statusCode, 200, res.body);
      bytes.push(createHash('sha256').update(res.rawPayload).digest('hex'));
    }
    versions[d.filename] = {
      ...strip(list),
      versions: strip(list.versions).map((v: Json) => ({ ...v, created_by: v.created_by !== null })),
      bytes,
    };
  }
  return {
    versions,
    folders: sortBy(strip((await get('/folders')).folders), 'name'),
    tags: strip((await get('/tags')).data),
    documents: sortBy(strip(documents), 'filename'),
    contents,
    users: sortBy(strip((await get('/users?page_size=100')).data), 'email').map((u: Json) => ({
      email: u.email,
      role: u.role,
      name: u.name,
    })),
    workspaces: strip((await get('/workspaces')).data),
    workflows: strip((await get('/dag/workflows')).data ?? []).map((w: Json) => ({ name: w.name, status: w.status })),
    search: ((await get('/search?q=lessee')).results ?? []).map((r: Json) => r.document.filename).sort(),
  };
}

async function exportAndWait(
  t: TestApp,
  url: string,
  headers: Record<string, string>,
  statusUrl: (id: string) => string,
): Promise<Json> {
  const started = await t.app.inject({ method: 'POST', url, headers });
  assert.equal(started.statusCode, 202, started.body);
  const id = started.json().id;
  return waitFor(
    async () => {
      const res = await t.app.inject({ method: 'GET', url: statusUrl(id), headers });
      const body = res.json();
      return body.status === 'completed' || body.status === 'failed' ? body : undefined;
    },
    'the export to finish',
    240_000,
  );
}

function importRequest(archive: Buffer, fields: Record<string, string> = {}) {
  return multipart([
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
    { name: 'archive', filename: 'tenant.tar', content: archive, contentType: 'application/x-tar' },
  ]);
}

/** Rewrites an archive entry by entry (to damage it). */
async function rewrite(archive: Buffer, change: (name: string, bytes: Buffer) => Buffer | null): Promise<Buffer> {
  const extract = tar.extract();
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const c of pack as unknown as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
  })();
  extract.end(archive);
  for await (const entry of extract) {
    const parts: Buffer[] = [];
    for await (const c of entry as unknown as AsyncIterable<Buffer>) parts.push(Buffer.from(c));
    const out = change(entry.header.name, Buffer.concat(parts));
    if (out)
      await new Promise<void>((resolve, reject) =>
        pack.entry({ name: entry.header.name }, out, (e) => (e ? reject(e) : resolve())),
      );
  }
  pack.finalize();
  await collected;
  return Buffer.concat(chunks);
}

/** The tenant's storage usage as the database's triggers keep it (documents, bytes: every version's). */
async function usage(t: TestApp, tenantId: string) {
  const row = await t.container.database.db
    .selectFrom('tenant_document_counts')
    .select(['documents', 'bytes'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return { documents: Number(row?.documents ?? 0), bytes: Number(row?.bytes ?? 0) };
}

async function tenantCount(t: TestApp): Promise<number> {
  return Number(
    (
      await t.container.database.db
        .selectFrom('tenants')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
}

for (const dialect of DIALECTS) {
  describe(`tenant export and import [${dialect}]`, () => {
    let a: TestApp;
    let b: TestApp;
    let tenant: TestTenant;
    let archive: Buffer;
    let exported: Json;
    before(async () => {
      a = await startTestApp(dialect, { worker: true, env: { EXPORT_RETENTION_HOURS: '1' } });
      b = await startTestApp(dialect, { worker: true });
      tenant = await createTenant(a, { tier: 'team' });
      await fill(a, tenant);
    });
    after(async () => {
      await a?.close();
      await b?.close();
    });

    it('the owner exports; progress, then a download with Range, and the event', async () => {
      const owner = await loginAs(a, tenant, 'owner');
      exported = await exportAndWait(a, '/api/v1/tenant/export', owner.headers, (id) => `/api/v1/exports/${id}`);
      assert.equal(exported.status, 'completed', JSON.stringify(exported));
      assert.equal(exported.progress.percent, 100);
      assert.ok(exported.expires_at);
      const full = await a.app.inject({ method: 'GET', url: exported.download_url, headers: owner.headers });
      assert.equal(full.statusCode, 200);
      assert.equal(full.headers['content-type'], 'application/x-tar');
      archive = full.rawPayload;
      assert.equal(archive.length, exported.size);
      assert.equal(createHash('sha256').update(archive).digest('hex'), exported.sha256);
      const part = await a.app.inject({
        method: 'GET',
        url: exported.download_url,
        headers: { ...owner.headers, range: 'bytes=10-99' },
      });
      assert.equal(part.statusCode, 206);
      assert.deepEqual(part.rawPayload, archive.subarray(10, 100));
      assert.equal(part.headers['content-range'], `bytes 10-99/${archive.length}`);
      const events = await a.container.database.db
        .selectFrom('events')
        .selectAll()
        .where('tenant_id', '=', tenant.tenantId)
        .where('name', '=', 'tenant.export.completed')
        .execute();
      assert.equal(events.length, 1);
      assert.equal(JSON.parse(events[0]!.data).export_id, exported.id);
      // The manifest comes first and lists what is not portable; no webhook secret in clear.
      const text = archive.toString('latin1');
      assert.ok(text.startsWith('manifest.json'));
      assert.match(text, /"not_portable"/);
      assert.doesNotMatch(text, /whsec_/);
    });

    it('imports into a fresh service: every answer that does not depend on ids is the same', async () => {
      const res = await b.admin({
        method: 'POST',
        url: '/api/v1/admin/tenants/import',
        ...withBody(importRequest(archive)),
      });
      assert.equal(res.statusCode, 201, res.body);
      const report = res.json();
      assert.equal(report.tenant.subdomain, tenant.subdomain);
      assert.equal(report.passwords, 'reset', 'another service cannot vouch for the hashes');
      assert.equal(report.imported.documents, 3);
      assert.equal(report.imported.files, 3);
      assert.equal(report.imported.document_versions, 3);
      assert.equal(report.imported.version_files, 2, 'the current version travels once, as the document’s file');
      assert.equal(report.imported.folders, 2);
      assert.ok(report.imported.users >= 2);
      assert.equal(report.imported.webhooks, 1);
      assert.ok(report.not_imported.api_keys);
      assert.deepEqual(report.remapped, {}, 'ids are free on a fresh service');

      const ownerA = await loginAs(a, tenant, 'owner');
      // Passwords must be reset on the other service: log in there through a new password.
      const user = await b.container.database.db
        .selectFrom('users')
        .select(['id', 'password_hash'])
        .where('tenant_id', '=', report.tenant.id)
        .where('email', '=', tenant.ownerEmail)
        .executeTakeFirstOrThrow();
      assert.equal(user.password_hash, null);
      const keyRes = await b.container.database.db
        .selectFrom('tenants')
        .select('id')
        .where('subdomain', '=', tenant.subdomain)
        .executeTakeFirstOrThrow();
      assert.equal(keyRes.id, report.tenant.id);
      const { hashPassword } = await import('../../../src/lib/passwords.ts');
      await b.container.database.db
        .updateTable('users')
        .set({ password_hash: await hashPassword(tenant.ownerPassword) })
        .where('id', '=', user.id)
        .execute();
      const ownerB = await loginAs(b, { ...tenant, tenantId: report.tenant.id }, 'owner');
      const before = await snapshot(a, ownerA.headers);
      const afterImport = await snapshot(b, ownerB.headers);
      assert.deepEqual(afterImport.folders, before.folders);
      assert.deepEqual(afterImport.tags, before.tags);
      assert.deepEqual(afterImport.documents, before.documents);
      assert.deepEqual(afterImport.contents, before.contents);
      assert.deepEqual(afterImport.users, before.users);
      assert.deepEqual(afterImport.workspaces, before.workspaces);
      assert.deepEqual(afterImport.workflows, before.workflows);
      assert.deepEqual(afterImport.search, before.search);
      assert.deepEqual(afterImport.versions, before.versions);
      assert.equal(
        Object.values(before.versions).filter((v: Json) => v.versions.length === 3 && v.current_version === 2).length,
        1,
      );
      assert.deepEqual(await usage(b, report.tenant.id), await usage(a, tenant.tenantId));
      // The imported versions are the service's own: the next upload is version 4, every version still downloads.
      const versioned = (
        await b.app.inject({ method: 'GET', url: '/api/v1/documents?page_size=100', headers: ownerB.headers })
      )
        .json()
        .data.find((d: Json) => d.filename === 'contract-2.txt');
      const v4 = multipart([
        {
          name: 'file',
          filename: 'contract-2-v4.txt',
          content: Buffer.from('Contract number 2, version 4\n'),
          contentType: 'text/plain',
        },
      ]);
      const added = await b.app.inject({
        method: 'POST',
        url: `/api/v1/documents/${versioned.id}/versions`,
        payload: v4.payload,
        headers: { ...ownerB.headers, ...v4.headers },
      });
      assert.equal(added.statusCode, 201, added.body);
      assert.equal(added.json().number, 4);
      for (const n of [1, 2, 3, 4])
        assert.equal(
          (
            await b.app.inject({
              method: 'GET',
              url: `/api/v1/documents/${versioned.id}/versions/${n}/download`,
              headers: ownerB.headers,
            })
          ).statusCode,
          200,
        );
      const hooks = (await b.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: ownerB.headers })).json()
        .webhooks;
      assert.equal(hooks[0].status, 'paused');
    });

    it('imports into the same service under another subdomain: ids remapped consistently, passwords kept, isolation holds', async () => {
      const res = await a.admin({
        method: 'POST',
        url: '/api/v1/admin/tenants/import',
        ...withBody(importRequest(archive, { subdomain: `${tenant.subdomain}-copy` })),
      });
      assert.equal(res.statusCode, 201, res.body);
      const report = res.json();
      assert.equal(report.passwords, 'kept');
      assert.equal(report.remapped.documents, 3);
      assert.notEqual(report.tenant.id, tenant.tenantId);
      const copy = { ...tenant, subdomain: report.tenant.subdomain, tenantId: report.tenant.id };
      const ownerCopy = await loginAs(a, copy, 'owner');
      const ownerA = await loginAs(a, tenant, 'owner');
      const original = await snapshot(a, ownerA.headers);
      const copied = await snapshot(a, ownerCopy.headers);
      assert.deepEqual(copied.documents, original.documents);
      assert.deepEqual(copied.folders, original.folders);
      assert.deepEqual(copied.contents, original.contents);
      assert.deepEqual(copied.versions, original.versions);
      assert.equal(report.remapped.document_versions, 3);
      assert.deepEqual(await usage(a, report.tenant.id), await usage(a, tenant.tenantId));
      // Each version's bytes are the copy's own: under the new tenant's prefix, not shared with the original.
      const keys = await a.container.database.db
        .selectFrom('document_versions')
        .select('storage_key')
        .where('tenant_id', '=', report.tenant.id)
        .execute();
      assert.equal(keys.length, 3);
      assert.equal(new Set(keys.map((k) => k.storage_key)).size, 3);
      for (const k of keys)
        assert.ok(k.storage_key.startsWith(`tenants/${report.tenant.id}/documents/`), k.storage_key);
      // The copy's documents are its own: the original tenant cannot read them.
      const copyDocs = (
        await a.app.inject({ method: 'GET', url: '/api/v1/documents', headers: ownerCopy.headers })
      ).json().data;
      for (const d of copyDocs)
        assertError(
          await a.app.inject({ method: 'GET', url: `/api/v1/documents/${d.id}`, headers: ownerA.headers }),
          404,
          'not_found',
        );
      // Folder references were remapped with the folders.
      const folderIds = new Set(
        (await a.app.inject({ method: 'GET', url: '/api/v1/folders', headers: ownerCopy.headers }))
          .json()
          .folders.map((f: Json) => f.id),
      );
      for (const d of copyDocs)
        assert.ok(folderIds.has(d.folder_id), 'a document points at a folder of its own tenant');
      // Subdomain taken: 409.
      assertError(
        await a.admin({ method: 'POST', url: '/api/v1/admin/tenants/import', ...withBody(importRequest(archive)) }),
        409,
        'conflict',
      );
    });

    it('refuses a damaged archive naming the first bad entry, with nothing created', async () => {
      const tenantsBefore = await tenantCount(b);
      const blobCount = async () =>
        Number(
          (
            await b.container.database.db
              .selectFrom('documents')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const docsBefore = await blobCount();
      const corrupted = await rewrite(archive, (name, bytes) => {
        if (!name.startsWith('files/')) return bytes;
        const copy = Buffer.from(bytes);
        copy[0] = copy[0]! ^ 0xff;
        return copy;
      });
      const bad = await b.admin({
        method: 'POST',
        url: '/api/v1/admin/tenants/import',
        ...withBody(importRequest(corrupted, { subdomain: 'damaged-one' })),
      });
      const body = assertError(bad, 422, 'archive_damaged');
      assert.match(body.details.entry, /^files\//);
      assert.match(body.message, /checksum mismatch/);

      const truncated = archive.subarray(0, Math.floor(archive.length * 0.7));
      const cut = await b.admin({
        method: 'POST',
        url: '/api/v1/admin/tenants/import',
        ...withBody(importRequest(truncated, { subdomain: 'damaged-two' })),
      });
      const cutBody = assertError(cut, 422, 'archive_damaged');
      assert.ok(cutBody.details.entry);

      // A damaged or missing earlier version is refused like a file.
      const versionBad = await rewrite(archive, (name, bytes) => {
        if (!name.startsWith('versions/')) return bytes;
        const copy = Buffer.from(bytes);
        copy[0] = copy[0]! ^ 0xff;
        return copy;
      });
      const vRes = await b.admin({
        method: 'POST',
        url: '/api/v1/admin/tenants/import',
        ...withBody(importRequest(versionBad, { subdomain: 'damaged-version' })),
      });
      const vBody = assertError(vRes, 422, 'archive_damaged');
      assert.match(vBody.details.entry, /^versions\//);
      assert.match(vBody.message, /checksum mismatch/);
      const versionGone = await rewrite(archive, (name, bytes) => (name.startsWith('versions/') ? null : bytes));
      const goneBody = assertError(
        await b.admin({
          method: 'POST',
          url: '/api/v1/admin/tenants/import',
          ...withBody(importRequest(versionGone, { subdomain: 'damaged-version-gone' })),
        }),
        422,
        'archive_damaged',
      );
      assert.match(goneBody.details.entry, /^versions\//);

      const rowsBad = await rewrite(archive, (name, bytes) =>
        name === 'users.ndjson' ? Buffer.concat([bytes, Buffer.from('{"id":"x"}\n')]) : bytes,
      );
      const rowsRes = await b.admin({
        method: 'POST',
        url: '/api/v1/admin/tenants/import',
        ...withBody(importRequest(rowsBad, { subdomain: 'damaged-three' })),
      });
      assert.equal(assertError(rowsRes, 422, 'archive_damaged').details.entry, 'users.ndjson');

      assert.equal(await tenantCount(b), tenantsBefore);
      assert.equal(await blobCount(), docsBefore);
      const stored = await b.container.blobs.head(
        `tenants/${JSON.parse(archiveManifest(archive)).tenant.id}/documents/none`,
      );
      assert.equal(stored, null);
    });

    it('a failure in the rows’ transaction (every file stored, their fsyncs in flight) commits nothing and deletes the files', async () => {
      // documents.ndjson lists one more document than the archive has files for, its manifest line
      // updated to match (the signature then fails: only the passwords would be reset): every entry
      // passes its check, the files are stored, and the rows' transaction fails on that document.
      const manifest = JSON.parse(archiveManifest(archive)) as {
        tenant: { id: string };
        entries: { name: string; size: number; sha256: string; rows?: number }[];
      };
      let documentIds: string[] = [];
      const ghost = '0190a000-dead-7000-8000-000000000001';
      const withGhost = await rewrite(archive, (name, bytes) => {
        if (name !== 'documents.ndjson') return bytes;
        const rows = bytes
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        documentIds = rows.map((r) => String(r.id));
        return Buffer.from(`${bytes.toString('utf8')}${JSON.stringify({ ...rows[0], id: ghost })}\n`);
      });
      const ghostRows = await (async () => {
        let out: Buffer | null = null;
        await rewrite(withGhost, (name, bytes) => {
          if (name === 'documents.ndjson') out = bytes;
          return bytes;
        });
        return out as unknown as Buffer;
      })();
      const entries = manifest.entries.map((e) =>
        e.name === 'documents.ndjson'
          ? {
              ...e,
              size: ghostRows.length,
              sha256: createHash('sha256').update(ghostRows).digest('hex'),
              rows: (e.rows ?? 0) + 1,
            }
          : e,
      );
      const damaged = await rewrite(withGhost, (name, bytes) =>
        name === 'manifest.json' ? Buffer.from(JSON.stringify({ ...manifest, entries })) : bytes,
      );
      const tenantsBefore = await tenantCount(b);
      const res = await b.admin({
        method: 'POST',
        url: '/api/v1/admin/tenants/import',
        ...withBody(importRequest(damaged, { subdomain: 'damaged-rows' })),
      });
      const body = assertError(res, 422, 'archive_damaged');
      assert.equal(body.details.entry, `files/${ghost}`);
      assert.match(body.message, /documents\.ndjson lists the document but the archive has no file for it/);
      assert.equal(await tenantCount(b), tenantsBefore);
      assert.ok(documentIds.length > 0);
      // The files were stored (every one passed its check) and are gone again: none under any tenant id.
      const imports = await b.container.database.db
        .selectFrom('tenant_imports')
        .select(['tenant_id', 'status'])
        .where('subdomain', '=', 'damaged-rows')
        .execute();
      assert.deepEqual(
        imports.map((i) => i.status),
        ['failed'],
      );
      // Stored under the import's tenant id (the archive's, or a new one where taken): nothing left there.
      const folder = path.join(b.container.config.dataDir, 'blobs', 'tenants', imports[0]!.tenant_id);
      assert.ok(fs.existsSync(path.join(folder, 'documents')), 'the files were stored there before the rows failed');
      const left = fs.readdirSync(folder, { recursive: true, withFileTypes: true });
      assert.deepEqual(
        left.filter((f) => f.isFile()).map((f) => f.name),
        [],
      );
    });

    it('refuses up front an import larger than the tier’s storage', async () => {
      const manifest = JSON.parse(archiveManifest(archive));
      const huge = await rewrite(archive, (name, bytes) =>
        name === 'manifest.json'
          ? Buffer.from(JSON.stringify({ ...manifest, totals: { ...manifest.totals, file_bytes: 2 * 1024 ** 3 } }))
          : bytes,
      );
      const tenantsBefore = await tenantCount(b);
      assertError(
        await b.admin({
          method: 'POST',
          url: '/api/v1/admin/tenants/import',
          ...withBody(importRequest(huge, { subdomain: 'too-big', tier: 'free' })),
        }),
        403,
        'tier_limit_exceeded',
      );
      assert.equal(await tenantCount(b), tenantsBefore);
    });

    it('refuses everyone but the owner, and hides one tenant’s export from another', async () => {
      for (const role of ['admin', 'member', 'viewer'] as const) {
        const user = await loginAs(a, tenant, role);
        assertError(
          await a.app.inject({ method: 'POST', url: '/api/v1/tenant/export', headers: user.headers }),
          403,
          'forbidden',
        );
        assertError(
          await a.app.inject({ method: 'GET', url: `/api/v1/exports/${exported.id}`, headers: user.headers }),
          403,
          'forbidden',
        );
      }
      assertError(
        await a.app.inject({ method: 'POST', url: '/api/v1/tenant/export', headers: tenant.headers }),
        403,
        'forbidden',
      );
      const other = await createTenant(a);
      const otherOwner = await loginAs(a, other, 'owner');
      assertError(
        await a.app.inject({ method: 'GET', url: `/api/v1/exports/${exported.id}`, headers: otherOwner.headers }),
        404,
        'not_found',
      );
      assertError(
        await a.app.inject({
          method: 'GET',
          url: `/api/v1/exports/${exported.id}/download`,
          headers: otherOwner.headers,
        }),
        404,
        'not_found',
      );
      assertError(
        await a.app.inject({
          method: 'POST',
          url: `/api/v1/admin/tenants/${tenant.tenantId}/export`,
          headers: tenant.headers,
        }),
        401,
        'unauthorized',
      );
    });

    it('the administrator exports any tenant; the archive expires after EXPORT_RETENTION_HOURS', async () => {
      const done = await exportAndWait(
        a,
        `/api/v1/admin/tenants/${tenant.tenantId}/export`,
        { authorization: `Bearer test-admin-key-0123456789` },
        (id) => `/api/v1/admin/tenants/${tenant.tenantId}/exports/${id}`,
      );
      assert.equal(done.status, 'completed');
      const dl = await a.admin({ method: 'GET', url: done.download_url });
      assert.equal(dl.statusCode, 200);
      // Past the retention: the sweep deletes the archive, the download is gone.
      await a.container.database.db
        .updateTable('tenant_exports')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', done.id)
        .execute();
      const owner = await loginAs(a, tenant, 'owner');
      assertError(
        await a.app.inject({ method: 'GET', url: `/api/v1/exports/${done.id}/download`, headers: owner.headers }),
        404,
        'not_found',
      );
      const row = await a.container.database.db
        .selectFrom('tenant_exports')
        .select(['blob_key'])
        .where('id', '=', done.id)
        .executeTakeFirstOrThrow();
      assert.ok(await a.container.blobs.head(row.blob_key!));
      assert.ok((await a.container.modules.use('tenantExports').expire()) >= 1);
      assert.equal(await a.container.blobs.head(row.blob_key!), null, 'the archive is deleted');
      const expired = (
        await a.admin({ method: 'GET', url: `/api/v1/admin/tenants/${tenant.tenantId}/exports/${done.id}` })
      ).json();
      assert.equal(expired.status, 'expired');
      assert.equal(expired.download_url, null);
      assertError(
        await a.admin({ method: 'GET', url: `/api/v1/admin/tenants/${tenant.tenantId}/exports/${done.id}/download` }),
        404,
        'not_found',
      );
    });
  });
}

function withBody(body: { payload: Buffer; headers: Record<string, string> }) {
  return { payload: body.payload, headers: body.headers };
}

function archiveManifest(archive: Buffer): string {
  const size = Number.parseInt(archive.subarray(124, 136).toString('ascii').trim(), 8);
  return archive.subarray(512, 512 + size).toString('utf8');
}
