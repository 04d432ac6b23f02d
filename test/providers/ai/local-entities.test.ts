import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAmounts } from '../../../src/providers/ai/local/amounts.ts';
import { findDates } from '../../../src/providers/ai/local/dates.ts';
import { extractEntitiesLocal } from '../../../src/providers/ai/local/entities.ts';

const isos = (text: string, referenceDate?: Date) => findDates(text, { referenceDate }).map((d) => d.iso);

describe('local entities: people and organisations', () => {
  it('reads the parties and signatory of a contract', () => {
    const e = extractEntitiesLocal(
      'This lease is made between Northwind Traders Ltd and Fabrikam, Inc. on 14 July 2025. ' +
        'It was signed by Dr. Amelia Hart, General Counsel of Fabrikam.',
    );
    assert.deepEqual(e.people, ['Amelia Hart']);
    assert.deepEqual(e.organizations, ['Northwind Traders Ltd', 'Fabrikam, Inc.']);
    assert.deepEqual(e.dates, ['2025-07-14']);
  });

  it('finds people by title, role and verbs of saying, and folds short forms into full names', () => {
    const e = extractEntitiesLocal(
      '"We expect growth," said Tomasz Wrobel, chief engineer at Contoso Pharmaceuticals. ' +
        'Ms. Ingrid Solberg, the plant manager, agreed. Later Wrobel and Ms. Solberg toured the University of Leeds.',
    );
    assert.deepEqual(e.people, ['Tomasz Wrobel', 'Ingrid Solberg']);
    assert.deepEqual(e.organizations, ['Contoso Pharmaceuticals', 'University of Leeds']);
  });

  it('keeps headings, defined terms and sentence starts out', () => {
    const e = extractEntitiesLocal(
      '4. Payment Terms\nCustomer shall pay Supplier within thirty days. Either party may terminate this Agreement. ' +
        'Invoices are sent monthly. The Services Schedule applies.',
    );
    assert.deepEqual(e.people, []);
    assert.deepEqual(e.organizations, []);
    assert.deepEqual(e.places, []);
  });

  it('reads people and organisations from labelled fields and table columns', () => {
    const e = extractEntitiesLocal(
      'Prepared by: Lena Ortiz\nApproved by: Marek Nowak\n\nSupplier,Contact,Amount (EUR)\nFabrikam,Joanna Reyes,1200\nTailspin Toys,Omar Haddad,800\nWingtip Systems,Chen Jing,450\n',
    );
    assert.deepEqual(e.people, ['Lena Ortiz', 'Marek Nowak', 'Joanna Reyes', 'Omar Haddad', 'Chen Jing']);
    assert.deepEqual(e.organizations, ['Fabrikam', 'Tailspin Toys', 'Wingtip Systems']);
    assert.deepEqual(e.amounts, ['EUR 1,200.00', 'EUR 800.00', 'EUR 450.00']);
  });

  it('finds speakers of a transcript and the signer of a letter', () => {
    const transcript = extractEntitiesLocal(
      'Aditi Rao: Shall we start?\nBram Jansen: Yes.\nAditi Rao: Good.\nBram Jansen: Fine.',
    );
    assert.deepEqual(transcript.people, ['Aditi Rao', 'Bram Jansen']);
    const letter = extractEntitiesLocal(
      'We will call you next week.\n\nYours sincerely,\n\nKwame Mensah\nAccounts Team',
    );
    assert.deepEqual(letter.people, ['Kwame Mensah']);
  });

  it('finds places from the lexicon and from "Town, Region" patterns, not from street names', () => {
    const e = extractEntitiesLocal(
      'Offices in Lyon, France and Kelowna, BC. Deliveries go to 12 Station Road and Park Lane.',
    );
    assert.deepEqual(e.places, ['Lyon', 'France', 'Kelowna']);
  });

  it('finds nothing in text without names', () => {
    const e = extractEntitiesLocal('the quick brown fox jumps over the lazy dog.');
    assert.deepEqual(e, { people: [], organizations: [], dates: [], places: [], amounts: [] });
  });
});

describe('local entities: dates', () => {
  it('normalises the usual written forms', () => {
    assert.deepEqual(isos('on March 3, 2026; 3 March 2026; 2026-03-04; Sept. 9, 2025; the 1st of June 2024'), [
      '2026-03-03',
      '2026-03-03',
      '2026-03-04',
      '2025-09-09',
      '2024-06-01',
    ]);
  });

  it('reads numeric dates month first, unless the document writes them day first', () => {
    assert.deepEqual(isos('Invoice dated 03/04/2026.'), ['2026-03-04']);
    assert.deepEqual(isos('Invoice dated 03/04/2026, due 15/04/2026.'), ['2026-04-03', '2026-04-15']);
    assert.deepEqual(isos('Rechnung vom 03.04.2026'), ['2026-04-03']);
  });

  it('resolves dates without a year from the reference date, forward after "until"', () => {
    const reference = new Date('2026-01-15T10:00:00Z');
    assert.deepEqual(isos('Payment is due until December 31.', reference), ['2026-12-31']);
    assert.deepEqual(isos('We met on December 30 to plan.', reference), ['2025-12-30']);
    assert.deepEqual(isos('The demo is on Tuesday the tenth of February.', reference), ['2026-02-10']);
    assert.deepEqual(isos('The demo is on March twenty-third.', reference), ['2026-03-23']);
  });

  it('uses the document own dates when the reference date is far from them', () => {
    assert.deepEqual(isos('Letter of 2 May 2019. Reply by June 1.', new Date('2026-01-15')), [
      '2019-05-02',
      '2019-06-01',
    ]);
  });

  it('leaves out what is not a calendar day', () => {
    assert.deepEqual(
      isos('In January 2026, in Q3 2026, next Friday, and you may 3 times.', new Date('2026-01-15')),
      [],
    );
    assert.deepEqual(isos('Call (503) 555-0147, account 30-55812-07, version 1.2.3, 31/02/2026'), []);
  });
});

describe('local entities: amounts', () => {
  const values = (text: string) => findAmounts(text).map((a) => a.value);

  it('normalises symbols, codes, European notation, scales and words', () => {
    assert.deepEqual(values('USD 18,500.00 and $165 per hour'), ['USD 18,500.00', 'USD 165.00']);
    assert.deepEqual(values('EUR 9.750,00 then € 1.200,50 and 12,500 EUR'), [
      'EUR 9,750.00',
      'EUR 1,200.50',
      'EUR 12,500.00',
    ]);
    assert.deepEqual(values('$2.4 million, £1.8M, ¥300bn'), [
      'USD 2,400,000.00',
      'GBP 1,800,000.00',
      'JPY 300,000,000,000.00',
    ]);
    assert.deepEqual(values('about sixty thousand dollars a year'), ['USD 60,000.00']);
  });

  it('ignores numbers without a currency', () => {
    assert.deepEqual(values('1.5% interest, 300 sites, 6.2 gigawatts, 1,100 employees'), []);
  });
});
