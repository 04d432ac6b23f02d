import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rankPassages } from '../../../src/modules/chat/passage-ranking.ts';
import { findDurations } from '../../../src/providers/ai/local/durations.ts';
import { NOT_FOUND_ANSWER } from '../../../src/providers/ai/local/extractive-answer.ts';
import {
  analyzeQuestion,
  classifyQuestion,
  factEvidence,
  termCoverage,
  termMatch,
} from '../../../src/providers/ai/question.ts';
import { segmentText } from '../../../src/providers/ai/segmentation.ts';
import { ask } from './ask-local.ts';

// One case per class of chat failure found on the tune documents of the corpus (issue 34 item 3),
// each on a small text written here: the question misread, the fact's kind not recognised, the
// right passage missed, the wrong sentence of the right passage, the fact cut off.

describe('question typing', () => {
  it('reads taxes, limits and spending as amounts, a rate of tax or interest as a percentage', () => {
    assert.equal(classifyQuestion('What was the VAT on the receipt?'), 'amount');
    assert.equal(classifyQuestion('What is the hotel limit per night?'), 'amount');
    assert.equal(classifyQuestion('How much has the project spent so far?'), 'amount');
    assert.equal(classifyQuestion('What VAT rate applies to the quote?'), 'percent');
    assert.equal(classifyQuestion('What interest rate is charged on late payments?'), 'percent');
    assert.equal(classifyQuestion('What is the room rate?'), 'amount');
    assert.equal(classifyQuestion('Where did the copper price close in March?'), 'amount');
    assert.equal(classifyQuestion('Where did the board meeting end?'), 'place');
    assert.ok(analyzeQuestion('Where did the copper price close in May?').terms.has('may'));
    assert.ok(!analyzeQuestion('May I see the contract?').terms.has('may'));
  });

  it('reads German questions: wann → date, wie hoch / Betrag → amount, wer → party; their function words are not terms', () => {
    assert.equal(classifyQuestion('Wann wurde die Rechnung gestellt?'), 'date');
    assert.equal(classifyQuestion('Wie hoch ist der zu zahlende Betrag?'), 'amount');
    assert.equal(classifyQuestion('Wer hat den Brief unterschrieben?'), 'party');
    const terms = [...analyzeQuestion('Wie hoch ist der zu zahlende Betrag?').terms.keys()];
    for (const word of ['wie', 'ist', 'der', 'zu', 'hoch']) assert.ok(!terms.includes(word), terms.join(' '));
  });

  it('drops the words that only name the kind asked ("how long", "by what date")', () => {
    assert.ok(!analyzeQuestion('How long does the agreement run?').terms.has('long'));
    assert.ok(!analyzeQuestion('By what date must the balance be paid?').terms.has('dat'));
    assert.ok(analyzeQuestion('By what date must the balance be paid?').terms.has('balanc'));
  });

  it('keeps a short acronym ("VAT", "ERP") a full word, a capitalised name a weak one', () => {
    const { terms } = analyzeQuestion('What was the VAT on the Harwick Timber receipt?');
    // Marked as an abbreviation (it also matches initials: "value added tax"), of full weight.
    assert.equal(terms.get('~vat'), 1);
    assert.equal(termMatch('~vat', new Set(['vat'])), 1);
    assert.equal(terms.get('harwick'), 0.3);
  });
});

describe('kinds of fact and words', () => {
  it('a day and month without the year is a date ("until October 8", "on 12 May"); a year alone is not', () => {
    assert.ok(factEvidence('date', 'Free cancellation is possible until October 8.') > 0);
    assert.ok(factEvidence('date', 'The release goes out on 12 May unless QA finds blockers.') > 0);
    assert.equal(factEvidence('date', 'We shipped 12 pallets in 2025.'), 0);
  });

  it('a percentage answers a rate; money answers it only weakly', () => {
    assert.equal(factEvidence('percent', 'VAT at 13.5%: EUR 20,601.00'), 1);
    assert.ok(factEvidence('percent', 'Total: EUR 173,201.00') < 0.5);
    assert.ok(factEvidence('amount', 'Interest at 18% per annum applies.') < 0.5);
  });

  it('one word whatever the stemmer left of it: "accept" holds "acceptance", not short stems', () => {
    assert.equal(termMatch('accept', new Set(['acceptanc'])), 0.8);
    assert.equal(termMatch('cancell', new Set(['cancellation'])), 0.8);
    assert.equal(termMatch('art', new Set(['articl'])), 0);
    assert.equal(termMatch('spent', new Set(['spend'])), 0.6);
  });

  it('a word of the heading or lead-in above counts half, in any of its forms ("night" in "Nightly limits:")', () => {
    assert.equal(termCoverage(new Map([['night', 1]]), new Set(['london']), new Set(['nightli', 'limit'])), 0.4);
    assert.equal(termCoverage(new Map([['limit', 1]]), new Set(['london']), new Set(['nightli', 'limit'])), 0.5);
  });

  it('"once a month" is a frequency, not a duration', () => {
    assert.deepEqual(
      findDurations('Maintenance once a month, twice a year an audit, for a term of three (3) years.').map(
        (d) => d.text,
      ),
      ['three (3) years'],
    );
  });
});

describe('segmentation: wrapped prose with commas', () => {
  it('keeps a numbered clause whose wrapped lines hold commas one clause, not CSV rows', () => {
    const text = [
      '3.1 The Contractor shall service each pump once a month in',
      'accordance with the maker\u2019s schedule, including cleaning, adjustment of',
      'seals and valves, inspection of the motor, and testing of the alarms.',
      '3.2 The Contractor shall keep a log.',
    ].join('\n');
    const segments = segmentText(text);
    assert.equal(segments[0]!.kind, 'clause');
    assert.match(segments[0]!.text, /once a month in accordance with .* testing of the alarms\.$/);
    assert.ok(!segments.some((s) => s.kind === 'table_row'));
  });

  it('still reads lines of comma-separated cells as rows', () => {
    const segments = segmentText('Code, Item, Qty, Price\nA-1, Bolts M8, 200, 14.00\nA-2, Nuts M8, 200, 9.50');
    assert.ok(segments.filter((s) => s.kind === 'table_row').length >= 2);
  });
});

describe('retrieval reads passages as the answerer does', () => {
  it('"Who signed it?" finds the closing of a letter that never writes "sign"', () => {
    const passages = [
      {
        index: 0,
        page: null,
        text: 'Dear Mr Lund,\n\nthank you for your order of 40 chairs. They will be delivered next week.',
        vector: null,
      },
      {
        index: 1,
        page: null,
        text: 'We look forward to working with you.\n\nKind regards,\n\nMarta Oyelaran\nSales Director',
        vector: null,
      },
    ];
    const ranked = rankPassages({ analysis: analyzeQuestion('Who signed it?'), vector: null }, passages, {
      top: 5,
      minScore: 0.08,
    });
    assert.equal(ranked[0]?.index, 1);
  });
});

describe('choosing the segment', () => {
  it('a label that names what is asked wins over one that holds the same words among others', async () => {
    const text = [
      'Koyama Translations K.K.',
      'Qualified Invoice Issuer Registration No.: T9011001012345',
      'Invoice No.: KT-2507-114',
      'Invoice date: 2025-07-31',
    ].join('\n\n');
    assert.match(await ask('What is the number of the Koyama invoice?', text), /KT-2507-114/);
    const po = [
      'PURCHASE ORDER',
      'Prices follow the purchasing agreement between Delmont Medical, Inc. and Carevia, Inc. and may not be raised without a written change order.',
      'Approved by: Dr. Amina Farouk, Vice President',
      'Buyer: Laura Kowal, Senior Buyer',
    ].join('\n\n');
    assert.match(await ask('Who approved the purchase order?', po), /Amina Farouk/);
    assert.match(await ask('Who is the buyer on the purchase order?', po), /Laura Kowal/);
  });

  it('figures in a label are values, not what it names ("VAT @ 15%:" answers "the VAT")', async () => {
    const text = [
      'Subtotal: R 5 000,00',
      'Total excl. VAT: R 5 000,00',
      'VAT @ 15%: R 750,00',
      'TOTAL INCL. VAT: R 5 750,00',
    ].join('\n');
    assert.match(await ask('What was the VAT on the receipt?', text), /R 750,00/);
  });

  it('"so far" asks what documents write "to date"', async () => {
    const text =
      'The board approved a total project budget of $2.4 million in March, including the licence fees. Spending to date is $1,310,000, and the remaining contingency is $90,000. Training runs in May.';
    assert.equal(analyzeQuestion('How much has the project spent so far?').type, 'amount');
    assert.match(await ask('How much has the project spent so far?', text), /\$1,310,000/);
  });

  it('a name the question gives is its subject, not its answer', async () => {
    const text = [
      'Harwick Tea Importers Ltd, 18 Dock Road, London E1 2AB.',
      'Freight rates eased in June. Our main carrier, Hapag-Lloyd, has confirmed that the longer route will continue through the summer.',
    ].join('\n\n');
    const answer = await ask('Which carrier ships the importer\u2019s tea?', text);
    assert.match(answer, /Hapag-Lloyd/);
    assert.doesNotMatch(answer, /Dock Road/);
  });

  it('a signature block reads under the party named above it ("Who signed for Okafor?")', async () => {
    const text = [
      '13. Entire Agreement. This Agreement may be amended only in writing signed by both Parties.',
      'BRIGHTLINE ROBOTICS, INC.',
      'By: Rebecca Holm',
      'Title: Chief Executive Officer',
      'OKAFOR MECHATRONICS LTD.',
      'By: David Mensah',
      'Title: Managing Director',
    ].join('\n');
    assert.match(await ask('Who signed for Okafor?', text), /David Mensah/);
  });

  it('the question\u2019s words side by side ("notice period") pick the sentence that says it', async () => {
    const text =
      'Probation: the first six months are a probationary period, during which either party may end the employment with one week\u2019s notice. After probation, the notice period is one month on either side.';
    assert.match(await ask('What is the notice period?', text), /one month/);
  });

  it('list items under a lead-in ("Nightly limits:") read with it', async () => {
    const text = [
      '3. Accommodation',
      '3.1 Nightly limits for a standard room, including breakfast:',
      '- Edinburgh: \u00a3150',
      '- Leeds: \u00a3120',
      '3.2 Staying with friends instead of a hotel may be claimed at a flat rate of \u00a330 per night.',
    ].join('\n');
    assert.match(await ask('What is the hotel limit per night in Leeds?', text), /\u00a3120/);
  });

  it('a year-less date answers "when" ("until October 8")', async () => {
    const text =
      'Thank you for booking with Hotel Seeblick. We confirm your stay from Thursday, 15 October 2026 to Sunday, 18 October 2026. Free cancellation is possible until October 8; after that date the first night will be charged.';
    assert.match(await ask('Until when can the booking be cancelled free of charge?', text), /October 8/);
  });

  it('a long sentence is cut around the fact, not around the question\u2019s other words', async () => {
    const text =
      'Our client supplied stage equipment for three events. The invoices remain unpaid. Your manager acknowledged the debt in March. Interest continues to accrue daily. ' +
      'Unless the total is paid within 14 days of the date of this letter, that is by 17/04/2025, or you contact us within that time with a realistic proposal for payment, we are instructed to issue proceedings in the County Court without further notice and to claim our costs.';
    assert.match(await ask('By when must the debtor pay to avoid court proceedings?', text), /17\/04\/2025/);
  });

  it('still says "not in the document" when nothing scores, even where facts of the asked kind abound', async () => {
    const text = 'Invoice date: 2025-07-31\n\nTotal due: EUR 2,660.00\n\nPayment within 14 days.';
    assert.equal(await ask('When was the rocket launched to the moon?', text), NOT_FOUND_ANSWER);
  });
});

describe('which date of several (round 2)', () => {
  it('reads the role a date question asks: a limit, the end, the start, the date as changed', () => {
    assert.equal(analyzeQuestion('By what date must the fee be paid?').role, 'deadline');
    assert.equal(analyzeQuestion('When does the licence expire?').role, 'end');
    assert.equal(analyzeQuestion('When does the service start?').role, 'start');
    assert.equal(analyzeQuestion('When will the parts now be shipped?').role, 'revised');
    assert.equal(analyzeQuestion('When was the letter written?').role, null);
    assert.equal(analyzeQuestion('How much does the licence cost until it expires?').role, null);
  });

  it('"when does it end?" → the date the term ends on, not the date the contract was made', async () => {
    const text = [
      'This Licence Agreement (the "Agreement") is made on June 9, 2025 by and between Ostrava Maps s.r.o. and Pelican Freight Ltd.',
      'The Agreement continues until June 8, 2028 unless either party ends it earlier under clause 11.',
    ].join('\n\n');
    assert.match(
      await ask('When does the agreement between Ostrava Maps and Pelican Freight end?', text),
      /June 8, 2028/,
    );
  });

  it('an option to end ("may end this lease on …") is not the end of the term', async () => {
    const text = [
      '1. Term: five (5) years commencing on 1st May 2024 and ending on 30th April 2029.',
      '2. Break clause: the Tenant may end this Lease on 30th April 2027 by giving the Landlord six months\u2019 written notice.',
    ].join('\n');
    assert.match(await ask('When does the lease with Morrow Estates end?', text), /30th April 2029/);
  });

  it('"by what date" → the date given as a limit, not a period named beside the same words', async () => {
    const text =
      'Your account shows an overdue balance of $88.10 for gas supplied from March 1, 2026 through April 30, 2026. Please pay the balance, or call us to agree a payment plan, by June 15, 2026.';
    assert.match(await ask('By what date must the overdue balance be paid?', text), /June 15, 2026/);
  });

  it('"now" → the new date, not the one first promised', async () => {
    const text =
      'We regret that the valve kits we promised to ship from Antwerp on March 4 are delayed by a supplier fault. The new shipping date is March 21, 2026.';
    assert.match(await ask('When will the valve kits now be shipped?', text), /March 21, 2026/);
  });

  it('a label naming the asked thing and the kind ("Requested Shipping Date:") beats a name line with the question\u2019s words', async () => {
    const text = [
      'Northgate Dental Products, Inc.',
      'Order date: 02/10/2026',
      'Requested Shipping Date: 03/02/2026',
    ].join('\n');
    assert.match(await ask('When must the dental products be shipped?', text), /03\/02\/2026/);
  });
});

describe('other languages and document names (round 2)', () => {
  it('an English question finds its German words ("early payment discount" → "Zahlung bis … Skonto")', async () => {
    const text = [
      'Rechnungsdatum: 03.02.2026',
      'Zahlbar innerhalb von 30 Tagen.',
      'Bei Zahlung bis zum 10.02.2026 gewähren wir 3 % Skonto.',
    ].join('\n');
    assert.match(await ask('By when must we pay to get the discount?', text), /10\.02\.2026/);
  });

  it('a document noun ending its phrase names the document ("the services agreement with X"), one before another noun does not ("the leased premises")', () => {
    const { terms } = analyzeQuestion('Which law governs the services agreement with Corvid?');
    assert.equal(terms.get('law'), 1);
    assert.equal(terms.get('agreement'), 0.3);
    assert.equal(analyzeQuestion('Where are the leased premises?').terms.get('leas'), 1);
  });

  it('"which law governs" asks for the governing law; a heading naming no law is no answer', () => {
    assert.equal(classifyQuestion('Which law governs the contract?'), 'law');
    assert.equal(classifyQuestion('Which courts have jurisdiction?'), 'law');
    assert.equal(factEvidence('law', 'This Agreement is governed by the laws of the State of Delaware.'), 1);
    assert.equal(factEvidence('law', 'Governing Law.'), 0);
    assert.ok(factEvidence('law', 'Corvid Data Ltd, a company organised under the laws of Scotland') < 0.5);
  });

  it('"which law governs" → the governing-law clause, not the opening that names the parties\u2019 laws', async () => {
    const text = [
      'This Services Agreement (this "Agreement") is made between Corvid Data Ltd, a company organised under the laws of Scotland, and Ferro Labs GmbH.',
      '14. Governing Law. This Agreement is governed by the laws of England and Wales.',
    ].join('\n\n');
    assert.match(await ask('Which law governs the agreement with Ferro Labs?', text), /England and Wales/);
  });
});

describe('signature blocks (round 2)', () => {
  it('the names under "For <party>:" are that party\u2019s signatories, not headings', async () => {
    const text = [
      '19. This Lease is governed by the laws of Ireland.',
      'SIGNED AND DELIVERED AS A DEED',
      'For Quayside Estates DAC:',
      'Niamh Gallagher, Director',
      '',
      'For Brightwater Analytics Limited:',
      'Ruairí Doyle, Chief Executive Officer',
    ].join('\n');
    assert.equal(segmentText(text).find((s) => s.text.startsWith('Ruairí'))?.kind, 'signature');
    assert.match(await ask('Who signed the lease for Brightwater Analytics?', text), /Ruairí Doyle/);
  });

  it('"By: <name>" is a signatory by its place, also a name the extractor does not know', async () => {
    const text = [
      '12. Counterparts. This Agreement may be signed in counterparts.',
      'NORTHWIND SYSTEMS, INC.',
      'By: Margaret Oyelowo',
      'Title: President',
      'TAKEMURA SEIKI CO., LTD.',
      'By: Takemura Ryo',
      'Title: President',
    ].join('\n');
    assert.match(await ask('Who signed for Takemura?', text), /Takemura Ryo/);
  });
});

describe('a month asked (round 2)', () => {
  it('"in May" is a word of the question, as "30 May" is of the text (the stop list drops "may")', async () => {
    const text =
      'Copper fell from USD 9,800 per tonne on 2 May to USD 9,410 on 30 May. We expect copper to trade between USD 9,200 and USD 9,600 in June.';
    assert.match(await ask('Where did the copper price close in May?', text), /9,410/);
  });
});

// Classes from the second hold-out set's `dev` misses (test/fixtures/chat-holdout), on texts written
// for these tests.
describe('questions as users phrase them (round 4)', () => {
  it('a run-in clause title labels the sentence it opens instead of standing alone', async () => {
    const text =
      '4. Warranty. The Supplier repairs any defect reported within eighteen months of delivery.\n5. Insurance. The Supplier keeps product liability cover of EUR 2,000,000.';
    const segments = segmentText(text);
    assert.deepEqual(
      segments.map((s) => [s.label, s.text]),
      [
        ['Warranty', 'Warranty. The Supplier repairs any defect reported within eighteen months of delivery.'],
        ['Insurance', 'Insurance. The Supplier keeps product liability cover of EUR 2,000,000.'],
      ],
    );
    assert.match(await ask('What does the warranty cover?', text), /repairs any defect/);
  });

  it('a labelled line wrapped mid-sentence goes on into its next line', () => {
    const text =
      'Special conditions: the loading bay must be kept clear of pallets and parked vehicles\nbetween 06:00 and 09:00 on delivery days.';
    assert.deepEqual(
      segmentText(text).map((s) => s.text),
      [
        'Special conditions: the loading bay must be kept clear of pallets and parked vehicles between 06:00 and 09:00 on delivery days.',
      ],
    );
  });

  it('yes/no questions want the deciding sentence, not a fact their words suggest', async () => {
    assert.equal(classifyQuestion('Do I have to pay tax on the bonus?'), 'text');
    assert.equal(classifyQuestion('Can we cancel within the term?'), 'text');
    assert.equal(classifyQuestion('How often is the rent paid?'), 'frequency');
    assert.equal(classifyQuestion('How quickly must they reply?'), 'duration');
    assert.equal(classifyQuestion("What's my last day?"), 'date');
    const text =
      'The retention bonus of GBP 4,000 is paid with the June salary. The bonus is subject to income tax and National Insurance in the usual way.';
    assert.match(await ask('Do I have to pay tax on the bonus?', text), /subject to income tax/);
  });

  it('a list question answers with the items under the lead-in', async () => {
    const text = [
      '3. Scope',
      'The consultant will provide the following:',
      '- a site survey;',
      '- a noise assessment;',
      '- a planning statement.',
      '4. Fees',
      'The fee is GBP 6,200.',
    ].join('\n');
    const answer = await ask('What will the consultant provide?', text);
    for (const item of ['site survey', 'noise assessment', 'planning statement'])
      assert.match(answer, new RegExp(item));
  });

  it('"pay back" and "run out" read as the words documents use', async () => {
    const text =
      'The loan is drawn on 1 March 2026. The borrower must repay the loan in full by 31 August 2027. Interest is 6% a year.';
    assert.match(await ask('When do we have to pay it back?', text), /31 August 2027/);
  });

  it('says "not found" when the nouns of the question are nowhere in the document, and answers paraphrased verbs', async () => {
    const text =
      'The subscription costs USD 40 per user per month, billed annually. The subscription renews automatically for 12 months unless notice is given 30 days before the renewal date.';
    assert.equal(await ask('What is the early termination penalty?', text), NOT_FOUND_ANSWER);
    assert.match(await ask('How much notice do we need to give to stop it renewing?', text), /30 days/);
  });
});

// Classes found on the corpus and second-set hold-out misses (sixth pass), each on a text written here.
describe('sixth pass: classes seen on the hold-out documents', () => {
  it('a question whose phrase ends on a noun of a kind asks for that kind', () => {
    assert.equal(classifyQuestion("What's the new launch date?"), 'date');
    assert.equal(classifyQuestion('What was the original handover day?'), 'date');
    assert.equal(classifyQuestion('What is the contract sum now?'), 'amount');
    assert.equal(classifyQuestion('What was my take-home pay this month?'), 'amount');
    assert.equal(classifyQuestion('Which port does the ship sail from?'), 'place');
    assert.equal(classifyQuestion('What is the delivery address?'), 'place');
  });

  it('"now" wants the changed sum or date, "original" the one before the change', async () => {
    const text = [
      'Variation No. 4',
      'Original order value: EUR 410,000.00.',
      'Order value including variations 1 to 4: EUR 468,250.00.',
      'The handover date moves from 14 May 2026 to 2 June 2026.',
      'Adjustment to the handover date: an extension of 12 working days.',
    ].join('\n');
    assert.match(await ask('What is the order value now?', text), /468,250\.00/);
    assert.match(await ask('What was the original handover date?', text), /14 May 2026/);
  });

  it('a currency abbreviation with a period before a figure does not end the sentence', () => {
    const texts = segmentText('Remuneration: Your gross salary will be Kshs. 240,000 per month, paid on the 25th.').map(
      (s) => s.text,
    );
    assert.equal(texts.length, 1);
    assert.match(texts[0]!, /Kshs\. 240,000 per month/);
  });

  it('a long label over a bare figure is a field; label lines one above the other stay apart', () => {
    const kinds = segmentText(
      [
        'Company car contribution deducted this month (5%): 88.40',
        'Leave: 22 days entitlement, 4 days taken at 30/04/2026',
        'Reviewed for the Buyer by its quantity surveyor: Mateus Oliveira, Oliveira QS',
        'Agreed for the Seller: Noor Haddad, Finance Director',
      ].join('\n'),
    ).map((s) => `${s.kind}|${s.text}`);
    assert.ok(kinds.includes('field|Company car contribution deducted this month (5%): 88.40'), kinds.join('\n'));
    assert.ok(
      kinds.some((k) => k.startsWith('field|Leave: 22 days')),
      kinds.join('\n'),
    );
    assert.ok(
      kinds.some((k) => k.endsWith('Reviewed for the Buyer by its quantity surveyor: Mateus Oliveira, Oliveira QS')),
      kinds.join('\n'),
    );
    assert.ok(
      kinds.some((k) => k.endsWith('Agreed for the Seller: Noor Haddad, Finance Director')),
      kinds.join('\n'),
    );
  });

  it('Markdown emphasis around a label still makes a field', () => {
    const [first, second] = segmentText('**Statement date:** 9 March 2026\n**Account:** 4471 0092').map((s) => s);
    assert.equal(first?.kind, 'field');
    assert.equal(first?.label, 'Statement date');
    assert.equal(second?.kind, 'field');
  });

  it('a short sentence-case line standing alone titles what follows; one with a figure does not', () => {
    const segments = segmentText('Refresher courses\n\nCourses run on 3 June and 4 June.\n\nRoom 4 upstairs');
    assert.equal(segments[0]?.kind, 'heading');
    assert.equal(segments[1]?.kind, 'sentence');
    assert.notEqual(segments.at(-1)?.kind, 'heading');
  });

  it('a better-scored segment too far from the question is passed over, not answered "not found"', async () => {
    const text = [
      'EARNINGS',
      'Basic salary | 2,950.00',
      'Overtime 4.5 hrs @ 21.10 | 94.95',
      'Leave: 20 days entitlement, 3.5 days remaining at 30/04/2026',
    ].join('\n');
    assert.match(await ask('How many hours of overtime did I work?', text), /4\.5 hrs/);
  });

  it('a figure with cents is money where the page names the currency once', async () => {
    const text = [
      'Pay period: April 2026 (Month 1); Pay date: 28/04/2026',
      'Gross pay | 3,120.00',
      'NET PAY | 2,402.16',
      'All amounts in pounds sterling.',
    ].join('\n');
    assert.equal(factEvidence('amount', 'NET PAY | 2,402.16'), 0.5);
    assert.equal(factEvidence('amount', 'Pay date: 28/04/2026'), 0);
    assert.match(await ask('What was my take-home pay this month?', text), /2,402\.16/);
  });

  it('a memo subject line is a title, not the answer to "when"', async () => {
    const text = [
      'From: Site Manager',
      'To: All staff',
      'Subject: First aid refresher and lockdown drill this autumn',
      '',
      'We are refreshing first aid training for all staff after the spring audit.',
      'Sessions run on 6 October and 7 October in the canteen.',
    ].join('\n');
    assert.match(await ask('When are the first aid training sessions?', text), /6 October/);
  });

  it('everyday words: money "taken" is collected, "money back" is a refund, "why" asks the reason', async () => {
    assert.match(
      await ask(
        'When will the money be taken?',
        'Amount to pay: £212.40. We will collect this amount by Direct Debit on or after 3 March 2026.',
      ),
      /3 March 2026/,
    );
    const credit =
      'Reason for credit: two chairs returned broken, received back on 2 May 2026. No cash refund will be made; the credit is set against your next invoice.';
    assert.match(await ask('Will we get the money back in cash?', credit), /No cash refund/);
    assert.match(await ask('Why was the credit issued?', credit), /returned broken/);
  });
});

describe('seventh pass: titles with a year, datelines, setting verbs', () => {
  it('a title ending on a year is a heading, and a dateline under it a line, not rows of figures', () => {
    const segments = segmentText(
      'Harbourside Tech Forum 2027\nQuayside Hall, 4-5 May 2027\n\nDay 1\n09:00  Welcome - Ilse Brandt',
    );
    assert.equal(segments[0]!.kind, 'heading');
    assert.equal(segments[0]!.text, 'Harbourside Tech Forum 2027');
    assert.equal(segments[1]!.kind, 'line');
    assert.equal(segments[1]!.text, 'Quayside Hall, 4-5 May 2027');
  });

  it('a number that only starts like a year ("Invoice 2025-117") is no title year', () => {
    const segments = segmentText('Invoice 2025-117\nDate: 14 May 2025\nTotal due: EUR 2,660.00');
    assert.notEqual(segments[0]!.kind, 'heading');
    assert.equal(segmentText('Annual Report 2024/25\n\nRevenue grew by 8%.')[0]!.kind, 'heading');
  });

  it('rows that end on figures other than a date stay a table', () => {
    const segments = segmentText('Item Qty Price\nCables 4 12.50\nAdapters 2 8.00');
    assert.ok(segments.some((s) => s.kind === 'table_row' && /Cables/.test(s.text)));
  });

  it('"held", "based", "located" frame a where or when question: they need not be in the document', () => {
    const where = analyzeQuestion('Where is the Harbourside Tech Forum held?');
    assert.equal(where.type, 'place');
    assert.ok(![...where.terms.keys()].some((t) => t.startsWith('held')));
    const when = analyzeQuestion('When is the forum held?');
    assert.ok(![...when.terms.keys()].some((t) => t.startsWith('held')));
  });

  it('a dateline under an event title answers where the event is held', async () => {
    const text = [
      'Harbourside Tech Forum 2027',
      'Quayside Hall, 4-5 May 2027',
      '',
      'Day 1',
      '09:00  Welcome and opening remarks - Ilse Brandt, Chair, Harbourside Digital Association',
      '09:30  Keynote: Edge computing for ports - Dr. Tunde Okafor, University of Bristol',
    ].join('\n');
    assert.match(await ask('Where is the Harbourside Tech Forum held?', text), /Quayside Hall/);
    assert.match(await ask('When is the forum?', text), /4-5 May 2027/);
  });

  it('a table row "label | figure" answers for its label, a credit written with a minus is money', async () => {
    const text = [
      'TAX INVOICE No. SLS-0219',
      '',
      'Description | Amount (KES)',
      'Quarterly maintenance fee, lifts P1-P4 (Clause 5.1) | 348,000.00',
      'Out-of-hours call-out on 3 May 2025, lift P2 (Clause 5.2) | 12,500.00',
      'Less: service credit, late response on 11 April 2025 (Clause 4.3) | -34,800.00',
      'Subtotal | 325,700.00',
      'TOTAL DUE | KES 377,812.00',
    ].join('\n');
    assert.match(await ask('How much is the service credit?', text), /-34,800\.00/);
    assert.match(await ask('What is the total due?', text), /KES 377,812\.00/);
    assert.match(await ask('How much was the call-out?', text), /12,500\.00/);
  });

  it('"how much electricity did we use" asks for a quantity: the row in kWh answers it, not the bill total', async () => {
    assert.equal(classifyQuestion('How much electricity did we use?'), 'number');
    assert.equal(classifyQuestion('How much water was consumed last quarter?'), 'number');
    assert.equal(classifyQuestion('How much did we spend?'), 'amount');
    const text = [
      'Business Electricity Bill',
      '',
      '| Meter | Previous reading | Current reading | Units used |',
      '|---|---|---|---|',
      '| S/N 1182 | 10,200 | 11,040 | 840 kWh |',
      '',
      '| Charge | Amount |',
      '|---|---|',
      '| Energy | £205.80 |',
      '| Total for this period | £227.43 |',
    ].join('\n');
    assert.match(await ask('How much electricity did we use?', text), /840 kWh/);
  });

  it('"how many can we fit in" asks for a capacity; a time of day is no count', async () => {
    const text = [
      '1. Hire. The hall is hired on Saturday 12 September 2026, access from 16:00, guests from 18:00.',
      '2. Capacity. The licensed capacity of the main hall is 120 people standing or 80 seated.',
      '3. Fee. The hire fee is GBP 1,850.00 plus VAT.',
    ].join('\n');
    assert.equal(factEvidence('number', 'guests from 18:00 until 7.30 pm'), 0);
    assert.equal(factEvidence('number', '12.50 tonnes'), 1);
    assert.match(await ask('How many guests can we fit in?', text), /120 people/);
  });

  it('a question opening with "who" asks for a person, whatever money its other words name; "send round" is circulate', async () => {
    assert.equal(classifyQuestion('Who has to send round the revised budget?'), 'party');
    assert.equal(classifyQuestion('Who approved the budget increase?'), 'party');
    const text = [
      'Actions',
      '- I will update the risk register and send it round with the minutes.',
      '- Marta Nowak to circulate the revised budget and resource plan by Friday 6 March.',
      '- The project budget rises by EUR 35,000 to EUR 410,000.',
    ].join('\n');
    assert.match(await ask('Who has to send round the revised budget?', text), /Marta Nowak/);
  });

  it('"the first instalment": the order is given by listing, so the instalments answer, not a "first year" elsewhere', async () => {
    const text = [
      '1. The Grant. The Foundation awards the Grantee a grant of GBP 18,000 towards the first year of running costs.',
      '2. Payment. The grant is paid in two instalments: GBP 12,000 within 14 days of signing, and GBP 6,000 after the interim report.',
    ].join('\n');
    assert.match(await ask('How much is the first instalment?', text), /12,000/);
  });

  it('"how long is the lease" is answered by the term of the lease, not by a rent-free or notice period', async () => {
    const text = [
      'Heads of terms - Unit 3',
      'Rent-free period: three months from the start of the term, for the fit-out',
      'Term: ten years from and including 25 March 2021',
      'Notice period: six months',
    ].join('\n');
    assert.match(await ask('How long is the lease?', text), /ten years/);
  });

  it('"why" asks for a reason: the sentence saying "because of" answers, not the subject line that repeats the words', async () => {
    assert.equal(classifyQuestion('Why was the venue changed?'), 'reason');
    const text = [
      'From: Sofia Lind <sofia@example.com>',
      'To: Daniel Osei <daniel@example.com>',
      'Subject: Venue change for the kick-off',
      '',
      'Hi Daniel,',
      '',
      'The Riverside Centre has cancelled our booking because of flood damage, so we have moved the event to the Grange Hotel.',
      'The date stays the same, Thursday 19 March 2026.',
    ].join('\n');
    assert.match(await ask('Why was the venue changed?', text), /flood damage/);
  });

  it('a question naming the kind of document ("the quote") is not unanswered because the document calls itself a Quotation', async () => {
    const text = ['ORION IT SERVICES', 'Quotation Q-7781', 'Valid for: 45 days', 'Warranty: 3 years on-site'].join(
      '\n',
    );
    assert.match(await ask('How long is the quote valid?', text), /45 days/);
  });

  it('a time range ("from 08:00 to 18:00") answers "what are the support hours"', async () => {
    const text = [
      '1. Scope',
      "1.1 The Provider supports the Customer's installation of Route Planner, version 8, including updates.",
      '1.2 Support is given from 08:00 to 18:00 CET on working days.',
    ].join('\n');
    assert.match(await ask('What are the support hours?', text), /08:00 to 18:00/);
  });

  it('an NDA: "signed" finds the date it was entered into, "in force" its term, "last" what survives, "based" the place in a long parties sentence', async () => {
    const text = [
      'MUTUAL NON-DISCLOSURE AGREEMENT',
      'This Agreement is entered into as of April 7, 2026 (the "Effective Date") by and between Corvane Robotics, Inc.,',
      'a Delaware corporation with offices at 1200 Harbor Blvd, Oakland, CA 94607 ("Corvane"), and Sakura Precision',
      'Motors K.K., 3-14-2 Shibaura, Minato-ku, Tokyo ("Sakura").',
      '1. Purpose. The parties wish to explore a joint development of compact servo actuators.',
      '2. Term. This Agreement remains in effect for two (2) years from the Effective Date. The obligations of',
      'confidentiality survive for five (5) years after expiry or termination.',
      'IN WITNESS WHEREOF, the parties have signed this Agreement.',
    ].join('\n');
    assert.match(await ask('When was the NDA signed?', text), /April 7, 2026/);
    assert.match(await ask('How long is the agreement in force?', text), /two \(2\) years/);
    assert.match(await ask('How long does the confidentiality last?', text), /five \(5\) years/);
    assert.match(await ask('Where is Corvane based?', text), /Oakland/);
  });

  it('"who will I report to": a verb, not the document kind "report", and a person, not a destination', async () => {
    const analysis = analyzeQuestion('Who will I report to?');
    assert.equal(analysis.type, 'party');
    assert.equal(analysis.terms.get('report'), 1);
    assert.ok(!analysis.terms.has('destination'));
    const text = [
      'Dear Ms Achieng,',
      '',
      'Following your interview, we are delighted to offer you the position of Senior Data Analyst at Marlow Health',
      'Analytics Ltd, reporting to Dr. Ravi Menon, Head of Insights.',
      '',
      'Yours sincerely,',
      'Caroline Pryce',
    ].join('\n');
    assert.match(await ask('Who will I report to?', text), /Ravi Menon/);
  });
});
