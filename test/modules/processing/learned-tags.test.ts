import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';
import { learnedTagsOf, settled, trainingDone } from './ai-helpers.ts';
import { facilityNote, invoice, offerLetter } from './tagged-corpus.ts';

/*
 * Learned tags (issue 27 item 3, docs/processing.md): once a tenant has put a tag on 5 documents,
 * new documents get it proposed, with a calibrated confidence and `source: learned`; before that,
 * never; apply-ai-tags applies learned and extracted tags alike; another tenant's tagging never
 * trains or shows up.
 */
describeEachDialect(
  'learned tags',
  (ctx) => {
    let tenant: TestTenant;
    const put = (id: string, payload: object, headers = tenant.headers) =>
      ctx().app.inject({ method: 'PUT', url: `/api/v1/documents/${id}`, headers, payload });
    const uploadText = async (who: TestTenant, filename: string, text: string, tags: string[] = []) =>
      uploadOk(ctx(), who.headers, { filename, content: Buffer.from(text), fields: tags.length > 0 ? { tags } : {} });

    let fifthInvoice: string;

    before(async () => {
      tenant = await createTenant(ctx());
      // Three untagged notes and a fifth invoice left untagged for now, then four invoices tagged
      // `finance` at upload and five offer letters tagged `hr`.
      const untagged = await Promise.all([0, 1, 2].map((i) => uploadText(tenant, `note-${i}.txt`, facilityNote(i))));
      fifthInvoice = await uploadText(tenant, 'invoice-4.txt', invoice(4));
      for (const id of [...untagged, fifthInvoice]) await settled(ctx(), id, tenant.headers);
      const tagged = [
        ...(await Promise.all(
          [0, 1, 2, 3].map((i) => uploadText(tenant, `invoice-${i}.txt`, invoice(i), ['finance'])),
        )),
        ...(await Promise.all(
          [0, 1, 2, 3, 4].map((i) => uploadText(tenant, `offer-${i}.txt`, offerLetter(i), ['hr'])),
        )),
      ];
      for (const id of tagged) await settled(ctx(), id, tenant.headers);
      await trainingDone(ctx(), tenant.tenantId);
    });

    it('does not propose a tag the tenant has put on fewer than 5 documents', async () => {
      const doc = await settled(ctx(), await uploadText(tenant, 'invoice-probe-1.txt', invoice(10)), tenant.headers);
      assert.equal(learnedTagsOf(doc).has('finance'), false, JSON.stringify(doc.ai_tag_details));
      assert.ok(!doc.ai_tags.includes('finance'));
    });

    it('proposes a tag on 5 documents for a new document that fits it, with a calibrated confidence', async () => {
      const offer = await settled(ctx(), await uploadText(tenant, 'offer-probe.txt', offerLetter(11)), tenant.headers);
      const learned = learnedTagsOf(offer);
      assert.ok((learned.get('hr') ?? 0) >= 0.5, JSON.stringify(offer.ai_tag_details));
      assert.ok(learned.get('hr')! <= 1);
      assert.equal(offer.ai_tags[0], 'hr', 'learned tags come first');
      assert.ok(
        offer.ai_tag_details.some((t: { source: string }) => t.source === 'extracted'),
        'extracted tags stay beside learned ones',
      );
      const note = await settled(ctx(), await uploadText(tenant, 'note-probe.txt', facilityNote(12)), tenant.headers);
      assert.equal(learnedTagsOf(note).size, 0, JSON.stringify(note.ai_tag_details));
    });

    it('learns a tag once a fifth document gets it (a tag change retrains)', async () => {
      const res = await put(fifthInvoice, { tags: ['finance'] });
      assert.equal(res.statusCode, 200, res.body);
      await trainingDone(ctx(), tenant.tenantId);
      const doc = await settled(ctx(), await uploadText(tenant, 'invoice-probe-2.txt', invoice(13)), tenant.headers);
      const learned = learnedTagsOf(doc);
      assert.ok((learned.get('finance') ?? 0) >= 0.5, JSON.stringify(doc.ai_tag_details));
      assert.equal(learned.has('hr'), false, JSON.stringify(doc.ai_tag_details));
    });

    it('does not propose a tag the document already carries', async () => {
      const id = await uploadText(tenant, 'invoice-tagged.txt', invoice(14), ['finance']);
      const doc = await settled(ctx(), id, tenant.headers);
      assert.equal(learnedTagsOf(doc).has('finance'), false);
      assert.deepEqual(doc.tags, ['finance']);
    });

    it('apply-ai-tags applies learned and extracted tags', async () => {
      const id = await uploadText(tenant, 'invoice-apply.txt', invoice(15));
      const doc = await settled(ctx(), id, tenant.headers);
      const extracted = doc.ai_tag_details
        .filter((t: { source: string }) => t.source === 'extracted')
        .map((t: { name: string }) => t.name);
      assert.ok(learnedTagsOf(doc).has('finance') && extracted.length > 0, JSON.stringify(doc.ai_tag_details));
      const res = await ctx().app.inject({
        method: 'POST',
        url: `/api/v1/documents/${id}/apply-ai-tags`,
        headers: tenant.headers,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.json().tags_applied.includes('finance'));
      for (const name of extracted) assert.ok(res.json().tags_applied.includes(name), name);
      const after = (
        await ctx().app.inject({ method: 'GET', url: `/api/v1/documents/${id}`, headers: tenant.headers })
      ).json();
      assert.ok(
        after.tags.includes('finance') && extracted.every((n: string) => after.tags.includes(n)),
        JSON.stringify(after.tags),
      );
    });

    it('trains again as the library grows, so new kinds of documents are counter-examples', async () => {
      const small = await createTenant(ctx());
      for (const id of await Promise.all(
        [0, 1, 2, 3, 4].map((i) => uploadText(small, `offer-${i}.txt`, offerLetter(i), ['hr'])),
      ))
        await settled(ctx(), id, small.headers);
      await trainingDone(ctx(), small.tenantId);
      const trainedOn = async () => {
        const row = await ctx()
          .container.database.db.selectFrom('learned_tag_models')
          .select('model')
          .where('tenant_id', '=', small.tenantId)
          .executeTakeFirstOrThrow();
        return JSON.parse(row.model!).documents;
      };
      assert.equal(await trainedOn(), 5);
      for (const id of await Promise.all(
        [0, 1, 2, 3, 4].map((i) => uploadText(small, `note-${i}.txt`, facilityNote(i))),
      ))
        await settled(ctx(), id, small.headers);
      await trainingDone(ctx(), small.tenantId);
      assert.equal(await trainedOn(), 10);
      const note = await settled(ctx(), await uploadText(small, 'note-probe.txt', facilityNote(9)), small.headers);
      assert.equal(learnedTagsOf(note).size, 0, JSON.stringify(note.ai_tag_details));
    });

    it("never trains on or proposes another tenant's tags", async () => {
      const other = await createTenant(ctx());
      // The other tenant has a tag of the same name, on one document only.
      await settled(ctx(), await uploadText(other, 'one.txt', invoice(20), ['finance']), other.headers);
      const doc = await settled(ctx(), await uploadText(other, 'invoice-probe.txt', invoice(21)), other.headers);
      assert.equal(learnedTagsOf(doc).size, 0, JSON.stringify(doc.ai_tag_details));
      await trainingDone(ctx(), other.tenantId);
      const row = await ctx()
        .container.database.db.selectFrom('learned_tag_models')
        .select('model')
        .where('tenant_id', '=', other.tenantId)
        .executeTakeFirst();
      assert.equal(row?.model ?? null, null, 'a tag on one document is not learned, whatever another tenant did');
    });
  },
  { worker: true },
);
