import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { documentCount, eventually, tinyPdf, uploadOk } from './helpers.ts';

/** The start of a JPEG (enough for content detection). */
function jpegBytes(): Buffer {
  return Buffer.concat([Buffer.from('FFD8FFE000104A46494600010100000100010000', 'hex'), Buffer.alloc(512)]);
}

describeEachDialect(
  'documents: list, get, update, delete, content',
  (ctx) => {
    let tenant: TestTenant;
    const get = (url: string) => ctx().app.inject({ url: `/api/v1${url}`, headers: tenant.headers });
    const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((d) => d.id);
    const docs = { a: '', b: '', c: '', d: '' };
    let folderId: string;
    let tagId: string;

    it('lists with the paged envelope, newest first by default', async () => {
      tenant = await createTenant(ctx(), { tier: 'enterprise' });
      folderId = (
        await ctx().app.inject({
          method: 'POST',
          url: '/api/v1/folders',
          headers: tenant.headers,
          payload: { name: 'F' },
        })
      ).json().id;
      // Created one after another, so created_at orders them; sizes and names differ on purpose.
      docs.b = await uploadOk(ctx(), tenant.headers, { filename: 'beta.txt', content: Buffer.from('bb') });
      docs.a = await uploadOk(ctx(), tenant.headers, {
        filename: 'alpha.pdf',
        content: tinyPdf('Hello PDF', { author: 'Ada Lovelace' }),
        fields: { folder_id: folderId, tags: 'red' },
      });
      docs.c = await uploadOk(ctx(), tenant.headers, {
        filename: 'gamma_50%.md',
        content: Buffer.from('c'.repeat(5000)),
        fields: { folder_id: folderId },
      });
      docs.d = await uploadOk(ctx(), tenant.headers, {
        filename: 'Delta.csv',
        content: Buffer.from('x,y\n'),
        fields: { tags: ['red', 'blue'] },
      });
      const res = await get('/documents');
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.total, 4);
      assert.equal(body.page, 1);
      assert.equal(body.page_size, 20);
      assert.equal(body.total_pages, 1);
      assert.deepEqual(ids(res), [docs.d, docs.c, docs.a, docs.b]);
      // The API-key variant carries entities.
      assert.deepEqual(body.data[0].entities, {
        people: [],
        organizations: [],
        dates: [],
        locations: [],
        amounts: [],
        details: null,
      });
      assert.equal(body.data[0].ai_document_type, null);
      assert.equal(body.data[0].storage_path, undefined);
    });

    it('pages with page and limit (max 100)', async () => {
      const p1 = await get('/documents?limit=3&page=1');
      assert.deepEqual(ids(p1), [docs.d, docs.c, docs.a]);
      assert.equal(p1.json().total_pages, 2);
      const p2 = await get('/documents?limit=3&page=2');
      assert.deepEqual(ids(p2), [docs.b]);
      assert.equal(p2.json().page, 2);
      assert.deepEqual(ids(await get('/documents?limit=3&page=3')), []);
      assertError(await get('/documents?limit=101'), 400, 'validation_error');
      assertError(await get('/documents?page=0'), 400, 'validation_error');
    });

    it('pages with page_size as every paged list does (limit stays an alias; page_size wins)', async () => {
      const p1 = await get('/documents?page_size=2');
      assert.deepEqual(ids(p1), [docs.d, docs.c]);
      assert.deepEqual([p1.json().page_size, p1.json().total_pages, p1.json().total], [2, 2, 4]);
      assert.deepEqual(ids(await get('/documents?page_size=2&page=2')), [docs.a, docs.b]);
      assert.deepEqual(ids(await get('/documents?limit=1&page_size=3')), [docs.d, docs.c, docs.a]);
      assertError(await get('/documents?page_size=101'), 400, 'validation_error');
      assertError(await get('/documents?page_size=0'), 400, 'validation_error');
    });

    it('sorts by name (case-insensitively: Delta between beta and gamma), created_at, updated_at and size in either order', async () => {
      assert.deepEqual(ids(await get('/documents?sort=name&order=asc')), [docs.a, docs.b, docs.d, docs.c]);
      assert.deepEqual(ids(await get('/documents?sort=name&order=desc')), [docs.c, docs.d, docs.b, docs.a]);
      assert.deepEqual(ids(await get('/documents?sort=created_at&order=asc')), [docs.b, docs.a, docs.c, docs.d]);
      assert.deepEqual(ids(await get('/documents?sort=size&order=asc')), [docs.b, docs.d, docs.a, docs.c]);
      assert.deepEqual(ids(await get('/documents?sort=size&order=desc')), [docs.c, docs.a, docs.d, docs.b]);
      // Processing writes updated_at too: let every document finish before touching b.
      for (const id of Object.values(docs)) {
        await eventually(async () => {
          const d = (await get(`/documents/${id}`)).json();
          return d.status !== 'processing' && d.ai_status !== 'queued' && d.ai_status !== 'processing';
        }, `processing of ${id}`);
      }
      // Touch b: it becomes the most recently updated.
      await ctx().app.inject({
        method: 'PUT',
        url: `/api/v1/documents/${docs.b}`,
        headers: tenant.headers,
        payload: { tags: ['x'] },
      });
      assert.equal(ids(await get('/documents?sort=updated_at&order=desc'))[0], docs.b);
      assertError(await get('/documents?sort=colour'), 400, 'validation_error');
      assertError(await get('/documents?order=up'), 400, 'validation_error');
    });

    it('filters by folder, tag, search, file type and dates', async () => {
      assert.deepEqual(ids(await get(`/documents?folder_id=${folderId}`)).sort(), [docs.a, docs.c].sort());
      assert.deepEqual(ids(await get('/documents?folder_id=root')).sort(), [docs.b, docs.d].sort());
      const tags = (await get('/tags')).json().data as { id: string; name: string }[];
      tagId = tags.find((t) => t.name === 'red')!.id;
      assert.deepEqual(ids(await get(`/documents?tag_id=${tagId}`)).sort(), [docs.a, docs.d].sort());
      assert.deepEqual(ids(await get(`/documents?tag_id=${tagId}&folder_id=${folderId}`)), [docs.a]);
      assert.deepEqual(ids(await get('/documents?search=ALPH')), [docs.a]);
      assert.deepEqual(ids(await get('/documents?search=50%25')), [docs.c]);
      assert.deepEqual(ids(await get('/documents?search=_')), [docs.c]);
      assert.deepEqual(ids(await get('/documents?file_type=application/pdf')), [docs.a]);
      assert.deepEqual(ids(await get('/documents?file_type=csv')), [docs.d]);
      assert.deepEqual(ids(await get('/documents?file_type=.md')), [docs.c]);
      // Spellings of one type find each other: jpg/jpeg, with or without dot, any case.
      const jpg = await uploadOk(ctx(), tenant.headers, { filename: 'photo.jpg', content: jpegBytes() });
      const jpeg = await uploadOk(ctx(), tenant.headers, { filename: 'photo2.JPEG', content: jpegBytes() });
      for (const spelling of ['jpg', 'jpeg', '.JPG', 'image/jpeg']) {
        assert.deepEqual(ids(await get(`/documents?file_type=${spelling}`)).sort(), [jpg, jpeg].sort(), spelling);
      }
      for (const id of [jpg, jpeg])
        await ctx().app.inject({ method: 'DELETE', url: `/api/v1/documents/${id}`, headers: tenant.headers });
      const today = new Date().toISOString().slice(0, 10);
      assert.equal((await get(`/documents?date_start=${today}&date_end=${today}`)).json().total, 4);
      assert.equal((await get('/documents?date_end=2000-01-01')).json().total, 0);
      assert.equal((await get('/documents?date_start=2999-01-01T00:00:00Z')).json().total, 0);
      assertError(await get('/documents?date_start=yesterday'), 400, 'validation_error');
    });

    it('gets a document with its detail fields', async () => {
      const res = await get(`/documents/${docs.a}`);
      assert.equal(res.statusCode, 200);
      const d = res.json();
      for (const field of [
        'id',
        'filename',
        'original_filename',
        'file_type',
        'file_size',
        'folder_id',
        'status',
        'ai_status',
        'ai_summary',
        'ai_tags',
        'tags',
        'created_at',
        'updated_at',
        'storage_path',
        'thumbnail_url',
        'ai_thumbnail_url',
        'entities',
        'metadata',
        'processing_error',
      ]) {
        assert.ok(field in d, field);
      }
      assert.equal(d.file_type, 'application/pdf');
      assert.equal(d.folder_id, folderId);
      assert.deepEqual(d.tags, ['red']);
      assert.match(d.thumbnail_url, new RegExp(`/api/v1/documents/${docs.a}/thumbnail$`));
      assertError(await get('/documents/01890000-0000-7000-8000-000000000000'), 404, 'not_found');
    });

    it('processes: text extracted, status completed; enable_ai=false stays skipped', async () => {
      const off = await uploadOk(ctx(), tenant.headers, {
        filename: 'off.txt',
        content: Buffer.from('no ai here'),
        fields: { enable_ai: 'false' },
      });
      await eventually(async () => (await get(`/documents/${off}`)).json().status === 'completed', 'processing');
      const d = (await get(`/documents/${off}`)).json();
      assert.equal(d.ai_status, 'skipped');
      assert.equal(d.processing_error, null);
      const content = (await get(`/documents/${off}/content`)).json();
      assert.deepEqual(content, { content: 'no ai here', content_type: 'extracted_text', length: 10 });
      await eventually(async () => (await get(`/documents/${docs.a}`)).json().status === 'completed', 'pdf processing');
      const pdf = (await get(`/documents/${docs.a}/content`)).json();
      assert.equal(pdf.content, 'Hello PDF');
      assert.equal(pdf.pages, 1);
      assert.deepEqual((await get(`/documents/${docs.a}`)).json().metadata, { pages: 1, author: 'Ada Lovelace' });
      const events = await ctx()
        .container.database.db.selectFrom('events')
        .select(['name', 'data'])
        .where('tenant_id', '=', tenant.tenantId)
        .execute();
      assert.ok(events.some((e) => e.name === 'document.processed' && JSON.parse(e.data).document_id === off));
    });

    it('updates partially: rename, move (folder must exist), tags by name created on first use; empty body 400', async () => {
      const url = `/api/v1/documents/${docs.b}`;
      const put = (payload: unknown) =>
        ctx().app.inject({ method: 'PUT', url, headers: tenant.headers, payload: payload as object });
      const res = await put({ filename: 'beta-renamed.txt', folder_id: folderId, tags: ['Green', 'red', 'green'] });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().filename, 'beta-renamed.txt');
      assert.equal(res.json().original_filename, 'beta.txt');
      assert.equal(res.json().folder_id, folderId);
      assert.deepEqual(res.json().tags, ['Green', 'red']);
      const moved = await put({ folder_id: null });
      assert.equal(moved.json().folder_id, null);
      assert.equal(moved.json().filename, 'beta-renamed.txt');
      assert.deepEqual((await put({ tags: [] })).json().tags, []);
      assertError(await put({}), 400, 'validation_error');
      assertError(await put({ filename: 'a/b.txt' }), 400, 'validation_error');
      assertError(await put({ filename: 'bad\u0000.txt' }), 400, 'validation_error');
      // A rename keeps the document's type: a text file is not renamed to .pdf or .exe.
      for (const filename of ['beta.pdf', 'beta.exe']) {
        const body = assertError(await put({ filename }), 400, 'validation_error');
        assert.equal(body.details.errors[0].field, 'filename');
      }
      // A name without an extension is a display name and claims no type.
      assert.equal((await put({ filename: 'Beta report v1.2' })).json().filename, 'Beta report v1.2');
      assert.equal((await put({ filename: 'BETA.TXT' })).json().filename, 'BETA.TXT');
      assertError(await put({ folder_id: '01890000-0000-7000-8000-000000000000' }), 404, 'not_found');
      assertError(await put({ unknown: 1 }), 400, 'validation_error');
    });

    it('deletes permanently: row, tags, shares, content, and the bytes through a queued job', async () => {
      const row = await ctx()
        .container.database.db.selectFrom('documents')
        .selectAll()
        .where('id', '=', docs.d)
        .executeTakeFirstOrThrow();
      const before = await documentCount(ctx(), tenant.tenantId);
      const res = await ctx().app.inject({
        method: 'DELETE',
        url: `/api/v1/documents/${docs.d}`,
        headers: tenant.headers,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(typeof res.json().message, 'string');
      assert.equal(await documentCount(ctx(), tenant.tenantId), before - 1);
      assertError(await get(`/documents/${docs.d}`), 404, 'not_found');
      assertError(await get(`/documents/${docs.d}/download`), 404, 'not_found');
      const links = await ctx()
        .container.database.db.selectFrom('document_tags')
        .selectAll()
        .where('document_id', '=', docs.d)
        .execute();
      assert.equal(links.length, 0);
      await eventually(async () => (await ctx().container.blobs.head(row.storage_key)) === null, 'blob deleted');
      assertError(
        await ctx().app.inject({ method: 'DELETE', url: `/api/v1/documents/${docs.d}`, headers: tenant.headers }),
        404,
        'not_found',
      );
    });
  },
  { worker: true },
);
