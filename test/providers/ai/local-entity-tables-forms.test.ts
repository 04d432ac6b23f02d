import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAmounts } from '../../../src/providers/ai/local/amounts.ts';
import { extractEntityDetails } from '../../../src/providers/ai/local/entities.ts';

// Issue 27, seventh pass: money in tables laid out with spaces, the rupee, dirham and krona of the
// document, brackets in prose, legal forms of more countries, own-language city names and towns
// named by their context. Names and figures are invented for the test.

const money = (text: string) =>
  extractEntityDetails(text, { referenceDate: new Date('2025-06-01T12:00:00Z') }).amounts.map((a) => [
    a.currency,
    a.value,
  ]);
const names = (text: string) => {
  const e = extractEntityDetails(text, { referenceDate: new Date('2025-06-01T12:00:00Z') });
  return {
    people: e.people.map((p) => p.name),
    organizations: e.organizations.map((o) => o.name),
    places: e.locations.map((l) => l.name),
  };
};

describe('local amounts: tables laid out with spaces', () => {
  it('reads the figures of currency-headed columns, not the quantities, subtotals and discounts included', () => {
    const text = [
      'Line  Article                 Qty      Unit price (EUR)   Amount (EUR)',
      '1     Oak shelving            120      45.50              5,460.00',
      '2     Steel brackets          2,000    1.25               2,500.00',
      '                              Subtotal                    7,960.00',
      '                              Discount 5%                 -398.00',
      '',
      'Thank you for your order.',
    ].join('\n');
    assert.deepEqual(money(text), [
      ['EUR', 45.5],
      ['EUR', 5460],
      ['EUR', 1.25],
      ['EUR', 2500],
      ['EUR', 7960],
      ['EUR', -398],
    ]);
  });

  it('takes the currency of a caption over a table of money columns, and a sign in brackets in a header', () => {
    const caption = [
      'Project costs (KES)',
      '',
      'Item          Budget       Spent',
      'Fuel          120,000      98,500',
    ].join('\n');
    assert.deepEqual(money(caption), [
      ['KES', 120000],
      ['KES', 98500],
    ]);
    const rupiah = [
      'Uraian        Jumlah   Harga (Rp)',
      'Kopi          10       15.000',
      'Teh           5        12.500',
    ].join('\n');
    assert.deepEqual(money(rupiah), [
      ['IDR', 15000],
      ['IDR', 12500],
    ]);
  });
});

describe('local amounts: signs several countries share, scales and brackets', () => {
  it('reads "Rs" and "Dh" as the rupee and dirham the document writes as a code', () => {
    assert.deepEqual(money('Karachi office rent PKR 300,000; deposit Rs. 6,00,000.'), [
      ['PKR', 300000],
      ['PKR', 600000],
    ]);
    assert.deepEqual(money('Solde MAD 12 000,00 ; acompte 2 500,00 DH reçu à Casablanca.'), [
      ['MAD', 12000],
      ['MAD', 2500],
    ]);
  });

  it('reads krona scales, other languages\' "million of" and short scales', () => {
    assert.deepEqual(
      findAmounts('Lån SEK 14,6 mkr och offert 4,2 Mkr.', { krona: 'SEK' }).map((a) => a.value),
      ['SEK 14,600,000.00', 'SEK 4,200,000.00'],
    );
    assert.deepEqual(
      findAmounts('un volume di 1,2 milioni di euro e un plafond di 2 millions de dirhams').map((a) => a.value),
      ['EUR 1,200,000.00', 'AED 2,000,000.00'],
    );
    assert.deepEqual(
      findAmounts('NIS 1.2m; -NT$18,000; Rp 5 juta').map((a) => a.value),
      ['ILS 1,200,000.00', 'TWD -18,000.00', 'IDR 5,000,000.00'],
    );
  });

  it('keeps a bracket that explains a figure in prose positive, one after "of" or a loss negative', () => {
    assert.deepEqual(
      findAmounts('The cap is 10 % (GBP 24,500). A deposit (US$ 1,200.00) is due.').map((a) => a.amount),
      [24500, 1200],
    );
    assert.deepEqual(
      findAmounts('a loss of (GBP 1,000) and refunds (GBP 300)').map((a) => a.amount),
      [-1000, -300],
    );
  });
});

describe('local entities: legal forms of more countries', () => {
  it('reads Polish, Hungarian, Turkish, Danish, Pakistani and Malaysian forms whole', () => {
    const e = names(
      'Suppliers: Orla Druk Sp. z o.o. of Poznań, Tölgy Papír Kft., Ege Kimya San. ve Tic. A.Ş., Fjord Kran A/S, ' +
        'Ravi Cotton (Private) Limited and Pinang Kilang Berhad.',
    );
    for (const name of [
      'Orla Druk Sp. z o.o.',
      'Tölgy Papír Kft',
      'Ege Kimya San. ve Tic. A.Ş.',
      'Fjord Kran A/S',
      'Ravi Cotton (Private) Limited',
      'Pinang Kilang Berhad',
    ])
      assert.ok(e.organizations.includes(name), `${name}: ${e.organizations.join('|')}`);
  });

  it('joins names around a plus, reads a Romance "Banco de …" and a building society whole', () => {
    const e = names(
      'Notify: Ostrander + Kell, Hamburg. Interest at the rate of Banco de la Provincia Serrana. Paid from our Thornbury Building Society account.',
    );
    for (const name of ['Ostrander + Kell', 'Banco de la Provincia Serrana', 'Thornbury Building Society'])
      assert.ok(e.organizations.includes(name), `${name}: ${e.organizations.join('|')}`);
  });

  it('does not take people named by their role for an organisation, and reads signers for a party as people', () => {
    assert.deepEqual(names('TO: Regional Sales Leads\nFROM: Dana Whitcombe').organizations, []);
    const e = names('For the Client: Marta Kowalczyk-Brzozowska, Jan Wiśniak');
    assert.ok(e.people.includes('Marta Kowalczyk-Brzozowska'), e.people.join('|'));
    assert.deepEqual(e.organizations, []);
  });
});

describe('local entities: places by their own names and by context', () => {
  it('knows large cities by their own names, and a country by its initials after an address', () => {
    const e = names('We met in Torino and Napoli. Office: PO Box 4411, Abu Dhabi, UAE.');
    for (const name of ['Torino', 'Napoli', 'UAE'])
      assert.ok(e.places.includes(name), `${name}: ${e.places.join('|')}`);
  });

  it('takes a town in "the port of X", "our X office", after a trade term and after a role', () => {
    const e = names(
      'Goods left the port of Bahía Blanca. Write to our Szeged office. Price FOB Izmir. Prepared by Lena Ortiz, Area Manager Kenya.',
    );
    for (const name of ['Bahía Blanca', 'Szeged', 'Izmir', 'Kenya'])
      assert.ok(e.places.includes(name), `${name}: ${e.places.join('|')}`);
  });

  it('takes a town no gazetteer holds where a site stands, not a company or a person there', () => {
    assert.deepEqual(names('The Board approved the bottling plant at Vellakovil this year.').places, ['Vellakovil']);
    assert.deepEqual(names('Our office in Salesforce is closed.').places, []);
  });
});

describe('local amounts: currencies stated by a table header or caption (tenth pass)', () => {
  it('takes a caption in brackets over a pipe table for its figure columns, not its counts', () => {
    const text = [
      '2. Spending (PEN)',
      '',
      '| Line | Households | Budget | Spent |',
      '| Seeds | 140 | 12,000 | 11,450 |',
      '| Tools | 60 | 8,000 | 8,320 |',
    ].join('\n');
    assert.deepEqual(money(text), [
      ['PEN', 12000],
      ['PEN', 11450],
      ['PEN', 8000],
      ['PEN', 8320],
    ]);
  });

  it('reads a two-column pipe table headed with a currency, and a sign in brackets such as FCFA', () => {
    const text = [
      'Item | Amount (KES)',
      'Quarterly service, floors 1-4 (Clause 2.1) | 120,000.00',
      'Less: credit, late response on 3 and 9 May | -4,500.00',
      '',
      '| Article | Poids (kg) | Prix (FCFA) |',
      '| Thon | 2 400 | 1 900 |',
      '| Mérou | 800 | 5 200 |',
    ].join('\n');
    assert.deepEqual(money(text), [
      ['KES', 120000],
      ['KES', -4500],
      ['XOF', 1900],
      ['XOF', 5200],
    ]);
  });

  it('reads Indian grouping in a column laid out with spaces, and the totals after a blank line', () => {
    const text = [
      'S.No  Description                      HSN      Amount (INR)',
      '1     Annual licence, 40 seats         998315   12,40,000.00',
      '2     Training                         998313    1,60,000.00',
      '',
      'Taxable value                                   14,00,000.00',
      'IGST @ 18%                                       2,52,000.00',
      'Amount in words: Rupees Sixteen Lakh Fifty-Two Thousand Only',
    ].join('\n');
    assert.deepEqual(money(text), [
      ['INR', 1240000],
      ['INR', 160000],
      ['INR', 1400000],
      ['INR', 252000],
    ]);
  });

  it('reads a statement whose debit and credit columns hold Indian-grouped figures with commas', () => {
    const text = [
      'Date         Particulars            Debit (₹)        Credit (₹)       Balance (₹)',
      '01/04/2025   Opening balance                                          5,10,000.00',
      '12/04/2025   Invoice 1021           2,18,600.00                       7,28,600.00',
      '28/04/2025   Payment received                        5,10,000.00      2,18,600.00',
      '15/05/2025   Invoice 1088           3,72,000.00                       5,90,600.00',
    ].join('\n');
    const values = money(text).map(([, v]) => v);
    for (const v of [510000, 218600, 728600, 372000, 590600]) assert.ok(values.includes(v), String(v));
  });
});

describe('local amounts: labelled figures under a heading that states the currency (tenth pass)', () => {
  it('reads Indian-grouped labelled figures under a heading in brackets, not account numbers', () => {
    const text = [
      'Annexure B - Pay structure (per annum, INR)',
      '',
      'Basic salary: 12,40,000',
      'Special allowance: 3,10,500',
      'Account No.: 1004,567',
      '',
      'Joining: 1 July 2025',
    ].join('\n');
    assert.deepEqual(money(text), [
      ['INR', 1240000],
      ['INR', 310500],
    ]);
  });

  it('does not split a figure at its decimal comma when a label names the currency in brackets', () => {
    const text = ['Key accounts', '  Mercado Norte (wholesale)   R$ 187.600,00', '  Atacado Sul   R$ 98.740,00'].join(
      '\n',
    );
    assert.deepEqual(money(text), [
      ['BRL', 187600],
      ['BRL', 98740],
    ]);
  });
});
