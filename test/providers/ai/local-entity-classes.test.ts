import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractEntitiesLocal } from '../../../src/providers/ai/local/entities.ts';
import { findPayees } from '../../../src/providers/ai/local/payees.ts';

// The failure classes of issue 27, each on made-up text: names in lists and signature blocks,
// names of other languages and orders, places from the gazetteer and from context, statement payees.

describe('local entities: people in lists, signature blocks and other orders', () => {
  it('takes a role of several words after a name as the cue, also for names ending like English nouns', () => {
    const e = extractEntitiesLocal(
      'For the Seller:\n\nKunal Varadkar, Director\nTeodor Brannigal, Head of Customer Operations\nSigned in the presence of the parties.',
    );
    assert.deepEqual(e.people, ['Kunal Varadkar', 'Teodor Brannigal']);
  });

  it('reads people after labels ending in "by", "Server:", "cc:" lists and "In the presence of:"', () => {
    const e = extractEntitiesLocal(
      [
        'Goods collected by: Lerato Mabuza (ID on file)',
        'Server: Lam Wai Kit',
        'cc: Okonkwo Adaeze, Project Manager; Brannagh Feeney, Export Sales',
        'In the presence of: Grace Wanjiru Kamau, Advocate',
      ].join('\n'),
    );
    assert.deepEqual(e.people, [
      'Lerato Mabuza',
      'Lam Wai Kit',
      'Okonkwo Adaeze',
      'Brannagh Feeney',
      'Grace Wanjiru Kamau',
    ]);
  });

  it('drops titles of other languages and keeps a family name written first', () => {
    assert.deepEqual(extractEntitiesLocal('z. Hd. Herrn Jörg Altenkirch').people, ['Jörg Altenkirch']);
    assert.deepEqual(extractEntitiesLocal('Our engineer, Tanaka Sakura, will visit on Monday.').people, [
      'Tanaka Sakura',
    ]);
  });

  it('does not read a salutation or a place after "in" as a person', () => {
    assert.deepEqual(extractEntitiesLocal('Dear Sirs\n\nWe write about the invoice.').people, []);
    const e = extractEntitiesLocal('Growers in Krong Bao and Gia Nghia are holding stock.');
    assert.deepEqual(e.people, []);
    assert.deepEqual(e.places, ['Krong Bao', 'Gia Nghia']);
  });
});

describe('local entities: places from the gazetteer and from context', () => {
  it('finds gazetteer cities with a postcode, in an address line, in a list and in other scripts', () => {
    assert.deepEqual(extractEntitiesLocal('Hafenstraße 4, 38440 Kisumu').places, ['Kisumu']);
    assert.deepEqual(extractEntitiesLocal('TO: Sales staff, Eldoret and Tamale offices').places, ['Eldoret', 'Tamale']);
    assert.deepEqual(extractEntitiesLocal('Head office: Đà Nẵng, Vietnam').places, ['Đà Nẵng', 'Vietnam']);
    assert.deepEqual(extractEntitiesLocal('- Kuala Lumpur: USD 210 a night').places, ['Kuala Lumpur']);
  });

  it('reads an unknown name after "in" as a place, but not a subject or a lettered annex', () => {
    assert.deepEqual(
      extractEntitiesLocal('The council approved a new library in Ravensmoor, replacing the old branch.').places,
      ['Ravensmoor'],
    );
    assert.deepEqual(
      extractEntitiesLocal('She builds forecasting models in Fortran and explains them clearly.').places,
      [],
    );
    assert.deepEqual(extractEntitiesLocal('Please return the forms listed in Annexure C before joining.').places, []);
  });

  it('needs context for a small town named like other things', () => {
    // A town of the gazetteer under 500,000 people, alone in a table cell, is not read as a place.
    assert.deepEqual(extractEntitiesLocal('1 | Eldoret blend tea (2 packs) | 12.00').places, []);
  });
});

describe('local entities: organisations', () => {
  it('keeps an organisation closed by a head whole at a sentence start', () => {
    assert.deepEqual(
      extractEntitiesLocal('Foreign Languages University, Đà Nẵng - Bachelor of Arts, 2014').organizations,
      ['Foreign Languages University'],
    );
  });

  it('reads a distinctive name before a telecoms head as an organisation, not a person', () => {
    const e = extractEntitiesLocal('Thanks for contacting Halcyon Broadband support. How can I help?');
    assert.deepEqual(e.organizations, ['Halcyon Broadband']);
    assert.deepEqual(e.people, []);
  });

  it('reads the payees of statement lines, ending at the town, the reference or the legal form', () => {
    const text = [
      '03 Mar | Card payment GREENGROCER STORES 2417 GLASGOW | 63.87 |  | 2,211.99',
      '17 Mar | Card payment TRANSIT FOR LEEDS | 18.40 |  | 1,065.00',
      '28 Mar | Salary HEBRIDES FERRY SERVICES LTD MAR PAY |  | 2,684.17 | 3,505.67',
      '29 Mar | Standing order B MACDONALD RENT | 500.00 |  | 3,005.67',
      'XK24M1,2025-04-02 08:14:22,Pay Bill to 888880 - LAKESIDE WATER Acc. 54012387765,Completed,,"-3,200.00"',
    ].join('\n');
    assert.deepEqual(
      findPayees(text).map((p) => p.name),
      ['GREENGROCER STORES', 'TRANSIT FOR LEEDS', 'HEBRIDES FERRY SERVICES LTD', 'LAKESIDE WATER'],
    );
    const e = extractEntitiesLocal(text);
    for (const name of ['Greengrocer Stores', 'Transit for Leeds', 'Hebrides Ferry Services Ltd', 'Lakeside Water'])
      assert.ok(e.organizations.includes(name), name);
    assert.ok(!e.organizations.some((o) => /^Salary/.test(o)), 'the kind of transaction is not part of the name');
    assert.ok(!e.places.includes('Leeds'), 'a town inside a payee name is not a place of the document');
  });

  it('finds no payee in ordinary prose', () => {
    assert.deepEqual(findPayees('We made a card payment to the supplier last week.'), []);
  });
});
