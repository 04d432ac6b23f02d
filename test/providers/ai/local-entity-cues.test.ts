import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractEntityDetails, extractEntitiesLocal } from '../../../src/providers/ai/local/entities.ts';
import { findRegion } from '../../../src/providers/ai/local/gazetteer.ts';

// Issue 27, entities on unseen documents: each class of cue on made-up text (names invented for the
// test, places real), so that a rule is held to the class and not to a fixture's words.

describe('local entities: cues of layout', () => {
  it('reads the signatory after "By:" and the name above a job title in a signature block', () => {
    const e = extractEntitiesLocal(
      [
        'SIGNED for and on behalf of Harrowgate Turbines Limited',
        'By: Emeka Nwachukwu-Obi',
        'Title: Finance Director',
        '',
        'Saygılarımla / Kind regards,',
        '',
        'Đặng Thị Kim Oanh',
        'Sales Director',
      ].join('\n'),
    );
    assert.deepEqual(e.people, ['Emeka Nwachukwu-Obi', 'Đặng Thị Kim Oanh']);
    assert.deepEqual(e.organizations, ['Harrowgate Turbines Limited']);
  });

  it("takes the name under a signature's job title as the signer's organisation", () => {
    const e = extractEntitiesLocal(
      'Best regards,\n\nTamsin Okoro\nSales Director\nBluefinch Ceramics\n+44 20 7946 0000',
    );
    assert.deepEqual(e.people, ['Tamsin Okoro']);
    assert.deepEqual(e.organizations, ['Bluefinch Ceramics']);
  });

  it('reads "Ernst & Young"-like firms with one ordinary word, not "Health & Safety"', () => {
    assert.deepEqual(extractEntitiesLocal('Audited by Quillon & Young last year.').organizations, ['Quillon & Young']);
    assert.deepEqual(extractEntitiesLocal('The Health & Safety team met.').organizations, []);
  });

  it('takes a name before an e-mail address in angle brackets as a person', () => {
    const e = extractEntitiesLocal('From: Ruairí Mac Lochlainn <ruairi@example.test>\nTo: team@example.test');
    assert.deepEqual(e.people, ['Ruairí Mac Lochlainn']);
  });

  it('takes a CV heading in capitals above a role line as the person, not a company', () => {
    const e = extractEntitiesLocal(
      'TENDAI MUCHENJE\nProcurement Manager · Harare · +263 77 123 4567\n\nEXPERIENCE\nBuyer at a brewery.',
    );
    assert.deepEqual(e.people, ['Tendai Muchenje']);
    assert.deepEqual(e.organizations, []);
  });

  it('types the other names of a list as organisations when one of them is a company on firm evidence', () => {
    const e = extractEntitiesLocal(
      'Bids were received from:\n  a) Qorvane Hydraulics Limited\n  b) Vellmark Pumps\n  c) Trastavo\n\nThe panel meets next week.',
    );
    assert.deepEqual(e.organizations, ['Qorvane Hydraulics Limited', 'Vellmark Pumps', 'Trastavo']);
    assert.deepEqual(e.people, []);
  });

  it('leaves a list of topics alone', () => {
    const e = extractEntitiesLocal('Agenda:\n- Budget\n- Staffing\n- Any other business');
    assert.deepEqual([...e.organizations, ...e.people, ...e.places], []);
  });
});

describe('local entities: cues of language', () => {
  it('reads names joined by "&" as a firm', () => {
    assert.deepEqual(extractEntitiesLocal('Witness: Adaeze Umeh, Balogun & Fashola').organizations, [
      'Balogun & Fashola',
    ]);
    assert.deepEqual(extractEntitiesLocal('We hired Kerrigan Doyle & Partridge as advisers.').organizations, [
      'Kerrigan Doyle & Partridge',
    ]);
    assert.deepEqual(extractEntitiesLocal('The Research & Development budget grew.').organizations, []);
  });

  it('keeps "Bank of …" whole at a sentence start, and a company after a kind-of-firm noun without a comma', () => {
    assert.deepEqual(extractEntitiesLocal('- Bank of Valletta asked for the accounts.').organizations, [
      'Bank of Valletta',
    ]);
    assert.deepEqual(extractEntitiesLocal('Our freight forwarder Tranzivo will book the vessel.').organizations, [
      'Tranzivo',
    ]);
  });

  it('reads legal forms written in capitals and company words of other languages', () => {
    assert.deepEqual(extractEntitiesLocal('Supplier: Fjordlys Interiør AS, Bergen').organizations, [
      'Fjordlys Interiør AS',
    ]);
    assert.deepEqual(extractEntitiesLocal('Paid to Karoo Haulage CC on Friday.').organizations, ['Karoo Haulage CC']);
    assert.deepEqual(extractEntitiesLocal('Bankverbindung: Kreissparkasse Heilbronn').organizations, [
      'Kreissparkasse Heilbronn',
    ]);
    assert.deepEqual(extractEntitiesLocal('The fit-out is by Grupo Valdemora.').organizations, ['Grupo Valdemora']);
    assert.deepEqual(extractEntitiesLocal('Nhà cung cấp: Công ty TNHH Thép Phú Lâm').organizations, [
      'Công ty TNHH Thép Phú Lâm',
    ]);
    // "as" and "cc" in lower case are words, not legal forms.
    assert.deepEqual(extractEntitiesLocal('Harbour Bank, as lender, agrees.').organizations, ['Harbour Bank']);
  });

  it('does not read a street or a district of other languages as a person', () => {
    const e = extractEntitiesLocal(
      'Số 8 Phố Hàng Bông, Quận Hoàn Kiếm, Hà Nội\nCalle Alcalá 40, Madrid\nStortingsgata 6, Oslo; Thorvald Meyers gate 12',
    );
    assert.deepEqual(e.people, []);
    assert.ok(e.places.includes('Hoàn Kiếm'), JSON.stringify(e.places));
    assert.ok(e.places.includes('Hà Nội'), JSON.stringify(e.places));
  });

  it('reads a person whose name has particles or name-shaped words at a sentence start', () => {
    assert.deepEqual(extractEntitiesLocal('Thanks. Seosaimhín Nic Giolla Bhríde expects the draft today.').people, [
      'Seosaimhín Nic Giolla Bhríde',
    ]);
  });
});

describe('local entities: gazetteers and conflicts between types', () => {
  it('knows first-level regions, in any spelling of the package', () => {
    assert.equal(findRegion('Tamil Nadu')?.country, 'IN');
    assert.equal(findRegion('Nuevo León')?.country, 'MX');
    assert.equal(findRegion('Binh Duong')?.country, 'VN');
    assert.equal(findRegion('Nowhere Land'), null);
  });

  it('types a country, region or large city as a place rather than a person or a company', () => {
    const e = extractEntitiesLocal('Ms Adjoa Quaye travels to Việt Nam and Maharashtra, then works in Kumasi.');
    assert.deepEqual(e.people, ['Adjoa Quaye']);
    assert.deepEqual(e.places, ['Việt Nam', 'Maharashtra', 'Kumasi']);
    assert.deepEqual(e.organizations, []);
  });

  it('keeps a place named like a person a person without a place cue', () => {
    assert.deepEqual(extractEntitiesLocal('Thanks, Paul. See you soon.').places, []);
  });

  it('reads an unknown town after "in" before a date or after a known place in a list', () => {
    assert.deepEqual(extractEntitiesLocal('A pump failed in Kilindini on 3 June 2025.').places, ['Kilindini']);
    assert.deepEqual(extractEntitiesLocal('Staff in Alicante and Xàtiva are not affected.').places, [
      'Alicante',
      'Xàtiva',
    ]);
  });

  it('does not guess a company after "at" or "from", where a place is as likely', () => {
    const e = extractEntitiesLocal('Ships diverted from Qinzhou added calls at Shekou last month.');
    assert.deepEqual(e.organizations, []);
  });

  it('gives every person, organisation and place a confidence in [0, 1]', () => {
    const e = extractEntityDetails('By: Emeka Nwachukwu-Obi\nHarrowgate Turbines Limited, Lagos, Nigeria');
    for (const x of [...e.people, ...e.organizations, ...e.locations])
      assert.ok(x.confidence > 0 && x.confidence <= 1, JSON.stringify(x));
  });
});
