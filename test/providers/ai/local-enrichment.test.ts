import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAmounts } from '../../../src/providers/ai/local/amounts.ts';
import { findDates } from '../../../src/providers/ai/local/dates.ts';
import { LocalAiProvider } from '../../../src/providers/ai/local/local-provider.ts';
import { detectLocale } from '../../../src/providers/ai/local/locale.ts';

// The failures issue 27 names, one rule at a time, through the local provider's enrichment.

const provider = new LocalAiProvider();
const enrich = (text: string, referenceDate = new Date('2027-01-10T12:00:00Z'), knownTags?: string[]) =>
  provider.enrich(text, { referenceDate, knownTags });
const names = (list: { name: string }[]) => list.map((e) => e.name);

const LONDON_LETTER = `Hartley & Finch Solicitors LLP
12 Gray's Inn Road
London WC1X 8HB

03/04/2025

Dear Ms O'Connell,

Re: Lease renewal at Unit 4, Riverside Trading Estate

Thank you for your letter of 15 March. Our client proposes a new term of five years from 1 June at a rent of £48,500 per annum.
Please confirm by 30 April whether your client, Siobhán O'Connell, wishes to proceed.

Yours sincerely,

Amelia Hartley
Partner
`;

describe('local enrichment: dates', () => {
  it('reads 03/04/2025 in a London letter day-first and keeps the other reading', async () => {
    const e = await enrich(LONDON_LETTER);
    const letterDate = e.entities.dates.find((d) => d.text === '03/04/2025');
    assert.equal(letterDate?.value, '2025-04-03');
    assert.deepEqual(letterDate?.alternatives, ['2025-03-04']);
  });

  it('reads 04/03/2025 in a US memo month-first', () => {
    const memo =
      'MEMO\nTo: Finance team\nHouston, TX 77002\nDate: 04/03/2025\nPlease send accruals above $5,000 to the controller.';
    assert.equal(detectLocale(memo).order, 'mdy');
    assert.equal(findDates(memo)[0]?.iso, '2025-04-03');
  });

  it("gives a year-less date the letter's own year, not the upload year", async () => {
    const e = await enrich(LONDON_LETTER, new Date('2027-06-01T00:00:00Z'));
    const values = e.entities.dates.map((d) => d.value);
    assert.ok(values.includes('2025-03-15'), values.join(', '));
    assert.ok(values.includes('2025-06-01'), values.join(', '));
    assert.ok(values.includes('2025-04-30'), values.join(', '));
    assert.ok(!values.some((v) => v.startsWith('2027')), values.join(', '));
  });

  it('takes the year of a dated memo for "15 July" and keeps a date split by a line wrap', () => {
    const memo =
      'Memo, 9 June 2025\nThe fire drill is on 15 July. Evacuation wardens meet on the 1st of August and the report is due on 15\nSeptember 2025.';
    const isos = findDates(memo, { referenceDate: new Date('2027-02-01') }).map((d) => d.iso);
    assert.deepEqual(isos, ['2025-06-09', '2025-07-15', '2025-08-01', '2025-09-15']);
  });
});

describe('local enrichment: amounts', () => {
  const values = (text: string) => findAmounts(text).map((a) => `${a.currency} ${a.amount}`);

  it('reads Indian grouping, lakh and crore', () => {
    assert.deepEqual(values('Contract value INR 4,50,00,000 (₹4.5 crore); bonus Rs 85 lakh; fee INR 14,16,000.00'), [
      'INR 45000000',
      'INR 45000000',
      'INR 8500000',
      'INR 1416000',
    ]);
  });

  it('reads rand, shillings, cedis, francs, yen and minus signs', () => {
    assert.deepEqual(
      values('R 400,000 then KES 1,250,000, Kshs. 185,000, GH₵ 6,300.00, GHS 85,000, CHF 245.00, ¥1,452,000'),
      ['ZAR 400000', 'KES 1250000', 'KES 185000', 'GHS 6300', 'GHS 85000', 'CHF 245', 'JPY 1452000'],
    );
    assert.deepEqual(values('credit note -£1,200.00 and USD -112,000; range £1,000–£2,000'), [
      'GBP -1200',
      'USD -112000',
      'GBP 1000',
      'GBP 2000',
    ]);
  });

  it('reads scale words and does not take a rating or a count for money', () => {
    assert.deepEqual(values('USD 2.5 million, €3bn, HK$1.24 billion'), [
      'USD 2500000',
      'EUR 3000000000',
      'HKD 1240000000',
    ]);
    assert.deepEqual(values('rated R 2 out of 5, 300 sites, 1.5% interest'), []);
  });

  it('shows the amounts of a letter with their text', async () => {
    const e = await enrich(LONDON_LETTER);
    assert.deepEqual(
      e.entities.amounts.map((a) => ({ value: a.value, currency: a.currency, text: a.text })),
      [{ value: 48500, currency: 'GBP', text: '£48,500' }],
    );
  });
});

describe('local enrichment: people and organisations', () => {
  const MINUTES = `Minutes of the Operations Committee meeting
Date: 15 July 2025, Hong Kong office

Attendees: Chan Tai Man (Chair), Phạm Văn Đức, Siobhán O'Connell, Tomás Ó Briain, Priya Raghunathan
Apologies: Kwame Mensah

1. Data centre migration
The committee reviewed the migration to Equinix HK2. Oracle licences renew on 30 September. DB Schenker will handle the hardware shipment via Maersk.
A copy goes to KPMG East Africa and to Microsoft.

Next meeting: 12 August.
`;

  it('finds every attendee of a list, in any script and name order', async () => {
    const people = names((await enrich(MINUTES)).entities.people);
    for (const person of [
      'Chan Tai Man',
      'Phạm Văn Đức',
      "Siobhán O'Connell",
      'Tomás Ó Briain',
      'Priya Raghunathan',
      'Kwame Mensah',
    ]) {
      assert.ok(people.includes(person), `${person} in ${people}`);
    }
  });

  it('knows well-known organisations without a legal suffix', async () => {
    const orgs = names((await enrich(MINUTES)).entities.organizations);
    for (const org of ['Equinix', 'Oracle', 'DB Schenker', 'Maersk', 'KPMG East Africa', 'Microsoft'])
      assert.ok(orgs.includes(org), `${org} in ${orgs}`);
  });

  it('invents no organisation from ordinary capitalised words', async () => {
    const orgs = names(
      (
        await enrich(
          `${LONDON_LETTER}\nThe parcel is at Plot 12. Ask Finance or Procurement, in English, under the Regulation.`,
        )
      ).entities.organizations,
    );
    for (const word of ['Plot', 'Unit', 'Regulation', 'English', 'Finance', 'Procurement'])
      assert.ok(!orgs.includes(word), `${word} in ${orgs}`);
    assert.ok(orgs.includes('Hartley & Finch Solicitors LLP'), orgs.join(', '));
  });

  it('reads the signer of a signature block and the legal forms of company names', async () => {
    const e = await enrich(
      `${LONDON_LETTER}\nWe bought from Table Bay Timber & Hardware (Pty) Ltd and Elektro Müller GmbH & Co. KG.`,
    );
    assert.ok(names(e.entities.people).includes('Amelia Hartley'));
    const orgs = names(e.entities.organizations);
    assert.ok(orgs.includes('Table Bay Timber & Hardware (Pty) Ltd'), orgs.join(', '));
    assert.ok(orgs.includes('Elektro Müller GmbH & Co. KG'), orgs.join(', '));
  });

  it('gives every entity a confidence in [0, 1]', async () => {
    const e = await enrich(MINUTES);
    const all = [
      ...e.entities.people,
      ...e.entities.organizations,
      ...e.entities.locations,
      ...e.entities.dates,
      ...e.entities.amounts,
    ];
    assert.ok(all.length > 10);
    for (const x of all) assert.ok(x.confidence >= 0 && x.confidence <= 1, JSON.stringify(x));
  });
});

describe('local enrichment: tags', () => {
  const CONTRACT = `Maintenance Agreement
This elevator maintenance agreement is made between Upper Hill Towers Management Limited and Otis Elevator Kenya Limited.
The contractor shall carry out monthly elevator maintenance, emergency call-outs and annual safety inspections of the lifts.
Maintenance visits are logged by the building manager. Contact: support@upperhill.example, www.upperhill.example.
Elevator maintenance fees are payable quarterly. Safety inspections follow the lift safety regulations.`;

  it('names the topic, not the parties, and no filler or address artefacts', async () => {
    const tags = (await enrich(CONTRACT)).tags.map((t) => t.name);
    assert.ok(tags.some((t) => /elevator/.test(t)) && tags.some((t) => /maintenance/.test(t)), tags.join(', '));
    for (const tag of tags) {
      assert.doesNotMatch(
        tag,
        /upper hill|towers|otis|kenya|^example$|^(?:pre|sub|back|unit|head|annual)$/,
        tags.join(', '),
      );
    }
    assert.ok(tags.length <= 8);
  });

  it("prefers the tenant's spelling of a topic the text supports, and says where a tag came from", async () => {
    const tags = (await enrich(CONTRACT, undefined, ['Safety Inspections', 'Payroll'])).tags;
    assert.ok(
      tags.some((t) => t.name === 'safety inspections'),
      JSON.stringify(tags),
    );
    assert.ok(!tags.some((t) => t.name === 'payroll'));
    for (const t of tags) {
      assert.equal(t.source, 'extracted');
      assert.ok(t.confidence > 0 && t.confidence <= 1);
    }
  });
});

describe('local enrichment: type, fields and summary', () => {
  const PO = `PURCHASE ORDER
Redwood Valley Medical Center
PO Number: RVMC-PO-55120
Date: March 28, 2025

Supplier: Cascade Surgical Supply Inc.
Deliver by: April 15, 2025

Item | Qty | Unit price | Amount
Sterile drapes | 500 | 12.50 | 6,250.00
Total: USD 32,078.75

Please confirm receipt of this order within two business days.
`;

  it('classifies a purchase order and reads its key fields', async () => {
    const e = await enrich(PO);
    assert.equal(e.documentType.value, 'purchase_order');
    assert.ok(e.documentType.confidence >= 0.6);
    assert.equal(e.fields['document_number']?.value, 'RVMC-PO-55120');
    assert.equal(e.fields['buyer']?.value, 'Redwood Valley Medical Center');
    assert.equal(e.fields['supplier']?.value, 'Cascade Surgical Supply Inc.');
    assert.equal(e.fields['issue_date']?.value, '2025-03-28');
    assert.equal(e.fields['delivery_date']?.value, '2025-04-15');
    assert.deepEqual(e.fields['total']?.value, { value: 32078.75, currency: 'USD', text: 'USD 32,078.75' });
  });

  it('leads the summary with the type and key figures, without table pipes', async () => {
    const e = await enrich(PO);
    assert.match(
      e.summary.value,
      /^Purchase order RVMC-PO-55120 from Redwood Valley Medical Center to Cascade Surgical Supply Inc\., USD 32,078\.75, delivery by 2025-04-15\./,
    );
    assert.doesNotMatch(e.summary.value, /\|/);
    assert.ok(e.summary.confidence > 0 && e.summary.confidence <= 1);
  });

  it('reads an offer letter: employer, employee, role, salary with its period', async () => {
    const e = await enrich(`Vantara Fintech Pvt. Ltd.
Bengaluru, 2 May 2025

Dear Ananya Rao,

We are pleased to offer you the position of Senior Data Analyst at Vantara Fintech Pvt. Ltd. Your annual salary will be INR 38,50,000 per annum, and your start date is 2 June 2025.
A notice period of three months applies after probation.

Yours sincerely,
Karthik Subramanian
Head of Human Resources
`);
    assert.equal(e.documentType.value, 'employment_letter');
    assert.equal(e.fields['employer']?.value, 'Vantara Fintech Pvt. Ltd.');
    assert.equal(e.fields['employee']?.value, 'Ananya Rao');
    assert.equal(e.fields['role']?.value, 'Senior Data Analyst');
    assert.deepEqual(e.fields['salary']?.value, {
      value: 3850000,
      currency: 'INR',
      text: 'INR 38,50,000',
      period: 'year',
    });
    assert.equal(e.fields['start_date']?.value, '2025-06-02');
    assert.deepEqual(e.fields['notice_period']?.value, { value: 'P3M', text: 'three months' });
    assert.match(
      e.summary.value,
      /^Employment offer from Vantara Fintech Pvt\. Ltd\. to Ananya Rao, as Senior Data Analyst, salary INR 3,850,000\.00 a year, starting 2025-06-02\./,
    );
  });

  it('tells letters, e-mails, minutes and leases apart', async () => {
    assert.equal((await enrich(LONDON_LETTER)).documentType.value, 'letter');
    const email =
      'From: Jane Doe <jane@acme.example>\nSent: 3 March 2025\nTo: Bob Ray <bob@acme.example>\nSubject: Invoice query\n\nHi Bob,\nCan you check the invoice total?\nThanks,\nJane';
    assert.equal((await enrich(email)).documentType.value, 'email');
    const lease =
      'TENANCY AGREEMENT\nThe Landlord lets the premises at 4 Elm Road to the Tenant for a term of 12 months from 1 May 2025 at a rent of £1,250 per calendar month. The deposit is £1,500.';
    const e = await enrich(lease);
    assert.equal(e.documentType.value, 'lease');
    assert.deepEqual(e.fields['rent']?.value, { value: 1250, currency: 'GBP', text: '£1,250', period: 'month' });
    assert.deepEqual(e.fields['term']?.value, { value: 'P12M', text: '12 months' });
  });

  it('calls a text with no cue of any kind other', async () => {
    const e = await enrich('The weather was mild and the river ran high after the rain.');
    assert.equal(e.documentType.value, 'other');
  });
});
