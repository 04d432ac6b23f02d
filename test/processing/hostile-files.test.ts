import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../support/app.ts';
import { createTenant, type TestTenant } from '../support/fixtures.ts';
import { processMemory, sampleProcessMemory } from '../support/process-memory.ts';
import { tinyPdf, uploadOk } from '../documents/helpers.ts';
import { pdfContentBomb } from '../fixtures/extraction/bombs.ts';

/** Issue 26: the whole process (API, worker, extraction and thumbnail threads) stays under this while a bomb is read. */
const PEAK_LIMIT_MIB = 500;

describeEachDialect(
  'processing a decompression bomb',
  (ctx) => {
    let tenant: TestTenant;
    const get = (url: string) => ctx().app.inject({ method: 'GET', url: `/api/v1${url}`, headers: tenant.headers });
    /** The document once its extraction and thumbnail jobs are done (polled slowly: the tier's rate limit counts). */
    const settled = async (id: string, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const doc = (await get(`/documents/${id}`)).json();
        const pending = await ctx()
          .container.database.db.selectFrom('jobs')
          .select('id')
          .where('tenant_id', '=', tenant.tenantId)
          .where('kind', 'in', ['documents.process', 'documents.thumbnail', 'processing.enrich', 'processing.index'])
          .where('state', 'in', ['available', 'running'])
          .execute();
        if (doc.status !== 'processing' && pending.length === 0) return doc;
        if (Date.now() > deadline) throw new Error(`document ${id} still ${doc.status} with ${pending.length} job(s) pending`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };

    it('a 1 MB PDF whose content stream inflates to 1 GiB fails too_large with the reason, the process peaking under 500 MB', async (t) => {
      tenant = await createTenant(ctx());
      const bomb = pdfContentBomb(1024 ** 3);
      assert.ok(bomb.length < 1.1 * 1024 * 1024, `${bomb.length} bytes`);
      const before = processMemory(process.pid);
      const memory = sampleProcessMemory();
      const id = await uploadOk(ctx(), tenant.headers, { filename: 'bomb.pdf', content: bomb });
      const doc = await settled(id, 120_000);
      const { peakMiB, peaks } = memory.stop();

      assert.equal(doc.status, 'failed');
      assert.equal(doc.ai_status, 'failed');
      assert.equal(doc.processing_error.stage, 'extraction');
      assert.equal(doc.processing_error.message, 'the PDF file has a compressed stream (FlateDecode) that unpacks to more than the 64 MB allowed');
      t.diagnostic(`RSS before ${Math.round(before?.rssMiB ?? 0)} MiB, peak ${Math.round(peakMiB)} MiB over ${peaks.size} process(es)`);
      assert.ok(peakMiB < PEAK_LIMIT_MIB, `peak ${Math.round(peakMiB)} MiB over ${peaks.size} process(es)`);
      // The thumbnail, read under the same budget, fell back to the type icon.
      const thumbnail = await ctx().app.inject({ method: 'GET', url: `/api/v1/documents/${id}/thumbnail`, headers: tenant.headers });
      assert.equal(thumbnail.statusCode, 200);
      assert.match(String(thumbnail.headers['content-type']), /image\/svg\+xml/);
    });

    it('a normal PDF still extracts afterwards (on a fresh thread)', async () => {
      const id = await uploadOk(ctx(), tenant.headers, { filename: 'fine.pdf', content: tinyPdf('Invoice total due') });
      const doc = await settled(id, 60_000);
      assert.equal(doc.status, 'completed');
      assert.equal(doc.processing_error, null);
      assert.match((await get(`/documents/${id}/content`)).json().content, /Invoice total due/);
    });
  },
  { worker: true },
);
