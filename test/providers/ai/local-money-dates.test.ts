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

describe('local amounts: more signs, separators, decimals, scales and negatives (tenth pass)', () => {
  it('reads local signs and abbreviations before and after the figure', () => {
    assert.deepEqual(money('Fees: ₮ 1,200,000; ֏ 85,000; ₼ 3,400; ₡ 150 000; FJ$ 2,300; U$S 9,800; $U 12.500.'), [
      'MNT 1200000',
      'AMD 85000',
      'AZN 3400',
      'CRC 150000',
      'FJD 2300',
      'USD 9800',
      'UYU 12500',
    ]);
    assert.deepEqual(money('Paid 38.450.000 lei, 1 240 000 FCFA, 45 000 Frw and 120 000 Ar.'), [
      'RON 38450000',
      'XOF 1240000',
      'RWF 45000',
      'MGA 120000',
    ]);
  });

  it('reads the CFA franc of the Central African zone where the document is from there', () => {
    assert.deepEqual(money('Douala, Cameroun. Montant : 2 500 000 FCFA.'), ['XAF 2500000']);
  });

  it('reads K as the kwacha only in a document from a kwacha country and only before a money figure', () => {
    assert.deepEqual(money('Lusaka, Zambia. Rent K 12,500.00 a month.'), ['ZMW 12500']);
    assert.deepEqual(money('Lusaka, Zambia. Grade K 12 pupils.'), []);
    assert.deepEqual(money('Rent K 12,500.00 a month.'), []);
  });

  it('reads a dollar sign after the figure as a Canadian French document writes it, with a scale', () => {
    assert.deepEqual(money('Montréal (Québec). Coût : 84 500 $ et 1,2 M$, allocation de 250 $.'), [
      'CAD 84500',
      'CAD 1200000',
      'CAD 250',
    ]);
    assert.deepEqual(money('Ticker 500 $ABC rose.'), []);
  });

  it('reads thin spaces and narrow no-break spaces as thousands separators', () => {
    assert.deepEqual(money('Total EUR 12\u2009740\u2009000 and 9\u202f500,50 €.'), ['EUR 12740000', 'EUR 9500.5']);
  });

  it('reads three decimals in the dinars written with three (JOD, KWD, BHD) and thousands elsewhere', () => {
    assert.deepEqual(money('Price JOD 6.850 per tonne; bond JD 450,000; fee KWD 1,250.500; USD 6.850.'), [
      'JOD 6.85',
      'JOD 450000',
      'KWD 1250.5',
      'USD 6850',
    ]);
  });

  it('reads Finnish and other abbreviated millions and thousand millions', () => {
    assert.deepEqual(money('Laina EUR 18,5 milj. ja tarjous 13,1 milj. €; budget 2,4 mld. PLN; CZK 3 mlrd.'), [
      'EUR 18500000',
      'EUR 13100000',
      'PLN 2400000000',
      'CZK 3000000000',
    ]);
  });

  it('reads a trailing minus and a true minus sign, not the dash of a range', () => {
    assert.deepEqual(money('Charge EUR 1.250,00- on 3 May; refund −€40.00; range EUR 100-200.'), [
      'EUR -1250',
      'EUR -40',
      'EUR 100',
    ]);
  });

  it('takes small figures after a letter sign the document already uses for money', () => {
    assert.deepEqual(money('Rent R 18 500 a month; late fee R 450; water about R 650 a month.'), [
      'ZAR 18500',
      'ZAR 450',
      'ZAR 650',
    ]);
    assert.deepEqual(money('Rated R 2 by the panel.'), []);
  });

  it('reads "Php" as the peso, and a comma before three digits as thousands with an English scale word', () => {
    assert.deepEqual(money('Bonus Php 25,000; revenue ₫1,250 billion; budget NOK 2,450 mrd.'), [
      'PHP 25000',
      'VND 1250000000000',
      'NOK 2450000000',
    ]);
  });

  it('leaves dates, phone numbers, references, percentages and bare quantities alone', () => {
    assert.deepEqual(
      money('Call +40 264 000 000 on 22.04.2025 about ref. CJC/2025/103; 14.2 km, 16% VAT, 3 200 kg, K-12 grade.'),
      [],
    );
  });
});
