import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findFieldValues } from '../../../src/providers/ai/local/fields.ts';

// The currency of a money column is the one its header names, prefixed dollars included.
const currencies = (text: string) => findFieldValues(text).amounts.map((a) => [a.currency, a.amount]);

describe('local fields: currency of a column header', () => {
  it('reads a prefixed dollar in a header as its own currency, not USD', () => {
    const table = (header: string) =>
      `Item,Due,${header}\nRent,2026-01-01,"12,000"\nDeposit,2026-01-01,"24,000"\nCleaning,2026-02-01,"1,500"\n`;
    assert.deepEqual(currencies(table('Amount (HK$)')), [
      ['HKD', 12000],
      ['HKD', 24000],
      ['HKD', 1500],
    ]);
    assert.deepEqual(currencies(table('Amount (S$)'))[0], ['SGD', 12000]);
    assert.deepEqual(currencies(table('Cost NT$'))[0], ['TWD', 12000]);
    assert.deepEqual(currencies(table('Amount (A$)'))[0], ['AUD', 12000]);
  });

  it('still reads a bare dollar and a currency code as before', () => {
    const table = (header: string) =>
      `Item,Due,${header}\nRent,2026-01-01,"12,000"\nDeposit,2026-01-01,"24,000"\nCleaning,2026-02-01,"1,500"\n`;
    assert.deepEqual(currencies(table('Amount ($)'))[0], ['USD', 12000]);
    assert.deepEqual(currencies(table('Annual cost (HKD)'))[0], ['HKD', 12000]);
  });

  it('reads a prefixed dollar in a labelled figure and in a stated document currency', () => {
    assert.deepEqual(currencies('Opening Balance (HK$),"4,215.35"\n'), [['HKD', 4215.35]]);
    assert.deepEqual(
      currencies(
        'All amounts in HK$\nItem,Due,Amount\nRent,2026-01-01,"12,000"\nDeposit,2026-01-01,"24,000"\nCleaning,2026-02-01,"1,500"\n',
      )[0],
      ['HKD', 12000],
    );
  });
});
