import assert from 'node:assert/strict';
import { it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';

// The enrichment additions on the Document (docs/api-decisions.md §6) as the API shows them.

const ORDER = `PURCHASE ORDER
Redwood Valley Medical Center
PO Number: RVMC-PO-55120
Date: 03/28/2025
Sacramento, CA 95814

Supplier: Cascade Surgical Supply Inc.
Deliver by: April 15, 2025

Sterile drapes and surgical gloves for the operating theatres.
Total: USD 32,078.75

Please confirm receipt of this order within two business days. Surgical gloves are delivered in sealed cartons.
`;

describeEachDialect(
  'enrichment on the document API',
  (ctx) => {
    let tenant: TestTenant;
    const get = (url: string) => ctx().app.inject({ method: 'GET', url: `/api/v1${url}`, headers: tenant.headers });
    const settled = (id: string) =>
      waitFor(
        async () => {
          const d = (await get(`/documents/${id}`)).json();
          return d.ai_status === 'completed' || d.ai_status === 'failed' ? d : undefined;
        },
        `document ${id} to be enriched`,
        30_000,
      );

    it('shows type, key fields, confidences, tag details and typed entities beside the spec fields', async () => {
      tenant = await createTenant(ctx(), { tier: 'enterprise' });
      await ctx().app.inject({
        method: 'POST',
        url: '/api/v1/tags',
        headers: tenant.headers,
        payload: { name: 'Surgical Gloves' },
      });
      const id = await uploadOk(ctx(), tenant.headers, { filename: 'po.txt', content: Buffer.from(ORDER) });
      const doc = await settled(id);
      assert.equal(doc.ai_status, 'completed');
      assert.deepEqual(Object.keys(doc.ai_document_type), ['value', 'confidence']);
      assert.equal(doc.ai_document_type.value, 'purchase_order');
      assert.equal(doc.ai_fields.document_number.value, 'RVMC-PO-55120');
      assert.equal(doc.ai_fields.issue_date.value, '2025-03-28');
      assert.deepEqual(doc.ai_fields.total.value, { value: 32078.75, currency: 'USD', text: 'USD 32,078.75' });
      assert.match(doc.ai_summary, /^Purchase order RVMC-PO-55120 from Redwood Valley Medical Center/);
      assert.ok(doc.ai_summary_confidence > 0 && doc.ai_summary_confidence <= 1);
      // The spec's shapes stay as they were: tag names and string lists.
      assert.ok(doc.ai_tags.every((t: unknown) => typeof t === 'string'));
      assert.deepEqual(
        doc.ai_tag_details.map((t: { name: string }) => t.name),
        doc.ai_tags,
      );
      assert.ok(
        doc.ai_tag_details.every(
          (t: { source: string; confidence: number }) => t.source === 'extracted' && t.confidence > 0,
        ),
      );
      // The tenant's own spelling of a topic the text supports.
      assert.ok(doc.ai_tags.includes('surgical gloves'), doc.ai_tags.join(', '));
      for (const key of ['people', 'organizations', 'dates', 'locations'])
        assert.ok(
          doc.entities[key].every((v: unknown) => typeof v === 'string'),
          key,
        );
      assert.ok(doc.entities.organizations.includes('Redwood Valley Medical Center'));
      assert.ok(doc.entities.locations.includes('Sacramento'), JSON.stringify(doc.entities.locations));
      assert.deepEqual(doc.entities.amounts, [
        { value: 32078.75, currency: 'USD', text: 'USD 32,078.75', confidence: 0.95 },
      ]);
      assert.deepEqual(
        doc.entities.details.dates.map((d: { value: string }) => d.value),
        ['2025-03-28', '2025-04-15'],
      );
      assert.ok(
        doc.entities.details.organizations.every((o: { confidence: number }) => o.confidence > 0 && o.confidence <= 1),
      );

      // Lists of the API-key variant carry the type and the entities.
      const list = (await get('/documents')).json();
      assert.equal(list.data[0].ai_document_type.value, 'purchase_order');
      assert.deepEqual(list.data[0].entities.amounts, doc.entities.amounts);
      assert.equal(list.data[0].ai_fields, undefined);
    });

    it('documents the additions in the served OpenAPI document', async () => {
      const spec = (await ctx().app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
      const text = JSON.stringify(spec);
      for (const field of ['ai_document_type', 'ai_fields', 'ai_tag_details', 'ai_summary_confidence', 'alternatives'])
        assert.ok(text.includes(`"${field}"`), field);
    });
  },
  { worker: true },
);
