import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { describeEachBlobStore } from './blob-stores.ts';
import { documentCount, eventually, multipart, tinyPdf, upload, uploadOk } from './helpers.ts';

const MB = 1024 * 1024;

describeEachBlobStore('document upload', (ctx) => {
  let tenant: TestTenant;
  const t = () => ctx().t;

  /** Nothing of the tenant is stored: no rows, no blobs, no half-written data. */
  async function assertNothingStored(before: { rows: number; keys: number }) {
    assert.equal(await documentCount(t(), tenant.tenantId), before.rows);
    assert.equal(ctx().documentKeys().length, before.keys);
    assert.deepEqual(ctx().leftovers(), []);
  }
  const snapshot = async () => ({ rows: await documentCount(t(), tenant.tenantId), keys: ctx().documentKeys().length });

  it('stores a file, answers 201, and records the job and the event in the same transaction', async () => {
    tenant = await createTenant(t(), { tier: 'enterprise' });
    const res = await upload(t(), tenant.headers, { filename: 'hello.txt', content: Buffer.from('hello world\n') });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['ai_status', 'created_at', 'filename', 'id', 'status']);
    assert.equal(body.filename, 'hello.txt');
    assert.equal(body.status, 'processing');
    assert.equal(body.ai_status, 'queued');
    const db = t().container.database.db;
    const row = await db.selectFrom('documents').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    assert.equal(Number(row.file_size), 12);
    assert.equal(row.file_type, 'text/plain');
    assert.ok(
      ctx()
        .documentKeys()
        .some((k) => k.endsWith(`documents/${body.id}`)),
    );
    const jobs = await db.selectFrom('jobs').select('kind').where('payload', 'like', `%${body.id}%`).execute();
    assert.ok(jobs.some((j) => j.kind === 'processing.extract'));
    const events = await db
      .selectFrom('events')
      .selectAll()
      .where('tenant_id', '=', tenant.tenantId)
      .where('name', '=', 'document.uploaded')
      .execute();
    assert.ok(events.some((e) => JSON.parse(e.data).document_id === body.id));
  });

  it('accepts enable_ai as true/false/1/0: false gives ai_status skipped; anything else is 400 and stores nothing', async () => {
    for (const [value, expected] of [
      ['false', 'skipped'],
      ['0', 'skipped'],
      ['true', 'queued'],
      ['1', 'queued'],
    ] as const) {
      const res = await upload(t(), tenant.headers, { fields: { enable_ai: value } });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().ai_status, expected);
    }
    const before = await snapshot();
    assertError(await upload(t(), tenant.headers, { fields: { enable_ai: 'maybe' } }), 400, 'validation_error');
    await assertNothingStored(before);
  });

  it('takes tags as repeated parts, tags[] parts, a JSON array or comma-separated', async () => {
    const cases: Record<string, string | string[]>[] = [
      { tags: ['alpha', 'beta'] },
      { 'tags[]': ['alpha', 'beta'] },
      { tags: '["alpha","beta"]' },
      { tags: 'alpha, beta' },
    ];
    for (const fields of cases) {
      const id = await uploadOk(t(), tenant.headers, { fields });
      const doc = await t().app.inject({ url: `/api/v1/documents/${id}`, headers: tenant.headers });
      assert.deepEqual(doc.json().tags, ['alpha', 'beta'], JSON.stringify(fields));
    }
    const tags = await t().app.inject({ url: '/api/v1/tags', headers: tenant.headers });
    assert.deepEqual(
      tags.json().data.map((x: { name: string }) => x.name),
      ['alpha', 'beta'],
    );
  });

  it('handles fields sent after the file, and an unknown folder after the file is 404 with nothing stored', async () => {
    const folder = await t().app.inject({
      method: 'POST',
      url: '/api/v1/folders',
      headers: tenant.headers,
      payload: { name: 'Late' },
    });
    const folderId = folder.json().id;
    const after = multipart([
      { name: 'file', filename: 'late.txt', content: Buffer.from('late fields') },
      { name: 'folder_id', value: folderId },
      { name: 'filename', value: 'renamed.txt' },
    ]);
    const res = await t().app.inject({
      method: 'POST',
      url: '/api/v1/documents/upload',
      payload: after.payload,
      headers: { ...tenant.headers, ...after.headers },
    });
    assert.equal(res.statusCode, 201, res.body);
    const doc = (await t().app.inject({ url: `/api/v1/documents/${res.json().id}`, headers: tenant.headers })).json();
    assert.equal(doc.folder_id, folderId);
    assert.equal(doc.filename, 'renamed.txt');
    assert.equal(doc.original_filename, 'late.txt');

    const before = await snapshot();
    const missing = multipart([
      { name: 'file', filename: 'late.txt', content: Buffer.from('late fields') },
      { name: 'folder_id', value: '01890000-0000-7000-8000-000000000000' },
    ]);
    const res404 = await t().app.inject({
      method: 'POST',
      url: '/api/v1/documents/upload',
      payload: missing.payload,
      headers: { ...tenant.headers, ...missing.headers },
    });
    assertError(res404, 404, 'not_found');
    await assertNothingStored(before);
  });

  it('sanitises file names: no path, no control characters, at most 255 characters', async () => {
    const id = await uploadOk(t(), tenant.headers, { filename: 'C:\\Users\\me\\re\u0007port.txt' });
    let doc = (await t().app.inject({ url: `/api/v1/documents/${id}`, headers: tenant.headers })).json();
    assert.equal(doc.filename, 'report.txt');
    const long = `${'x'.repeat(300)}.txt`;
    const id2 = await uploadOk(t(), tenant.headers, { filename: 'a.txt', fields: { filename: `../../${long}` } });
    doc = (await t().app.inject({ url: `/api/v1/documents/${id2}`, headers: tenant.headers })).json();
    assert.equal(doc.filename.length, 255);
    assert.ok(doc.filename.endsWith('.txt'));
    assert.ok(!doc.filename.includes('/'));
  });

  it('checks type by extension and by content: 415 leaves nothing stored', async () => {
    const cases: [string, Buffer][] = [
      ['tool.exe', Buffer.from('MZ binary')],
      ['noextension', Buffer.from('text')],
      ['fake.pdf', Buffer.from('this is only text, not a PDF')],
      ['fake.png', tinyPdf()],
      ['binary.txt', Buffer.from([0x68, 0x00, 0x01, 0x02])],
      ['latin1.csv', Buffer.from([0x61, 0x2c, 0xe9, 0xe8, 0x0a, 0xff])],
      ['fake.docx', Buffer.from('plain text is not a zip')],
    ];
    for (const [filename, content] of cases) {
      const before = await snapshot();
      const res = await upload(t(), tenant.headers, { filename, content });
      assertError(res, 415, 'invalid_file_type');
      await assertNothingStored(before);
    }
  });

  it('refuses a custom filename naming the file as another type (415) and stores nothing', async () => {
    for (const custom of ['evil.exe', 'report.pdf']) {
      const before = await snapshot();
      const res = await upload(t(), tenant.headers, {
        filename: 'notes.txt',
        content: Buffer.from('plain text'),
        fields: { filename: custom },
      });
      assertError(res, 415, 'invalid_file_type');
      await assertNothingStored(before);
    }
    // A display name without an extension claims no type; another spelling of the same type is fine.
    const plain = await uploadOk(t(), tenant.headers, {
      filename: 'notes.txt',
      content: Buffer.from('plain text'),
      fields: { filename: 'Meeting notes' },
    });
    assert.equal(
      (await t().app.inject({ url: `/api/v1/documents/${plain}`, headers: tenant.headers })).json().filename,
      'Meeting notes',
    );
    const id = await uploadOk(t(), tenant.headers, {
      filename: 'photo.pdf',
      content: tinyPdf(),
      fields: { filename: 'Scan 2025.PDF' },
    });
    const doc = (await t().app.inject({ url: `/api/v1/documents/${id}`, headers: tenant.headers })).json();
    assert.equal(doc.filename, 'Scan 2025.PDF');
    assert.equal(doc.file_type, 'application/pdf');
  });

  it('accepts real content of each family: PDF, zip-based Office, OLE Office, UTF-8 text', async () => {
    const zip = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(200, 1)]);
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(1024)]);
    for (const [filename, content] of [
      ['doc.pdf', tinyPdf()],
      ['sheet.xlsx', zip],
      ['old.doc', ole],
      ['old.xls', ole],
      ['notes.md', Buffer.from('# Título\n\nÜnïcödé ✓\n')],
      ['data.csv', Buffer.from('a,b\n1,2\n')],
    ] as const) {
      const res = await upload(t(), tenant.headers, { filename, content });
      assert.equal(res.statusCode, 201, `${filename}: ${res.body}`);
    }
  });

  it('refuses a file past its type limit with 413 as it streams, storing nothing', async () => {
    const before = await snapshot();
    const res = await upload(t(), tenant.headers, { filename: 'big.md', content: Buffer.alloc(50 * MB + 1, 0x61) });
    const body = assertError(res, 413, 'file_too_large');
    assert.equal(body.details.max_bytes, 50 * MB);
    await assertNothingStored(before);
    // Exactly at the limit is fine.
    const ok = await upload(t(), tenant.headers, { filename: 'edge.md', content: Buffer.alloc(50 * MB, 0x61) });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it('refuses an empty file, a missing file, two files, and unknown fields with 400', async () => {
    const before = await snapshot();
    assertError(
      await upload(t(), tenant.headers, { filename: 'empty.txt', content: Buffer.alloc(0) }),
      400,
      'validation_error',
    );
    const none = multipart([{ name: 'enable_ai', value: 'true' }]);
    assertError(
      await t().app.inject({
        method: 'POST',
        url: '/api/v1/documents/upload',
        payload: none.payload,
        headers: { ...tenant.headers, ...none.headers },
      }),
      400,
      'validation_error',
    );
    const two = multipart([
      { name: 'file', filename: 'a.txt', content: Buffer.from('a') },
      { name: 'file', filename: 'b.txt', content: Buffer.from('b') },
    ]);
    assertError(
      await t().app.inject({
        method: 'POST',
        url: '/api/v1/documents/upload',
        payload: two.payload,
        headers: { ...tenant.headers, ...two.headers },
      }),
      400,
      'validation_error',
    );
    assertError(await upload(t(), tenant.headers, { fields: { colour: 'red' } }), 400, 'validation_error');
    assertError(
      await t().app.inject({
        method: 'POST',
        url: '/api/v1/documents/upload',
        payload: { file: 'x' },
        headers: tenant.headers,
      }),
      400,
      'validation_error',
    );
    await assertNothingStored(before);
  });

  it('leaves nothing behind when the client disconnects mid-file', async () => {
    const before = await snapshot();
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t().app.server.address() as AddressInfo;
    const boundary = 'abortboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`,
    );
    const declared = head.length + 40 * MB;
    let settled: () => void;
    const done = new Promise<void>((resolve) => (settled = resolve));
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/documents/upload',
      headers: {
        ...tenant.headers,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': declared,
      },
    });
    req.on('error', () => settled());
    req.on('close', () => settled());
    req.write(head);
    // Enough to be mid-way through a multipart S3 upload (parts of 8 MiB), then the client vanishes.
    const chunk = Buffer.alloc(MB, 0x20);
    for (let i = 0; i < 20; i++) {
      if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
    }
    await new Promise((r) => setTimeout(r, 200));
    req.destroy();
    await done;
    await eventually(
      async () => ctx().leftovers().length === 0 && ctx().documentKeys().length === before.keys,
      'cleanup after abort',
    );
    assert.equal(await documentCount(t(), tenant.tenantId), before.rows);
  });
});
