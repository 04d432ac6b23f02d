import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractEntitiesLocal } from '../../../src/providers/ai/local/entities.ts';
import { companyKeyOfWords, findCompanyName } from '../../../src/providers/ai/local/gazetteer.ts';

// Issue 27, fifth pass: the company gazetteer (name-suggestion-index, generated into
// company-names.ts), people in labelled lists, and organisations' legal forms. Names other than
// well-known companies are invented for the test.

describe('company gazetteer', () => {
  it('keys a name by its folded words, without dots or a possessive', () => {
    assert.equal(companyKeyOfWords(['Crédit', 'Agricole']), 'credit agricole');
    assert.equal(companyKeyOfWords(["Moody's"]), 'moody');
    assert.equal(companyKeyOfWords(['S.A.']), 'sa');
  });

  it('finds the longest whole name in a run of words', () => {
    assert.deepEqual(findCompanyName(['DB', 'Schenker']), { start: 0, end: 2, weak: false });
    assert.deepEqual(findCompanyName(['Sent', 'by', 'Marks', '&', 'Spencer']), { start: 2, end: 5, weak: false });
    assert.deepEqual(findCompanyName(['Premier', 'Inn']), { start: 0, end: 2, weak: true });
  });

  it('holds no word of the language alone', () => {
    for (const word of ['Target', 'Next', 'Shell', 'Boots', 'Finance', 'Plot', 'Regulation', 'Procurement', 'English'])
      assert.equal(findCompanyName([word]), null, word);
  });
});

describe('local entities: well-known companies', () => {
  it('takes a gazetteer name with what qualifies it, and the name alone before a product', () => {
    const e = extractEntitiesLocal(
      'Inland haulage stays with DB Schenker. The audit goes to KPMG East Africa. We stayed at Premier Inn near the port.',
    );
    assert.ok(e.organizations.includes('DB Schenker'), e.organizations.join('|'));
    assert.ok(e.organizations.includes('KPMG East Africa'), e.organizations.join('|'));
    assert.ok(e.organizations.includes('Premier Inn'), e.organizations.join('|'));
  });

  it('does not take a name of ordinary words opening a sentence, nor a brand word in a signed name', () => {
    const e = extractEntitiesLocal(
      'Premier Inn rooms were booked.\n\nKind regards,\n\nTeodor Brannigal, Head of Sales',
    );
    assert.deepEqual(e.organizations, []);
    assert.deepEqual(e.people, ['Teodor Brannigal']);
  });

  it('reads a plus or an ampersand inside a word as a company, not "R&D"', () => {
    const e = extractEntitiesLocal('Freight goes with Kuehne+Nagel. The R&D budget is unchanged.');
    assert.deepEqual(e.organizations, ['Kuehne+Nagel']);
  });
});

describe('local entities: people in labelled lists', () => {
  it('splits a person label on "and", item numbers and wide gaps', () => {
    const e = extractEntitiesLocal(
      [
        'For the Tenant: Zanele Mahlangu and Bongani Sithole',
        'Witnesses: 1. Karabo Molefe  2. Hendrik Steyn',
        'Prepared by: Kang Min-seo and Yoon Ha-eun',
        'Participants: Jung Tae-woo (Plant Manager), Shin Eun-ji (QA).',
      ].join('\n'),
    );
    assert.deepEqual(e.people, [
      'Zanele Mahlangu',
      'Bongani Sithole',
      'Karabo Molefe',
      'Hendrik Steyn',
      'Kang Min-seo',
      'Yoon Ha-eun',
      'Jung Tae-woo',
      'Shin Eun-ji',
    ]);
  });

  it('takes "X of Company" after a person label as a person and where they work, not a role\'s "of"', () => {
    const e = extractEntitiesLocal(
      'Also present: Ikaika Mahoe of Murata Manufacturing.\nReviewed by: Oliver Pennington, Head of Trading',
    );
    assert.deepEqual(e.people, ['Ikaika Mahoe', 'Oliver Pennington']);
    assert.deepEqual(e.organizations, ['Murata Manufacturing']);
  });

  it('decides a "To:" value by its words: a name of short syllables or a given name is a person, else a company', () => {
    const e = extractEntitiesLocal(
      'To: Teo Siew Ling; Nur Aisyah binti Rahman\nCc: Arjun Pillai\n\nTo: Volta Microfinance, Ring Road Central',
    );
    assert.deepEqual(e.people, ['Teo Siew Ling', 'Nur Aisyah binti Rahman', 'Arjun Pillai']);
    assert.deepEqual(e.organizations, ['Volta Microfinance']);
  });

  it('reads two unknown words after "with" or "between" as a person, a name with a head word as a company', () => {
    const e = extractEntitiesLocal(
      'I had a call with Wanjiru Kamau. Agreement between Chidi Okafor and Acme Ltd. Contract with Kestrel Foods.',
    );
    assert.deepEqual(e.people, ['Wanjiru Kamau', 'Chidi Okafor']);
    assert.deepEqual(e.organizations, ['Acme Ltd.', 'Kestrel Foods']);
  });

  it('keeps initials inside a name', () => {
    const e = extractEntitiesLocal('By: Gregory T. Hamilton\nTitle: Managing Partner\n\nSigned by: A. Campbell');
    assert.deepEqual(e.people, ['Gregory T Hamilton', 'A Campbell']);
  });
});

describe('local entities: CV headings and signature titles', () => {
  it("takes a CV's opening name as a person, under a title and over an address, English syllables included", () => {
    const cv = (head: string) =>
      extractEntitiesLocal(
        `${head}\n12 Admiralty Way, Lekki, Lagos\n\nPROFILE\nAnalyst.\n\nEXPERIENCE\nAudit, 2019–2024`,
      );
    assert.deepEqual(cv('CURRICULUM VITAE\nOluwadamilare Bankole').people, ['Oluwadamilare Bankole']);
    assert.deepEqual(cv('LEUNG WING SZE').people, ['Leung Wing Sze']);
    assert.deepEqual(cv('LEUNG WING SZE').organizations, []);
  });

  it('takes the name above "Authorised Signatory" as a person, and a name-shaped one before "of Company"', () => {
    const e = extractEntitiesLocal(
      'For Kaveri Tools Pvt. Ltd.\n\nAnjali Deshmane\nAuthorised Signatory\n\nThe drawings came from your project manager, Pádraig Mac Cárthaigh of Quay Project Services, last week.',
    );
    assert.deepEqual(e.people, ['Anjali Deshmane', 'Pádraig Mac Cárthaigh']);
    assert.ok(e.organizations.includes('Quay Project Services'), e.organizations.join('|'));
  });
});

describe('local entities: legal forms and departments', () => {
  it('reads Mexican, Brazilian and Singaporean legal forms whole, and two companies around "and"', () => {
    const e = extractEntitiesLocal(
      'Buyer: Agroindustrias del Bajío, S.A. de C.V.\nSupplier: Embalagens Paulista Ltda. and Northlight Analytics Pte. Ltd. Freight by Grupo Traxión and Ryder System, Inc. this year.',
    );
    for (const name of [
      'Agroindustrias del Bajío, S.A. de C.V.',
      'Embalagens Paulista Ltda.',
      'Northlight Analytics Pte. Ltd.',
      'Grupo Traxión',
      'Ryder System, Inc.',
    ])
      assert.ok(e.organizations.includes(name), `${name} in ${e.organizations.join('|')}`);
  });

  it('does not take departments, plots, regulations or teams for organisations', () => {
    const e = extractEntitiesLocal(
      'The Claims Department and the Materials Management Department agree. The buyer acquired Plot 14. Regulation 12 applies. Finance and Procurement will review. English is the language of this agreement.',
    );
    assert.deepEqual(e.organizations, []);
  });
});
