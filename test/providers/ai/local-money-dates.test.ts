import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAmounts } from '../../../src/providers/ai/local/amounts.ts';
import { findDates } from '../../../src/providers/ai/local/dates.ts';
import { detectLocale } from '../../../src/providers/ai/local/locale.ts';

// Issue 27's money and date classes beyond English, each on made-up text: scale words of other
// languages, signs of more currencies, a peso written "$", a debit in a column of its own; days in
// other scripts and orders, legal formulas, lists of days, numeric days without a year.

const money = (text: string) => findAmounts(text, detectLocale(text).amounts).map((a) => `${a.currency} ${a.amount}`);
const days = (text: string, reference = '2025-06-01') =>
  findDates(text, { referenceDate: new Date(`${reference}T12:00:00Z`) }).map((d) => d.iso);

describe('local amounts: scales, signs and columns', () => {
  it('reads scale words of other languages', () => {
    assert.deepEqual(money('Budsjett NOK 3,4 mrd. og NOK 1,5 milliarder.'), ['NOK 3400000000', 'NOK 1500000000']);
    assert.deepEqual(money('Oferta de ARS 70 millones; gwarancja PLN 2,5 mln; ciro ₺ 4,2 milyar.'), [
      'ARS 70000000',
      'PLN 2500000',
      'TRY 4200000000',
    ]);
  });

  it('reads tenge, taka, ringgit, rupiah and dirham signs, and not a letter before a small number', () => {
    assert.deepEqual(money('Paid ₸ 9 300 000 and Tk 6,20,000 and RM 8,400 and Rp 2.750.000 and Dhs 1,200.'), [
      'KZT 9300000',
      'BDT 620000',
      'MYR 8400',
      'IDR 2750000',
      'AED 1200',
    ]);
    assert.deepEqual(money('See RM 3 on floor 2 and Tk 4.'), []);
  });

  it('takes the code beside a dollar sign, and "$" as the peso of an Argentine or Chilean document', () => {
    assert.deepEqual(money('Total MXN $18,400 or $950 CAD.'), ['MXN 18400', 'CAD 950']);
    assert.deepEqual(money('Rosario, Argentina. Honorarios $ 1.250.000 más US$ 3.000.'), ['ARS 1250000', 'USD 3000']);
  });

  it('does not join a sign to a number on the next line', () => {
    assert.deepEqual(money('Pos | Preis\n1 | 95,00 €\n2 | 40,00 €'), ['EUR 95', 'EUR 40']);
  });

  it('reads an amount in brackets in a column of its own as a debit, also after a date', () => {
    assert.deepEqual(money('Refund, 14-03-2025        (₹ 2,50,000)\nSale 1,200 (USD 1,200)'), [
      'INR -250000',
      'USD 1200',
    ]);
  });
});

describe('local dates: other scripts, formulas and lists', () => {
  it('reads Chinese, Japanese, Korean, Vietnamese and Hungarian year-first dates', () => {
    assert.deepEqual(days('签署日期 2024年11月3日'), ['2024-11-03']);
    assert.deepEqual(days('계약일 2024년 9월 12일'), ['2024-09-12']);
    assert.deepEqual(days('Hà Nội, ngày 7 tháng 10 năm 2024'), ['2024-10-07']);
    assert.deepEqual(days('Kelt: 2024. október 2.'), ['2024-10-02']);
  });

  it('reads day-first months of Dutch, Polish, Turkish and Norwegian, a day with a dot', () => {
    assert.deepEqual(days('Amsterdam, 4 maart 2024; Kraków, 9 września 2024; İzmir, 21 Ekim 2024'), [
      '2024-03-04',
      '2024-09-09',
      '2024-10-21',
    ]);
    assert.deepEqual(days('Bergen, 17. desember 2024; München, am 2. Mai 2024'), ['2024-12-17', '2024-05-02']);
  });

  it('reads the "day of" formula, short-month forms and two days sharing a month', () => {
    assert.deepEqual(days('made this 9th day of October 2024'), ['2024-10-09']);
    assert.deepEqual(days('Shipped 7-Nov-2024, invoiced 12/Nov/24'), ['2024-11-07', '2024-11-12']);
    assert.deepEqual(days('outages on 4 and 18 September 2024'), ['2024-09-04', '2024-09-18']);
  });

  it('reads a numeric day without a year after a weekday or preposition, only with slashes', () => {
    assert.deepEqual(
      days('Dated 2 May 2025. Can we meet Tuesday 05/27 or on 06/13, not on 06/03?\nPhone 555-0100', '2025-05-02'),
      ['2025-05-02', '2025-05-27', '2025-06-13'],
    );
    assert.deepEqual(days('growth of 6.2 points, up by 4.5% on 3/4 of sites'), []);
  });
});
