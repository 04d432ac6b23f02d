import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coerceExtraction, type Found } from '../../../src/modules/workflows/nodes/ai-methods.ts';

// ai_extract's fallbacks when the text has no "label: value" line for a field.
const TEXT = 'Deposit of USD 500.00 received. Thank you for your business; the balance follows the schedule.';

const entities = {
  people: ['Maria Keller'],
  organizations: ['Acme Corporation'],
  places: ['Berlin'],
  dates: ['2026-02-01', '2026-03-15'],
  amounts: ['USD 500.00', 'USD 12,400.00'],
};

describe('ai_extract: key fields before entities', () => {
  it('takes a total or amount field from the key field "total", not the first amount found', () => {
    const found: Found = {
      entities,
      fields: { total: { value: { value: 12400, currency: 'USD', text: 'USD 12,400.00' }, confidence: 0.9 } },
    };
    const data = coerceExtraction(
      'Node "x"',
      { total: 'number', amount: 'string', invoice_total: 'currency' },
      TEXT,
      found,
    );
    assert.deepEqual(data, { total: 12400, amount: 'USD 12,400.00', invoice_total: 12400 });
  });

  it('falls back to the first amount when the provider read no total', () => {
    assert.deepEqual(coerceExtraction('Node "x"', { total: 'number' }, TEXT, { entities }), { total: 500 });
    assert.deepEqual(coerceExtraction('Node "x"', { total: 'number' }, TEXT, { entities, fields: {} }), { total: 500 });
  });

  it('answers a field named like a key field from that field (dates, numbers, names)', () => {
    const found: Found = {
      entities,
      fields: {
        due_date: { value: '2026-03-15', confidence: 0.8 },
        invoice_number: { value: 'INV-77', confidence: 0.9 },
        parties: { value: ['Acme Corporation', 'Globex Ltd'], confidence: 0.7 },
        term: { value: { value: 'P12M', text: '12 months' }, confidence: 0.7 },
      },
    };
    const data = coerceExtraction(
      'Node "x"',
      { due_date: 'date', 'invoice-number': 'string', parties: 'array', term: 'string' },
      TEXT,
      found,
    );
    assert.deepEqual(data, {
      due_date: '2026-03-15',
      'invoice-number': 'INV-77',
      parties: ['Acme Corporation', 'Globex Ltd'],
      term: '12 months',
    });
  });

  it('keeps a labelled value of the text first, and null when nothing is found', () => {
    const found: Found = {
      entities,
      fields: { total: { value: { value: 12400, currency: 'USD', text: 'USD 12,400.00' }, confidence: 0.9 } },
    };
    assert.deepEqual(coerceExtraction('Node "x"', { total: 'number' }, 'Total: 99.50', found), { total: 99.5 });
    assert.deepEqual(coerceExtraction('Node "x"', { total: 'number', vendor: 'string' }, TEXT, null), {
      total: null,
      vendor: null,
    });
  });

  it('rejects a key field that does not fit the asked type', () => {
    const found: Found = { entities, fields: { due_date: { value: 'on completion', confidence: 0.5 } } };
    assert.throws(
      () => coerceExtraction('Node "x"', { due_date: 'date' }, TEXT, found),
      /field "due_date" is not a date/,
    );
  });
});
