import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MIN_TAGGED_DOCUMENTS,
  proposeTags,
  type TaggedExample,
  trainTagModel,
} from '../../../src/modules/processing/learned-tag-model.ts';
import { documentTerms, withDocumentType } from '../../../src/modules/processing/learned-tag-terms.ts';
import { facilityNote, invoice, offerLetter } from './tagged-corpus.ts';

const examples = (counts: { finance: number; hr: number; notes: number }): TaggedExample[] => [
  ...Array.from({ length: counts.finance }, (_, i) => ({
    terms: documentTerms(invoice(i), 'invoice'),
    tags: ['finance'],
  })),
  ...Array.from({ length: counts.hr }, (_, i) => ({
    terms: documentTerms(offerLetter(i), 'employment_letter'),
    tags: ['hr'],
  })),
  ...Array.from({ length: counts.notes }, (_, i) => ({ terms: documentTerms(facilityNote(i), 'memo'), tags: [] })),
];

describe('learned-tag terms', () => {
  it('keeps content stems and the document type, no numbers or stop words', () => {
    const terms = documentTerms('The invoice INV-2041 is due: invoices are due within 30 days.', 'invoice');
    assert.equal(terms['invoic'], 2);
    assert.equal(terms['type:invoice'], 3);
    assert.ok(
      !('the' in terms) && !('30' in terms) && !Object.keys(terms).some((t) => /\d/.test(t)),
      JSON.stringify(terms),
    );
  });

  it('replaces the document type', () => {
    const terms = withDocumentType(documentTerms('A receipt for lunch.', 'invoice'), 'receipt');
    assert.deepEqual(
      Object.keys(terms).filter((t) => t.startsWith('type:')),
      ['type:receipt'],
    );
    assert.deepEqual(
      Object.keys(withDocumentType(terms, null)).filter((t) => t.startsWith('type:')),
      [],
    );
  });
});

describe('learned-tag model', () => {
  it(`learns a tag only once it is on ${MIN_TAGGED_DOCUMENTS} documents`, async () => {
    assert.equal(await trainTagModel(examples({ finance: 4, hr: 4, notes: 3 })), null);
    const model = await trainTagModel(examples({ finance: 4, hr: 5, notes: 3 }));
    assert.deepEqual(
      model?.tags.map((t) => [t.name, t.documents]),
      [['hr', 5]],
    );
  });

  it('proposes the fitting tag with a high confidence and not the others', async () => {
    const model = (await trainTagModel(examples({ finance: 5, hr: 5, notes: 4 })))!;
    const forInvoice = proposeTags(model, documentTerms(invoice(20), 'invoice'), 0);
    assert.equal(forInvoice[0]!.name, 'finance');
    assert.ok(forInvoice[0]!.confidence >= 0.7, JSON.stringify(forInvoice));
    assert.ok(forInvoice.find((p) => p.name === 'hr')!.confidence < 0.3, JSON.stringify(forInvoice));
    const forNote = proposeTags(model, documentTerms(facilityNote(20), 'memo'), 0.5);
    assert.deepEqual(forNote, []);
    for (const p of [...forInvoice, ...proposeTags(model, documentTerms(offerLetter(20), 'employment_letter'), 0)]) {
      assert.ok(p.confidence >= 0 && p.confidence <= 1);
    }
  });

  it('gives a document with nothing in common with the training documents a low confidence', async () => {
    const model = (await trainTagModel(examples({ finance: 5, hr: 5, notes: 4 })))!;
    const unrelated = documentTerms('Quarterly rowing regatta: crews, oars, tides and the river course.', 'other');
    assert.deepEqual(proposeTags(model, unrelated, 0.5), []);
  });

  it('is deterministic, small, and starts again from its previous weights', async () => {
    const set = examples({ finance: 5, hr: 5, notes: 4 });
    const first = (await trainTagModel(set))!;
    assert.deepEqual(await trainTagModel(set), first);
    assert.ok(JSON.stringify(first).length < 50_000, `${JSON.stringify(first).length} bytes`);
    assert.ok(first.tags.every((t) => t.weights.length <= 400));
    const warm = (await trainTagModel(set, { previous: first }))!;
    assert.equal(proposeTags(warm, documentTerms(invoice(30), 'invoice'), 0.5)[0]?.name, 'finance');
  });

  it('keeps a centroid per tag beside its weights, and calibrates on both', async () => {
    const model = (await trainTagModel(examples({ finance: 5, hr: 5, notes: 4 })))!;
    for (const tag of model.tags) {
      assert.ok(tag.centroid && tag.centroid.length > 0 && tag.centroid.length <= 300, tag.name);
      const norm = Math.sqrt(tag.centroid.reduce((n, [, w]) => n + w * w, 0));
      assert.ok(Math.abs(norm - 1) < 0.01, `${tag.name}: unit length, ${norm}`);
    }
    assert.equal(model.calibration.length, 5);
  });

  it('still proposes from a model stored before centroids (three calibration numbers, no centroid)', async () => {
    const model = (await trainTagModel(examples({ finance: 5, hr: 5, notes: 4 })))!;
    const old = {
      ...model,
      calibration: model.calibration.slice(0, 3) as [number, number, number],
      tags: model.tags.map(({ centroid: _, ...t }) => t),
    };
    const proposals = proposeTags(old, documentTerms(invoice(20), 'invoice'), 0);
    assert.equal(proposals[0]!.name, 'finance');
    assert.ok(proposals.every((p) => p.confidence >= 0 && p.confidence <= 1));
  });

  it('stops when its job is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(trainTagModel(examples({ finance: 5, hr: 5, notes: 2 }), { signal: controller.signal }));
  });
});
