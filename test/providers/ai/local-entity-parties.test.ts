import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAmounts } from '../../../src/providers/ai/local/amounts.ts';
import { findDates } from '../../../src/providers/ai/local/dates.ts';
import { extractEntitiesLocal } from '../../../src/providers/ai/local/entities.ts';

// Issue 27, fourth pass: organisations named by their place in a document rather than by their
// words (no legal form, no head word, unknown to every list), and accountants' bracketed negatives.
// Names are invented for the test.

describe('local entities: organisations by their place in the document', () => {
  it('takes a party a contract defines by a company role, whatever its words', () => {
    const e = extractEntitiesLocal(
      'This agreement is between Harrowgate Linen (the "Supplier") and Pellucid Rooms ("the Customer").',
    );
    assert.deepEqual(e.organizations, ['Harrowgate Linen', 'Pellucid Rooms']);
    assert.deepEqual(e.people, []);
  });

  it('leaves a person defined by a role a person holds to the person rules', () => {
    const e = extractEntitiesLocal(
      'This lease is between Quillon Estates (the "Landlord") and Sarah Whitcombe (the "Tenant").',
    );
    assert.deepEqual(e.people, ['Sarah Whitcombe']);
    assert.ok(!e.organizations.includes('Sarah Whitcombe'));
  });

  it('takes the name after "for and on behalf of", on its line or the next', () => {
    const e = extractEntitiesLocal(
      'For and on behalf of Brindlecombe Marine\nAdaeze Nwosu, Director\n\nSigned for and on behalf of\nOrrin Vale Dairies\nBy: Tomasz Wierzbicki',
    );
    assert.deepEqual(e.organizations, ['Brindlecombe Marine', 'Orrin Vale Dairies']);
    assert.deepEqual(e.people, ['Adaeze Nwosu', 'Tomasz Wierzbicki']);
  });

  it('takes a name whose letters are an e-mail or web domain of the document', () => {
    const e = extractEntitiesLocal('Orders go to sales@quillfeather.example. Quillfeather ships on Mondays.');
    assert.deepEqual(e.organizations, ['Quillfeather']);
  });

  it('takes a name alone at the top with an address under it as the letterhead, not a word under a firm', () => {
    const e = extractEntitiesLocal('INVOICE\n\nThornquist Bindery\n14 Mill Lane, Hexham\n\nThank you for your order.');
    assert.deepEqual(e.organizations, ['Thornquist Bindery']);
    const firm = extractEntitiesLocal('HALWORTH BRIGGS LLP\nSolicitors\n41 Fleet Street, London\n');
    assert.ok(!firm.organizations.some((o) => /^solicitors$/i.test(o)), firm.organizations.join(', '));
  });

  it('reads "Prepared for:" as a client unless a person is named', () => {
    const org = extractEntitiesLocal('Site report\nPrepared for: Ostrava Glassworks\nPrepared by: Lena Marsh');
    assert.deepEqual(org.organizations, ['Ostrava Glassworks']);
    assert.deepEqual(org.people, ['Lena Marsh']);
    const person = extractEntitiesLocal('Travel plan\nPrepared for: Jane Doe');
    assert.deepEqual(person.people, ['Jane Doe']);
    assert.deepEqual(person.organizations, []);
  });
});

describe('local entities: acronyms that did something', () => {
  it('takes an unknown acronym after "manufactured by" as an organisation, not one after "paid by"', () => {
    assert.deepEqual(
      extractEntitiesLocal('The lifts were manufactured by VORNIK in 2009.').organizations.map((o) => o.toUpperCase()),
      ['VORNIK'],
    );
    assert.deepEqual(extractEntitiesLocal('The fee was paid by NEFT on Monday.').organizations, []);
  });
});

describe('local amounts: bracketed negatives', () => {
  const read = (text: string) => findAmounts(text).map((a) => [a.currency, a.amount]);

  it('reads an amount alone in brackets as negative, the sign inside or outside the bracket', () => {
    assert.deepEqual(read('A write-off of (KES 3,400,000) was booked.'), [['KES', -3400000]]);
    assert.deepEqual(read('Refunds (₹ 2,10,000) this quarter.'), [['INR', -210000]]);
    assert.deepEqual(read('Deficit £(7,250) for the year.'), [['GBP', -7250]]);
  });

  it('keeps a figure restated in brackets positive', () => {
    assert.deepEqual(read('Total ¥2,310,000 (JPY 2,310,000)'), [
      ['JPY', 2310000],
      ['JPY', 2310000],
    ]);
    assert.deepEqual(read('Sales of **INR 12,40,00,000** (₹12.4 crore).'), [
      ['INR', 124000000],
      ['INR', 124000000],
    ]);
  });
});

describe('local dates: months of other languages', () => {
  const read = (text: string) => findDates(text, { referenceDate: new Date('2024-06-01T12:00:00Z') }).map((d) => d.iso);

  it('reads Spanish, Portuguese, French, Italian and German month names, with "de" and in lower case', () => {
    assert.deepEqual(read('Começa em 5 de março de 2024.'), ['2024-03-05']);
    assert.deepEqual(read('Termina el 17 de octubre.'), ['2024-10-17']);
    assert.deepEqual(read('Livraison le 3 juillet 2024.'), ['2024-07-03']);
    assert.deepEqual(read('Consegna il 9 settembre 2024.'), ['2024-09-09']);
    assert.deepEqual(read('Lieferung am 2 Dezember 2024.'), ['2024-12-02']);
  });

  it('still needs a year for an English month in lower case', () => {
    assert.deepEqual(read('you may 3 times'), []);
    assert.deepEqual(read('walk 5 march miles'), []);
  });
});
