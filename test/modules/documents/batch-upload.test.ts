import assert from 'node:assert/strict';
import { it } from 'node:test';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { describeEachBlobStore } from './blob-stores.ts';
import { documentCount, eventually, multipart, type Part, tinyPdf } from './helpers.ts';

describeEachBlobStore(
  'batch upload',
  (ctx) => {
    let tenant: TestTenant;
    const t = () => ctx().t;
    const send = (parts: Part[]) => {
      const body = multipart(parts);
      return t().app.inject({
        method: 'POST',
        url: '/api/v1/documents/upload-batch',
        payload: body.payload,
        headers: { ...tenant.headers, ...body.headers },
      });
    };
    const file = (name: string, filename: string, content: Buffer | string): Part => ({
      name,
      filename,
      content: Buffer.isBuffer(content) ? content : Buffer.from(content),
    });

    it('accepts good files and lists rejected ones; the batch job reports progress', async () => {
      tenant = await createTenant(t(), { tier: 'enterprise' });
      const folder = await t().app.inject({
        method: 'POST',
        url: '/api/v1/folders',
        headers: tenant.headers,
        payload: { name: 'Batch' },
      });
      const res = await send([
        { name: 'folder_id', value: folder.json().id },
        file('files[]', 'one.txt', 'first'),
        file('files[]', 'fake.pdf', 'not a pdf'),
        file('files', 'two.pdf', tinyPdf()),
        file('files[]', 'virus.exe', 'MZ'),
        { name: 'enable_ai', value: '0' },
      ]);
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.ok(body.collection_id);
      assert.ok(body.batch_job_id);
      assert.deepEqual(
        body.documents.map((d: { filename: string }) => d.filename),
        ['one.txt', 'two.pdf'],
      );
      assert.ok(
        body.documents.every(
          (d: { status: string; ai_status: string }) => d.status === 'processing' && d.ai_status === 'skipped',
        ),
      );
      assert.deepEqual(
        body.rejected.map((r: { filename: string; code: string }) => [r.filename, r.code]),
        [
          ['fake.pdf', 'INVALID_FILE_TYPE'],
          ['virus.exe', 'INVALID_FILE_TYPE'],
        ],
      );
      assert.ok(
        body.rejected.every((r: { error: string; message: string }) => r.error === 'invalid_file_type' && r.message),
      );
      assert.equal(ctx().documentKeys().length, 2);
      const doc = await t().app.inject({ url: `/api/v1/documents/${body.documents[0].id}`, headers: tenant.headers });
      assert.equal(doc.json().folder_id, folder.json().id);

      const jobUrl = `/api/v1/batch-jobs/${body.batch_job_id}`;
      await eventually(
        async () => (await t().app.inject({ url: jobUrl, headers: tenant.headers })).json().status !== 'processing',
        'batch done',
      );
      const job = (await t().app.inject({ url: jobUrl, headers: tenant.headers })).json();
      assert.equal(job.id, body.batch_job_id);
      assert.equal(job.total, 4);
      assert.equal(job.completed, 2);
      assert.equal(job.failed, 2);
      assert.equal(job.status, 'completed_with_errors');
      assert.deepEqual(
        job.documents.map((d: { id: string }) => d.id),
        body.documents.map((d: { id: string }) => d.id),
      );
      assertError(
        await t().app.inject({
          url: '/api/v1/batch-jobs/01890000-0000-7000-8000-000000000000',
          headers: tenant.headers,
        }),
        404,
        'not_found',
      );
    });

    it('answers the first rejection with details.rejected when no file is accepted', async () => {
      const before = { rows: await documentCount(t(), tenant.tenantId), keys: ctx().documentKeys().length };
      const res = await send([file('files[]', 'a.exe', 'x'), file('files[]', 'b.pdf', 'text')]);
      const body = assertError(res, 415, 'invalid_file_type');
      assert.deepEqual(
        body.details.rejected.map((r: { filename: string }) => r.filename),
        ['a.exe', 'b.pdf'],
      );
      assert.equal(await documentCount(t(), tenant.tenantId), before.rows);
      assert.equal(ctx().documentKeys().length, before.keys);
    });

    it('refuses more than 10 files with 400 and stores nothing', async () => {
      const before = { rows: await documentCount(t(), tenant.tenantId), keys: ctx().documentKeys().length };
      const parts = Array.from({ length: 11 }, (_, i) => file('files[]', `f${i}.txt`, `file ${i}`));
      assertError(await send(parts), 400, 'validation_error');
      assert.equal(await documentCount(t(), tenant.tenantId), before.rows);
      assert.equal(ctx().documentKeys().length, before.keys);
      assert.deepEqual(ctx().leftovers(), []);
      const ten = await send(parts.slice(0, 10));
      assert.equal(ten.statusCode, 201, ten.body);
      assert.equal(ten.json().documents.length, 10);
    });

    it('refuses a batch without files, with a bad field, or with an unknown folder, storing nothing', async () => {
      const before = { rows: await documentCount(t(), tenant.tenantId), keys: ctx().documentKeys().length };
      assertError(await send([{ name: 'enable_ai', value: 'true' }]), 400, 'validation_error');
      assertError(
        await send([file('files[]', 'a.txt', 'a'), { name: 'enable_ai', value: 'perhaps' }]),
        400,
        'validation_error',
      );
      assertError(await send([file('file', 'a.txt', 'a')]), 400, 'validation_error');
      assertError(
        await send([
          file('files[]', 'a.txt', 'a'),
          { name: 'folder_id', value: '01890000-0000-7000-8000-000000000000' },
        ]),
        404,
        'not_found',
      );
      assert.equal(await documentCount(t(), tenant.tenantId), before.rows);
      assert.equal(ctx().documentKeys().length, before.keys);
    });
  },
  { worker: true },
);
