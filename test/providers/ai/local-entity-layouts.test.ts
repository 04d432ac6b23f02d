import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractEntitiesLocal, extractEntityDetails } from '../../../src/providers/ai/local/entities.ts';

// Issue 27, eighth pass: classes of cue found on the sealed-2 split, each on made-up text (names
// invented for the test, places real), so that a rule is held to the class and not to a fixture's words.

describe('local entities: layouts and cues of other languages', () => {
  it('reads two signatures set side by side in columns, each above its title and company', () => {
    const e = extractEntitiesLocal(
      [
        'Firmas:',
        '',
        'Ximena Pradenas Lagos                Gaspar Irarrázaval Hurtado',
        'Gerente General                      Representante Legal',
        'Forestal Cordillera SpA              Transportes Huemul Limitada',
      ].join('\n'),
    );
    assert.deepEqual(e.people, ['Ximena Pradenas Lagos', 'Gaspar Irarrázaval Hurtado']);
    assert.ok(e.organizations.includes('Forestal Cordillera SpA'), e.organizations.join('; '));
    assert.ok(e.organizations.includes('Transportes Huemul Limitada'), e.organizations.join('; '));
  });

  it('drops a title of another language and keeps "Sri Lanka" whole', () => {
    const e = extractEntitiesLocal(
      'Representada por doña Ximena Pradenas Lagos. Up. Ibu Wulan Kartika Sari, Procurement. Shipped from Galle, Sri Lanka.',
    );
    assert.ok(e.people.includes('Ximena Pradenas Lagos'), e.people.join('; '));
    assert.ok(e.people.includes('Wulan Kartika Sari'), e.people.join('; '));
    assert.ok(e.places.includes('Sri Lanka'), e.places.join('; '));
    assert.ok(!e.people.includes('Lanka'));
  });

  it('types every item of a header field alike: a party beside a person is a person', () => {
    const e = extractEntitiesLocal(
      'From: Ana Lopez <ana@x.example>\nTo: Jose Ramon Reyes; Dindo Macaraeg\nSubject: Q2',
    );
    assert.ok(e.people.includes('Dindo Macaraeg'), e.people.join('; '));
    assert.ok(!e.organizations.includes('Dindo Macaraeg'));
  });

  it('reads a legal form written before the name, or as its country writes it', () => {
    const e = extractEntitiesLocal(
      'Pembayaran ke PT Sinar Kelapa Mandiri. Seller: Kopra Vitalis s.r.o. and Fjordlys ApS; also Rimba Data Sdn. Bhd. and Dachdecker i Västerås AB.',
    );
    for (const name of [
      'PT Sinar Kelapa Mandiri',
      'Kopra Vitalis s.r.o.',
      'Fjordlys ApS',
      'Rimba Data Sdn. Bhd',
      'Dachdecker i Västerås AB',
    ])
      assert.ok(e.organizations.includes(name), `${name}: ${e.organizations.join('; ')}`);
  });

  it("reads a name listed beside a known company as a company, and a firm after a person's role", () => {
    const list = extractEntitiesLocal('The largest buyers were Nestlé (Vevey) and Quillabamba.');
    assert.ok(list.organizations.includes('Quillabamba'), list.organizations.join('; '));
    const role = extractEntitiesLocal('Also present: Karin Lindqvist, property manager, Hyresbolaget');
    assert.ok(role.organizations.includes('Hyresbolaget'), role.organizations.join('; '));
    // A department after a role stays out.
    const dept = extractEntitiesLocal('Signed: Moses Kiprono, Director, Risk Consulting');
    assert.ok(!dept.organizations.includes('Risk Consulting'), dept.organizations.join('; '));
  });

  it('reads the towns and countries of postal addresses, not a building before the street', () => {
    const e = extractEntitiesLocal(
      [
        'Nádražní 12, 602 00 Brno',
        'No. 7, Temple Road, Kandy, Sri Lanka',
        'Via Roma 3 – 20121 Milano MI',
        'Flat 2A, Shanti Residency, 3rd Main Road',
      ].join('\n'),
    );
    for (const place of ['Brno', 'Kandy', 'Sri Lanka', 'Milano'])
      assert.ok(e.places.includes(place), `${place}: ${e.places.join('; ')}`);
    assert.ok(!e.places.includes('Shanti Residency'));
  });

  it('reads money columns of a space-aligned table under their currency, whatever the header alphabet', () => {
    const amounts = extractEntityDetails(
      [
        'Grade        Net kg     Price (USD/kg)    Value (USD)',
        'BOP          10,000     4.20              42,000.00',
        'Fannings      2,500     3.10               7,750.00',
        '',
        'Položka                 Cena/j. (Kč)   Celkem (Kč)',
        'Korektura textu         200,00         6 400,00',
      ].join('\n'),
    ).amounts.map((a) => `${a.currency} ${a.value}`);
    for (const a of ['USD 4.2', 'USD 42000', 'USD 3.1', 'USD 7750', 'CZK 200', 'CZK 6400'])
      assert.ok(amounts.includes(a), `${a}: ${amounts.join('; ')}`);
  });
});
