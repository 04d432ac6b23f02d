import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AiEnrichment } from '../../../src/modules/documents/index.ts';
import {
  type Confirmations,
  confirm,
  NO_CONFIRMATIONS,
  pendingNames,
  planReview,
  readDecision,
  taskContent,
} from '../../../src/modules/review/review-items.ts';
import { AppError } from '../../../src/lib/errors.ts';

const enrichment: AiEnrichment = {
  summaryConfidence: 0.8,
  documentType: { value: 'invoice', confidence: 0.6 },
  fields: {
    total: { value: { value: 120, currency: 'USD', text: 'USD 120.00' }, confidence: 0.9 },
    due_date: { value: '2025-05-01', confidence: 0.4 },
  },
  tags: [
    { name: 'finance', confidence: 0.55, source: 'learned' },
    { name: 'payment terms', confidence: 0.8, source: 'extracted' },
  ],
  entities: { people: [], organizations: [], locations: [], dates: [], amounts: [] },
  review: null,
};

describe('review rules', () => {
  it('without a threshold and confirmations, shows everything and holds nothing', () => {
    const plan = planReview(enrichment, NO_CONFIRMATIONS, null);
    assert.equal(plan.held, null);
    assert.deepEqual(plan.shown, enrichment);
  });

  it('holds what is below the threshold and shows what is at or above it', () => {
    const plan = planReview(enrichment, NO_CONFIRMATIONS, 0.8);
    assert.equal(plan.shown.documentType, null);
    assert.deepEqual(Object.keys(plan.shown.fields), ['total']);
    assert.deepEqual(
      plan.shown.tags.map((t) => t.name),
      ['payment terms'],
    );
    assert.deepEqual(pendingNames(plan.held!), ['document_type', 'fields.due_date', 'tags.finance']);
    assert.deepEqual(taskContent(plan.held!), {
      data: { document_type: 'invoice', 'fields.due_date': '2025-05-01', tags: ['finance'] },
      confidences: { document_type: 0.6, 'fields.due_date': 0.4, 'tags.finance': 0.55 },
    });
  });

  it('lays confirmations over the AI: confirmed values shown and never held, rejected ones gone', () => {
    const confirmations: Confirmations = {
      documentType: { value: 'receipt' },
      fields: { due_date: null, vendor: 'Acme Ltd' },
      tags: { accepted: ['Finance'], rejected: ['payment terms'] },
    };
    const plan = planReview(enrichment, confirmations, 0.99);
    assert.deepEqual(plan.shown.documentType, { value: 'receipt', confidence: 1, confirmed: true });
    assert.deepEqual(plan.shown.fields['vendor'], { value: 'Acme Ltd', confidence: 1, confirmed: true });
    assert.equal(plan.shown.fields['due_date'], undefined);
    assert.deepEqual(
      plan.shown.tags.map((t) => t.name),
      ['finance'],
    );
    assert.deepEqual(pendingNames(plan.held!), ['fields.total']);
    assert.equal(
      planReview(enrichment, { ...NO_CONFIRMATIONS, documentType: { value: null } }, null).shown.documentType,
      null,
    );
  });

  it('reads approved, rejected and modified decisions', () => {
    const asked = { document_type: 'invoice', 'fields.due_date': '2025-05-01', tags: ['finance', 'vat'] };
    assert.deepEqual(readDecision('approved', asked, asked), {
      documentType: 'invoice',
      fields: { due_date: '2025-05-01' },
      acceptedTags: ['finance', 'vat'],
      rejectedTags: [],
    });
    assert.deepEqual(readDecision('rejected', asked, asked), {
      documentType: null,
      fields: { due_date: null },
      acceptedTags: [],
      rejectedTags: ['finance', 'vat'],
    });
    const given = { ...asked, document_type: 'receipt', 'fields.due_date': null, tags: ['vat', 'Tax'] };
    assert.deepEqual(readDecision('modified', asked, given), {
      documentType: 'receipt',
      fields: { due_date: null },
      acceptedTags: ['vat', 'Tax'],
      rejectedTags: ['finance'],
    });
  });

  it('refuses bad corrections with the field named', () => {
    const asked = {
      document_type: 'invoice',
      'fields.total': { value: 1, currency: 'USD', text: 'USD 1.00' },
      tags: ['finance'],
    };
    const refused = (given: Record<string, unknown>, field: string) =>
      assert.throws(
        () => readDecision('modified', asked, { ...asked, ...given }),
        (e: unknown) => e instanceof AppError && e.status === 400 && JSON.stringify(e.details).includes(field),
      );
    refused({ document_type: 'spaceship' }, 'modified_data.document_type');
    refused({ 'fields.total': { value: 5 } }, 'modified_data.fields.total');
    refused({ 'fields.total': { value: 5, currency: 'usd' } }, 'modified_data.fields.total');
    refused({ 'fields.total': '' }, 'modified_data.fields.total');
    refused({ tags: 'finance' }, 'modified_data.tags');
    refused({ tags: ['x'.repeat(101)] }, 'modified_data.tags');
    assert.deepEqual(
      readDecision('modified', asked, { ...asked, 'fields.total': { value: 'P12M', text: 'twelve months' } }).fields[
        'total'
      ],
      { value: 'P12M', text: 'twelve months' },
    );
  });

  it('a later decision replaces an earlier one about the same result', () => {
    const first = confirm(NO_CONFIRMATIONS, {
      documentType: 'invoice',
      fields: { total: 'x' },
      acceptedTags: ['finance'],
      rejectedTags: ['vat'],
    });
    const second = confirm(first, { fields: {}, acceptedTags: ['VAT'], rejectedTags: ['Finance'] });
    assert.deepEqual(second, {
      documentType: { value: 'invoice' },
      fields: { total: 'x' },
      tags: { accepted: ['VAT'], rejected: ['Finance'] },
    });
  });
});
