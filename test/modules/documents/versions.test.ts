import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import net from 'node:net';
import { Readable } from 'node:stream';
import { it } from 'node:test';
import type { RunningJob } from '../../../src/jobs/job-types.ts';
import { documentBlobKey } from '../../../src/modules/documents/document-job-kinds.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { localBlobFiles, multipart, type Part, tinyPdf, uploadOk } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function job<P>(kind: string, payload: P): RunningJob<P> {
  return {
    id: 'j',
    kind,
    payload,
    attempt: 1,
    maxAttempts: 3,
    tenantId: null,
    priority: 0,
    signal: new AbortController().signal,
    completeIn: async () => {},
  };
}

/** POST /documents/{id}/versions with these parts (a `file` part unless `parts` are given). */
function uploadVersion(
  t: TestApp,
  headers: Record<string, string>,
  id: string,
  file: { filename?: string; content: Buffer } | Part[],
  extra: Record<string, string> = {},
) {
  const parts = Array.isArray(file)
    ? file
    : [{ name: 'file', filename: file.filename ?? 'notes.txt', content: file.content }];
  const body = multipart(parts);
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/documents/${id}/versions`,
    payload: body.payload,
    headers: { ...headers, ...body.headers, ...extra },
  });
}

async function bytesCounted(t: TestApp, tenantId: string): Promise<number> {
  const row = await t.container.database.db
    .selectFrom('tenant_document_counts')
    .select('bytes')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

async function eventsNamed(t: TestApp, tenantId: string, name: string): Promise<Json[]> {
  const rows = await t.container.database.db
    .selectFrom('events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .execute();
  return rows.map((r) => JSON.parse(String(r.data)));
}

describeEachDialect('document versions', (ctx) => {
  const V1 = Buffer.from('Version one of the lease: the rent is 1000 a month.\n');
  const V2 = Buffer.from('Version two of the lease: the rent is 1200 a month, from March.\n');
  let tenant: TestTenant;
  const get = (url: string, headers: Record<string, string> = {}) =>
    ctx().app.inject({ method: 'GET', url, headers: { ...tenant.headers, ...headers } });
  const post = (url: string, headers: Record<string, string> = tenant.headers) =>
    ctx().app.inject({ method: 'POST', url, headers });

  it('a new version becomes current, the previous one is kept, listed and downloadable with ranges and validators', async () => {
    const t = ctx();
    tenant = await createTenant(t, { tier: 'enterprise' });
    const id = await uploadOk(t, tenant.headers, { filename: 'lease.txt', content: V1 });
    const single = (await get(`/api/v1/documents/${id}/versions`)).json();
    assert.equal(single.current_version, 1);
    assert.equal(single.versions.length, 1);
    assert.equal(single.versions[0].sha256, sha(V1));

    const res = await uploadVersion(t, tenant.headers, id, { filename: 'lease-v2.txt', content: V2 });
    assert.equal(res.statusCode, 201, res.body);
    const made = res.json();
    assert.equal(made.number, 2);
    assert.equal(made.current, true);
    assert.equal(made.created, true);
    assert.equal(made.sha256, sha(V2));
    assert.equal(made.file_size, V2.length);
    assert.equal(made.file_type, 'text/plain');
    assert.equal(made.status, 'processing', 'the new version is processed again');
    assert.equal(made.created_by, null, 'uploaded with an API key');

    const list = (await get(`/api/v1/documents/${id}/versions`)).json();
    assert.equal(list.current_version, 2);
    assert.deepEqual(
      list.versions.map((v: Json) => [v.number, v.current, v.file_size, v.sha256, v.filename]),
      [
        [1, false, V1.length, sha(V1), 'lease.txt'],
        [2, true, V2.length, sha(V2), 'lease-v2.txt'],
      ],
    );
    // The document is its current version: its download, size and checksum; it keeps its name.
    const doc = (await get(`/api/v1/documents/${id}`)).json();
    assert.equal(doc.file_size, V2.length);
    assert.equal(doc.filename, 'lease.txt');
    assert.equal((await get(`/api/v1/documents/${id}/download`)).body, V2.toString());

    const v1 = await get(`/api/v1/documents/${id}/versions/1/download`);
    assert.equal(v1.statusCode, 200);
    assert.equal(v1.body, V1.toString());
    assert.equal(v1.headers.etag, `"${sha(V1)}"`);
    assert.equal(v1.headers['accept-ranges'], 'bytes');
    assert.match(String(v1.headers['content-disposition']), /lease\.txt/);
    const part = await get(`/api/v1/documents/${id}/versions/1/download`, { range: 'bytes=0-6' });
    assert.equal(part.statusCode, 206);
    assert.equal(part.body, 'Version');
    assert.equal(part.headers['content-range'], `bytes 0-6/${V1.length}`);
    assert.equal(
      (await get(`/api/v1/documents/${id}/versions/1/download`, { 'if-none-match': `"${sha(V1)}"` })).statusCode,
      304,
    );
    // If-Range with another version's ETag: the whole file.
    assert.equal(
      (await get(`/api/v1/documents/${id}/versions/1/download`, { range: 'bytes=0-6', 'if-range': `"${sha(V2)}"` }))
        .statusCode,
      200,
    );
    const outside = await get(`/api/v1/documents/${id}/versions/1/download`, { range: `bytes=${V1.length + 10}-` });
    assertError(outside, 416, 'range_not_satisfiable');
    assert.equal(outside.headers['content-range'], `bytes */${V1.length}`);
    assert.equal((await get(`/api/v1/documents/${id}/versions/2/download`)).body, V2.toString());

    const created = await eventsNamed(t, tenant.tenantId, 'document.version_created');
    assert.deepEqual(
      created.map((e) => [e.document_id, e.version, e.sha256]),
      [[id, 2, sha(V2)]],
    );
  });

  it('an upload identical to the current version answers it (200) and adds nothing', async () => {
    const t = ctx();
    const id = await uploadOk(t, tenant.headers, { filename: 'same.txt', content: V1 });
    const same = await uploadVersion(t, tenant.headers, id, { filename: 'again.txt', content: V1 });
    assert.equal(same.statusCode, 200, same.body);
    assert.equal(same.json().number, 1);
    assert.equal(same.json().created, false);
    assert.equal((await get(`/api/v1/documents/${id}/versions`)).json().versions.length, 1);
    assert.equal((await uploadVersion(t, tenant.headers, id, { content: V2 })).statusCode, 201);
    const again = await uploadVersion(t, tenant.headers, id, { content: V2 });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().number, 2);
    // An earlier version's content is not the current one: it is a new version.
    const back = await uploadVersion(t, tenant.headers, id, { content: V1 });
    assert.equal(back.statusCode, 201);
    assert.equal(back.json().number, 3);
    const events = (await eventsNamed(t, tenant.tenantId, 'document.version_created')).filter(
      (e) => e.document_id === id,
    );
    assert.deepEqual(
      events.map((e) => e.version),
      [2, 3],
    );
    // The identical files left no bytes behind: three versions, three blobs (plus no temp files).
    const keys = localBlobFiles(t).blobs.filter((b) => b.startsWith(`tenants/${tenant.tenantId}/documents/`));
    const rows = await t.container.database.db
      .selectFrom('document_versions')
      .select('storage_key')
      .where('document_id', '=', id)
      .execute();
    for (const r of rows) assert.ok(keys.includes(r.storage_key), `${r.storage_key} stored`);
    assert.equal(rows.length, 3);
  });

  it('restore marks an earlier version current again; the next upload takes the next number', async () => {
    const t = ctx();
    const id = await uploadOk(t, tenant.headers, { filename: 'policy.txt', content: V1 });
    await uploadVersion(t, tenant.headers, id, { content: V2 });
    const restored = await post(`/api/v1/documents/${id}/versions/1/restore`);
    assert.equal(restored.statusCode, 200, restored.body);
    assert.equal(restored.json().number, 1);
    assert.equal(restored.json().restored, true);
    assert.equal((await get(`/api/v1/documents/${id}/download`)).body, V1.toString());
    const list = (await get(`/api/v1/documents/${id}/versions`)).json();
    assert.equal(list.current_version, 1);
    assert.deepEqual(
      list.versions.map((v: Json) => v.current),
      [true, false],
    );
    assert.equal((await get(`/api/v1/documents/${id}`)).json().status, 'processing');
    const again = await post(`/api/v1/documents/${id}/versions/1/restore`);
    assert.equal(again.json().restored, false);
    // Identical to the restored (current) version: nothing new.
    assert.equal((await uploadVersion(t, tenant.headers, id, { content: V1 })).statusCode, 200);
    const next = await uploadVersion(t, tenant.headers, id, { content: Buffer.from('a third text') });
    assert.equal(next.json().number, 3);
    const restoredEvents = (await eventsNamed(t, tenant.tenantId, 'document.version_restored')).filter(
      (e) => e.document_id === id,
    );
    assert.deepEqual(
      restoredEvents.map((e) => [e.version, e.previous_version]),
      [[1, 2]],
    );
  });

  it('a version of another type renames the document to its extension; `filename` names it', async () => {
    const t = ctx();
    const id = await uploadOk(t, tenant.headers, { filename: 'report.txt', content: V1 });
    const pdf = await uploadVersion(t, tenant.headers, id, { filename: 'scan.pdf', content: tinyPdf('Report') });
    assert.equal(pdf.statusCode, 201, pdf.body);
    assert.equal(pdf.json().file_type, 'application/pdf');
    const doc = (await get(`/api/v1/documents/${id}`)).json();
    assert.equal(doc.filename, 'report.pdf');
    assert.equal(doc.file_type, 'application/pdf');
    const named = await uploadVersion(t, tenant.headers, id, [
      { name: 'filename', value: 'Final report.txt' },
      { name: 'file', filename: 'x.txt', content: V2 },
    ]);
    assert.equal(named.statusCode, 201, named.body);
    assert.equal((await get(`/api/v1/documents/${id}`)).json().filename, 'Final report.txt');
  });

  it('counts every version in storage usage; deleting the document removes every version and its bytes', async () => {
    const t = ctx();
    const own = await createTenant(t, { tier: 'pro' });
    const id = await uploadOk(t, own.headers, { filename: 'usage.txt', content: V1 });
    assert.equal(await bytesCounted(t, own.tenantId), V1.length);
    await uploadVersion(t, own.headers, id, { content: V2 });
    assert.equal(await bytesCounted(t, own.tenantId), V1.length + V2.length);
    const V3 = Buffer.from('three');
    await uploadVersion(t, own.headers, id, { content: V3 });
    assert.equal(await bytesCounted(t, own.tenantId), V1.length + V2.length + V3.length);
    await t.app.inject({ method: 'POST', url: `/api/v1/documents/${id}/versions/1/restore`, headers: own.headers });
    assert.equal(await bytesCounted(t, own.tenantId), V1.length + V2.length + V3.length, 'a restore moves no bytes');
    const usage = (await t.app.inject({ method: 'GET', url: '/api/v1/subscription', headers: own.headers })).json();
    const usageBytes = JSON.stringify(usage).match(/"storage_bytes":\s*(\d+)/);
    if (usageBytes) assert.equal(Number(usageBytes[1]), V1.length + V2.length + V3.length);

    const keys = (
      await t.container.database.db
        .selectFrom('document_versions')
        .select('storage_key')
        .where('document_id', '=', id)
        .execute()
    ).map((r) => r.storage_key);
    assert.equal(keys.length, 3);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/documents/${id}`, headers: own.headers });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(await bytesCounted(t, own.tenantId), 0);
    assert.equal(
      (
        await t.container.database.db
          .selectFrom('document_versions')
          .select('id')
          .where('document_id', '=', id)
          .execute()
      ).length,
      0,
    );
    const removals = await t.container.database.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'documents.delete_blob')
      .where('tenant_id', '=', own.tenantId)
      .execute();
    const queued = removals.flatMap((r) => JSON.parse(String(r.payload)).keys as string[]);
    for (const key of keys) assert.ok(queued.includes(key), `${key} is removed with the document`);
    const handler = t.container.jobDefinitions().find((d) => d.kind === 'documents.delete_blob')!;
    for (const r of removals) await handler.handler(job('documents.delete_blob', JSON.parse(String(r.payload))));
    for (const key of keys) assert.equal(await t.container.blobs.head(key), null, `${key} is gone`);
  });

  it('refuses a version past the storage quota (403) and a file too large for its type (413), keeping the current version', async () => {
    const t = ctx();
    const own = await createTenant(t, { tier: 'free' });
    const id = await uploadOk(t, own.headers, { filename: 'q.txt', content: V1 });
    const before = localBlobFiles(t);
    const tooBig = await uploadVersion(t, own.headers, id, {
      filename: 'big.md',
      content: Buffer.alloc(50 * 1024 * 1024 + 1, 0x61),
    });
    assert.equal(assertError(tooBig, 413, 'file_too_large').details.max_bytes, 50 * 1024 * 1024);
    assert.deepEqual(localBlobFiles(t), before, 'nothing stored');
    await t.container.database.db
      .updateTable('tenant_document_counts')
      .set({ bytes: 1024 ** 3 - 10 })
      .where('tenant_id', '=', own.tenantId)
      .execute();
    assertError(await uploadVersion(t, own.headers, id, { content: V2 }), 403, 'tier_limit_exceeded');
    const list = (
      await t.app.inject({ method: 'GET', url: `/api/v1/documents/${id}/versions`, headers: own.headers })
    ).json();
    assert.equal(list.versions.length, 1);
    assert.equal(list.versions[0].current, true);
  });

  it('refuses bad requests: 404 unknown version, bad multipart, unknown fields, wrong types', async () => {
    const t = ctx();
    const id = await uploadOk(t, tenant.headers, { filename: 'errors.txt', content: V1 });
    assertError(await get(`/api/v1/documents/${id}/versions/2/download`), 404, 'not_found');
    assertError(await post(`/api/v1/documents/${id}/versions/2/restore`), 404, 'not_found');
    assertError(await get(`/api/v1/documents/${id}/versions/0/download`), 400, 'validation_error');
    assertError(await get(`/api/v1/documents/nope/versions`), 404, 'not_found');
    assertError(await uploadVersion(t, tenant.headers, 'nope', { content: V2 }), 404, 'not_found');
    // Not multipart at all.
    const json = await t.app.inject({
      method: 'POST',
      url: `/api/v1/documents/${id}/versions`,
      headers: tenant.headers,
      payload: { file: 'x' },
    });
    assert.equal(json.statusCode >= 400 && json.statusCode < 500, true, json.body);
    assertError(
      await uploadVersion(t, tenant.headers, id, [{ name: 'filename', value: 'x.txt' }]),
      400,
      'validation_error',
    );
    assertError(
      await uploadVersion(t, tenant.headers, id, [
        { name: 'folder_id', value: 'x' },
        { name: 'file', filename: 'a.txt', content: V2 },
      ]),
      400,
      'validation_error',
    );
    assertError(
      await uploadVersion(t, tenant.headers, id, [
        { name: 'file', filename: 'a.txt', content: V2 },
        { name: 'file', filename: 'b.txt', content: V2 },
      ]),
      400,
      'validation_error',
    );
    assertError(
      await uploadVersion(t, tenant.headers, id, { filename: 'fake.pdf', content: V2 }),
      415,
      'invalid_file_type',
    );
    assertError(
      await uploadVersion(t, tenant.headers, id, { filename: 'x.exe', content: V2 }),
      415,
      'invalid_file_type',
    );
    assert.equal((await get(`/api/v1/documents/${id}/versions`)).json().versions.length, 1);
    assert.equal(await documentBlobCountOf(t, tenant.tenantId, id), 1, 'refused files left no bytes');
  });

  it('permissions: viewers and members without edit access cannot add or restore versions; edit shares can', async () => {
    const t = ctx();
    const own = await createTenant(t, { tier: 'enterprise' });
    const alice = await loginAs(t, own, 'member', { email: `alice-${own.subdomain}@example.com` });
    const bob = await loginAs(t, own, 'member', { email: `bob-${own.subdomain}@example.com` });
    const viewer = await loginAs(t, own, 'viewer');
    const id = await uploadOk(t, alice.headers, { filename: 'alice.txt', content: V1 });
    const byAlice = await uploadVersion(t, alice.headers, id, { content: V2 });
    assert.equal(byAlice.statusCode, 201, byAlice.body);
    assert.equal(byAlice.json().created_by, alice.userId);
    // Not shared: invisible to bob and the viewer.
    assertError(await uploadVersion(t, bob.headers, id, { content: Buffer.from('bob') }), 404, 'not_found');
    assertError(
      await t.app.inject({ method: 'GET', url: `/api/v1/documents/${id}/versions`, headers: bob.headers }),
      404,
      'not_found',
    );
    assertError(await uploadVersion(t, viewer.headers, id, { content: Buffer.from('viewer') }), 404, 'not_found');
    // Shared for viewing: reads, but no upload or restore (403).
    for (const who of [bob, viewer]) {
      const share = await t.app.inject({
        method: 'POST',
        url: `/api/v1/documents/${id}/share`,
        headers: alice.headers,
        payload: { user_id: who.userId, permission: 'view' },
      });
      assert.equal(share.statusCode < 300, true, share.body);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/api/v1/documents/${id}/versions`, headers: who.headers }))
          .statusCode,
        200,
      );
      assert.equal(
        (
          await t.app.inject({
            method: 'GET',
            url: `/api/v1/documents/${id}/versions/1/download`,
            headers: who.headers,
          })
        ).statusCode,
        200,
      );
      assertError(await uploadVersion(t, who.headers, id, { content: Buffer.from('not allowed') }), 403, 'forbidden');
      assertError(
        await t.app.inject({ method: 'POST', url: `/api/v1/documents/${id}/versions/1/restore`, headers: who.headers }),
        403,
        'forbidden',
      );
    }
    // An edit share lets bob add a version.
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/documents/${id}/share`,
      headers: alice.headers,
      payload: { user_id: bob.userId, permission: 'edit' },
    });
    assert.equal((await uploadVersion(t, bob.headers, id, { content: Buffer.from('bob edits') })).statusCode, 201);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: `/api/v1/documents/${id}/versions/1/restore`, headers: bob.headers }))
        .statusCode,
      200,
    );
    // The viewer's share is capped at view, whatever alice grants.
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/documents/${id}/share`,
      headers: alice.headers,
      payload: { user_id: viewer.userId, permission: 'edit' },
    });
    assertError(await uploadVersion(t, viewer.headers, id, { content: Buffer.from('viewer edits') }), 403, 'forbidden');
  });

  it('tenant isolation: another tenant sees none of it (404 on every version route)', async () => {
    const t = ctx();
    const other = await createTenant(t, { tier: 'enterprise' });
    const id = await uploadOk(t, tenant.headers, { filename: 'mine.txt', content: V1 });
    await uploadVersion(t, tenant.headers, id, { content: V2 });
    const as = other.headers;
    assertError(
      await t.app.inject({ method: 'GET', url: `/api/v1/documents/${id}/versions`, headers: as }),
      404,
      'not_found',
    );
    assertError(
      await t.app.inject({ method: 'GET', url: `/api/v1/documents/${id}/versions/1/download`, headers: as }),
      404,
      'not_found',
    );
    assertError(
      await t.app.inject({ method: 'POST', url: `/api/v1/documents/${id}/versions/1/restore`, headers: as }),
      404,
      'not_found',
    );
    assertError(await uploadVersion(t, as, id, { content: Buffer.from('intruder') }), 404, 'not_found');
    assert.equal((await get(`/api/v1/documents/${id}/versions`)).json().current_version, 2);
  });

  it('Idempotency-Key: a repeat is answered from the first answer, a different body under the key is refused', async () => {
    const t = ctx();
    const id = await uploadOk(t, tenant.headers, { filename: 'idem.txt', content: V1 });
    const key = { 'idempotency-key': `version-${id}` };
    const first = await uploadVersion(t, tenant.headers, id, { content: V2 }, key);
    assert.equal(first.statusCode, 201, first.body);
    const repeat = await uploadVersion(t, tenant.headers, id, { content: V2 }, key);
    assert.equal(repeat.statusCode, 201, 'the stored answer, not the 200 of an identical file');
    assert.equal(repeat.headers['idempotent-replayed'], 'true');
    assert.deepEqual(repeat.json(), first.json());
    assert.equal((await get(`/api/v1/documents/${id}/versions`)).json().versions.length, 2);
    const other = await uploadVersion(t, tenant.headers, id, { content: Buffer.from('something else') }, key);
    assert.equal(other.statusCode, 422, other.body);
  });

  it('a client that goes away mid-upload leaves the previous version current and no row or bytes', async () => {
    const t = ctx();
    const id = await uploadOk(t, tenant.headers, { filename: 'cut.txt', content: V1 });
    const before = localBlobFiles(t).blobs.length;
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    const body = multipart([
      { name: 'file', filename: 'cut.txt', content: Buffer.from('half a new version '.repeat(2000)) },
    ]);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        const headers = {
          ...tenant.headers,
          ...body.headers,
          host: `127.0.0.1:${port}`,
          'content-length': String(body.payload.length),
        };
        socket.write(
          [
            `POST /api/v1/documents/${id}/versions HTTP/1.1`,
            ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
            '',
            '',
          ].join('\r\n'),
        );
        socket.write(body.payload.subarray(0, body.payload.length >> 1), () =>
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 100),
        );
      });
      socket.on('error', reject);
    });
    await waitFor(
      async () => localBlobFiles(t).blobs.length === before && localBlobFiles(t).temp.length === 0,
      'the cut upload removed',
      10_000,
    );
    const list = (await get(`/api/v1/documents/${id}/versions`)).json();
    assert.equal(list.versions.length, 1);
    assert.equal((await get(`/api/v1/documents/${id}/download`)).body, V1.toString());
  });

  it('kill -9 between storing a version and committing it: the previous version stays current and the orphan guard removes the bytes', async () => {
    const t = ctx();
    const id = await uploadOk(t, tenant.headers, { filename: 'crash.txt', content: V1 });
    const collect = t.container.jobDefinitions().find((d) => d.kind === 'documents.collect_orphan')!;
    // A committed version: its guard keeps its bytes.
    const made = (await uploadVersion(t, tenant.headers, id, { content: V2 })).json();
    const row = await t.container.database.db
      .selectFrom('document_versions')
      .selectAll()
      .where('document_id', '=', id)
      .where('number', '=', made.number)
      .executeTakeFirstOrThrow();
    const guards = await t.container.database.db
      .selectFrom('jobs')
      .select('payload')
      .where('kind', '=', 'documents.collect_orphan')
      .execute();
    assert.ok(
      guards.some((g) => JSON.parse(String(g.payload)).documentId === row.id),
      'the version upload committed its orphan guard',
    );
    await collect.handler(job('documents.collect_orphan', { tenantId: tenant.tenantId, documentId: row.id }));
    assert.ok(await t.container.blobs.head(row.storage_key), 'a committed version keeps its bytes');
    // The state a kill -9 leaves: bytes stored under a reserved version id, no row.
    const versionId = '01a1f000-0000-7000-8000-0000000dead2';
    const key = documentBlobKey(tenant.tenantId, versionId);
    await t.container.blobs.put(key, Readable.from([Buffer.from('stored, never committed')]));
    await collect.handler(job('documents.collect_orphan', { tenantId: tenant.tenantId, documentId: versionId }));
    assert.equal(await t.container.blobs.head(key), null);
    assert.equal((await get(`/api/v1/documents/${id}/versions`)).json().current_version, 2);
  });
});

/** Blob files of one document: its own key and its versions'. */
async function documentBlobCountOf(t: TestApp, tenantId: string, id: string): Promise<number> {
  const keys = new Set([documentBlobKey(tenantId, id)]);
  for (const r of await t.container.database.db
    .selectFrom('document_versions')
    .select('storage_key')
    .where('document_id', '=', id)
    .execute())
    keys.add(r.storage_key);
  let n = 0;
  for (const key of keys) if (await t.container.blobs.head(key)) n += 1;
  return n;
}
