import assert from 'node:assert/strict';
import { it } from 'node:test';
import JSZip from 'jszip';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { tinyPdf, uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { findTesseract } from '../../../src/providers/extraction/native-tesseract.ts';

const CONTRACT = [
  'Master Services Agreement.',
  'This agreement is made on March 3, 2026 between Northwind Traders Ltd and Contoso Corporation.',
  'Jane Smith, Chief Executive Officer of Northwind Traders Ltd, signs for the supplier.',
  'The supplier will deliver quarterly reports on cloud storage usage and invoice USD 12,500.00 per quarter.',
  'Either party may end the agreement with ninety days notice in writing.',
  'Disputes are settled under the laws of the State of New York.',
].join(' ');

/** A minimal Word document holding `paragraphs`. */
async function docx(paragraphs: string[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  const body = paragraphs.map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`).join('');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}

describeEachDialect(
  'processing pipeline',
  (ctx) => {
    let tenant: TestTenant;
    const get = (url: string, headers = tenant.headers) =>
      ctx().app.inject({ method: 'GET', url: `/api/v1${url}`, headers });
    const post = (url: string, headers = tenant.headers) =>
      ctx().app.inject({ method: 'POST', url: `/api/v1${url}`, headers });
    // Polls the row, then reads the API once: polling the API itself spent the tier's requests a
    // minute (429) whenever processing took more than a few seconds on a loaded machine.
    const settled = async (id: string, headers = tenant.headers) => {
      await waitFor(
        async () => {
          const d = await ctx()
            .container.database.db.selectFrom('documents')
            .select(['status', 'ai_status'])
            .where('id', '=', id)
            .executeTakeFirst();
          return (
            d !== undefined && d.status !== 'processing' && d.ai_status !== 'processing' && d.ai_status !== 'queued'
          );
        },
        `document ${id} to finish processing`,
        60_000,
      );
      return (await get(`/documents/${id}`, headers)).json();
    };

    it('extracts, summarises, tags, finds entities and embeds passages; emits document.processed', async () => {
      tenant = await createTenant(ctx());
      const id = await uploadOk(ctx(), tenant.headers, { filename: 'msa.txt', content: Buffer.from(CONTRACT) });
      const doc = await settled(id);
      assert.equal(doc.status, 'completed');
      assert.equal(doc.ai_status, 'completed');
      assert.equal(doc.processing_error, null);
      assert.ok(doc.ai_summary.length > 20 && doc.ai_summary.length < CONTRACT.length, doc.ai_summary);
      assert.ok(doc.ai_tags.length > 0 && doc.ai_tags.every((t: string) => t === t.toLowerCase()), String(doc.ai_tags));
      assert.ok(doc.entities.people.includes('Jane Smith'), JSON.stringify(doc.entities));
      assert.ok(
        doc.entities.organizations.some((o: string) => /Northwind/.test(o)),
        JSON.stringify(doc.entities),
      );
      assert.ok(doc.entities.dates.includes('2026-03-03'), JSON.stringify(doc.entities));

      const chunks = await ctx()
        .container.database.db.selectFrom('document_chunks')
        .selectAll()
        .where('tenant_id', '=', tenant.tenantId)
        .where('document_id', '=', id)
        .execute();
      assert.ok(chunks.length >= 1);
      // Hashed features (384) and GloVe word vectors (100), as `npm ci` installs them.
      assert.ok(
        chunks.every(
          (c) =>
            c.embedding !== null &&
            c.embedding.byteLength === 484 * 4 &&
            c.embedding_model === 'local-hash-glove-v2-glove6b100d-100k-i8:484',
        ),
      );

      const events = await ctx()
        .container.database.db.selectFrom('events')
        .selectAll()
        .where('tenant_id', '=', tenant.tenantId)
        .where('name', '=', 'document.processed')
        .execute();
      const data = JSON.parse(events.find((e) => JSON.parse(e.data).document_id === id)!.data);
      assert.deepEqual(Object.keys(data).sort(), ['ai_summary', 'ai_tags', 'document_id', 'status']);
      assert.equal(data.ai_summary, doc.ai_summary);
    });

    it('leaves no progress once processed, and the entities it found filter the list', async () => {
      const id = await uploadOk(ctx(), tenant.headers, { filename: 'msa-2.txt', content: Buffer.from(CONTRACT) });
      const doc = await settled(id);
      assert.equal(doc.processing_progress, null);
      const left = await ctx()
        .container.database.db.selectFrom('document_progress')
        .select('document_id')
        .where('document_id', '=', id)
        .execute();
      assert.deepEqual(left, []);
      const listed = await get('/documents?entity=northwind&entity_type=organization&status=completed');
      assert.equal(listed.statusCode, 200, listed.body);
      assert.ok(
        listed.json().data.some((d: { id: string }) => d.id === id),
        listed.body,
      );
      assert.deepEqual((await get('/documents?entity=contoso&entity_type=person')).json().data, []);
    });

    it('extracts DOCX and PDF text, with pages readable one by one', async () => {
      const w = await uploadOk(ctx(), tenant.headers, {
        filename: 'memo.docx',
        content: await docx(['Quarterly memo', 'Budget approved by Alice Martin.']),
      });
      const p = await uploadOk(ctx(), tenant.headers, { filename: 'one.pdf', content: tinyPdf('Invoice total due') });
      await settled(w);
      const word = (await get(`/documents/${w}/content`)).json();
      assert.match(word.content, /Budget approved by Alice Martin/);
      assert.equal(word.content_type, 'extracted_text');
      const pdf = await settled(p);
      assert.equal(pdf.metadata.pages, 1);
      const page = (await get(`/documents/${p}/content?page=1`)).json();
      assert.equal(page.page, 1);
      assert.equal(page.pages, 1);
      assert.match(page.content, /Invoice total due/);
      assertError(await get(`/documents/${p}/content?page=2`), 400, 'validation_error');
      assertError(await get(`/documents/${w}/content?page=1`), 400, 'validation_error');
    });

    it('enable_ai=false extracts text but skips AI', async () => {
      const id = await uploadOk(ctx(), tenant.headers, {
        filename: 'plain.txt',
        content: Buffer.from(CONTRACT),
        fields: { enable_ai: 'false' },
      });
      const doc = await settled(id);
      assert.equal(doc.status, 'completed');
      assert.equal(doc.ai_status, 'skipped');
      assert.equal(doc.ai_summary, null);
      assert.match((await get(`/documents/${id}/content`)).json().content, /Northwind/);
    });

    it('a corrupt file fails with its stage named and document.failed', async () => {
      const id = await uploadOk(ctx(), tenant.headers, {
        filename: 'broken.docx',
        content: Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(200, 7)]),
      });
      const doc = await waitFor(
        async () => {
          const d = (await get(`/documents/${id}`)).json();
          return d.status === 'failed' ? d : undefined;
        },
        'the corrupt document to fail',
        30_000,
      );
      assert.equal(doc.ai_status, 'failed');
      assert.equal(doc.processing_error.stage, 'extraction');
      assert.ok(doc.processing_error.message.length > 0);
      const failed = await ctx()
        .container.database.db.selectFrom('events')
        .select('data')
        .where('tenant_id', '=', tenant.tenantId)
        .where('name', '=', 'document.failed')
        .execute();
      assert.ok(failed.some((e) => JSON.parse(e.data).document_id === id));
    });

    it('reprocess answers 202, runs the pipeline again, and respects permissions and tenants', async () => {
      const id = await uploadOk(ctx(), tenant.headers, { filename: 'again.txt', content: Buffer.from(CONTRACT) });
      await settled(id);
      const res = await post(`/documents/${id}/reprocess`);
      assert.equal(res.statusCode, 202, res.body);
      // The same start as an upload's: processing's first job, keyed so a waiting reprocess is not doubled.
      const started = await ctx()
        .container.database.db.selectFrom('jobs')
        .select('kind')
        .where('unique_key', '=', `reprocess:${id}`)
        .executeTakeFirst();
      assert.equal(started?.kind, 'processing.extract');
      assert.equal(res.json().status, 'processing');
      assert.equal(res.json().ai_status, 'queued');
      const doc = await settled(id);
      assert.equal(doc.status, 'completed');
      assert.equal(doc.ai_status, 'completed');
      const other = await createTenant(ctx());
      assertError(await post(`/documents/${id}/reprocess`, other.headers), 404, 'not_found');
      const viewer = await loginAs(ctx(), tenant, 'viewer');
      assertError(await post(`/documents/${id}/reprocess`, viewer.headers), 404, 'not_found');
      assertError(await post('/documents/doc_missing/reprocess'), 404, 'not_found');
    });

    it('runs jobs of the old kind name (documents.process) still queued by an older version', async () => {
      const id = await uploadOk(ctx(), tenant.headers, { filename: 'legacy.txt', content: Buffer.from(CONTRACT) });
      await settled(id);
      const { database, jobs } = ctx().container;
      // As an older version left it: the document waiting, its extraction queued under the old name.
      await database.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('documents')
          .set({ status: 'processing', ai_status: 'queued', ai_summary: null })
          .where('id', '=', id)
          .execute();
        await jobs.enqueue(
          trx,
          'documents.process',
          { tenantId: tenant.tenantId, documentId: id },
          { tenantId: tenant.tenantId },
        );
      });
      const doc = await settled(id);
      assert.equal(doc.status, 'completed');
      assert.equal(doc.ai_status, 'completed');
      assert.ok(doc.ai_summary.length > 20, 'the whole pipeline ran again from the old kind');
    });

    it('apply-ai-tags turns AI tags into tags once', async () => {
      const id = await uploadOk(ctx(), tenant.headers, {
        filename: 'tags.txt',
        content: Buffer.from(CONTRACT),
        fields: { tags: ['kept'] },
      });
      const doc = await settled(id);
      const first = await post(`/documents/${id}/apply-ai-tags`);
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual([...first.json().tags_applied].sort(), [...doc.ai_tags].sort());
      const after = (await get(`/documents/${id}`)).json();
      for (const t of doc.ai_tags) assert.ok(after.tags.includes(t), `${t} in ${after.tags}`);
      assert.ok(after.tags.includes('kept'));
      assert.deepEqual((await post(`/documents/${id}/apply-ai-tags`)).json().tags_applied, []);
      const other = await createTenant(ctx());
      assertError(await post(`/documents/${id}/apply-ai-tags`, other.headers), 404, 'not_found');
    });

    it('media without transcription keeps its metadata and says why AI was skipped', async () => {
      const id = await uploadOk(ctx(), tenant.headers, { filename: 'clip.wav', content: wav(0.5) });
      const doc = await settled(id);
      assert.equal(doc.status, 'completed');
      assert.equal(doc.ai_status, 'skipped');
      assert.equal(doc.processing_error.stage, 'transcription');
      assert.match(doc.processing_error.message, /transcription/);
      assert.ok(Math.abs(doc.metadata.duration_seconds - 0.5) < 0.05, JSON.stringify(doc.metadata));
    });

    it('reports its capabilities on /health', async () => {
      const res = await ctx().app.inject({ method: 'GET', url: '/health' });
      assert.equal(res.statusCode, 200);
      const caps = res.json().capabilities;
      assert.equal(caps.ai_provider, 'local');
      assert.equal(caps.ocr, true);
      // The system's tesseract where it is on the PATH (CI installs it), tesseract.js otherwise.
      assert.equal(caps.ocr_engine, findTesseract() ? 'tesseract' : 'tesseract.js');
      assert.equal(caps.transcription, false);
      assert.equal(typeof caps.video_audio, 'boolean');
    });
  },
  { worker: true },
);

describeEachDialect('processing fair share', (ctx) => {
  it("a tenant's upload queues behind its own backlog, not behind another tenant's batch", async () => {
    const busy = await createTenant(ctx());
    const quiet = await createTenant(ctx());
    await uploadOk(ctx(), busy.headers, { filename: 'a.txt' });
    await uploadOk(ctx(), busy.headers, { filename: 'b.txt' });
    const mine = await uploadOk(ctx(), quiet.headers, { filename: 'd.txt' });
    const jobs = await ctx()
      .container.database.db.selectFrom('jobs')
      .select(['tenant_id', 'priority', 'payload'])
      .where('kind', '=', 'processing.extract')
      .where('state', '=', 'available')
      .execute();
    const busyPriorities = jobs.filter((j) => j.tenant_id === busy.tenantId).map((j) => Number(j.priority));
    assert.deepEqual(busyPriorities.slice(0, 2).sort(), [0, 1]);
    assert.equal(Number(jobs.find((j) => JSON.parse(j.payload).documentId === mine)!.priority), 0);
  });
});

/** A silent mono 8 kHz 16-bit WAV of `seconds`. */
function wav(seconds: number): Buffer {
  const samples = Math.round(8000 * seconds);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}
