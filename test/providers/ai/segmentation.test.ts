import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkText } from '../../../src/providers/ai/chunking.ts';
import { summarizeText } from '../../../src/providers/ai/local/summarize.ts';
import { type Segment, segmentText } from '../../../src/providers/ai/segmentation.ts';
import { pdf } from '../../fixtures/extraction/pdf.ts';
import { extractionFixture } from '../extraction/helpers.ts';

// Each case goes through the real extractor first: the segmentation reads text as extraction
// leaves it (whitespace normalised, PDF lines as pdf.js ends them, pages joined by blank lines).

const find = (segments: Segment[], pattern: RegExp) => {
  const found = segments.find((s) => pattern.test(s.text));
  assert.ok(found, `no segment matches ${pattern}: ${JSON.stringify(segments.map((s) => s.text))}`);
  return found;
};

describe('segmentation of extracted text', () => {
  const t = extractionFixture();
  const extract = async (name: string, bytes: Buffer | string) => t.extractor.extract(await t.files.write(name, bytes));

  it('PDF: a numbered clause wrapped over two lines is one clause, with its page', async () => {
    const content = await extract(
      'lease.pdf',
      pdf([
        { lines: ['OFFICE LEASE', 'The parties agree as follows.'] },
        {
          lines: [
            '1. The term of this Lease begins on March 1, 2025 and ends on',
            'February 28, 2026, unless terminated earlier under clause 7.',
            '2. The Tenant shall pay a monthly retainer of USD',
            '4,500.00 within thirty days of each invoice.',
          ],
        },
      ]),
    );
    const segments = segmentText(content.text, { pages: content.pages });
    const term = find(segments, /^The term/);
    assert.equal(term.kind, 'clause');
    assert.equal(term.number, '1');
    assert.equal(
      term.text,
      'The term of this Lease begins on March 1, 2025 and ends on February 28, 2026, unless terminated earlier under clause 7.',
    );
    assert.equal(term.page, 2);
    assert.equal(
      content.text.slice(term.start, term.end),
      '1. The term of this Lease begins on March 1, 2025 and ends on\nFebruary 28, 2026, unless terminated earlier under clause 7.',
    );
    const fee = find(segments, /retainer/);
    assert.equal(fee.kind, 'clause');
    assert.equal(fee.number, '2');
    assert.equal(
      fee.text,
      'The Tenant shall pay a monthly retainer of USD 4,500.00 within thirty days of each invoice.',
    );
    assert.equal(find(segments, /OFFICE LEASE/).kind, 'heading');
    assert.equal(find(segments, /OFFICE LEASE/).page, 1);
  });

  it('PDF: wrapped prose lines join, a hyphenated break is mended, and a year at a line start is not a clause number', async () => {
    const content = await extract(
      'letter.pdf',
      pdf([
        {
          lines: [
            'We confirm that the renovation of the warehouse roof will be comp-',
            'leted before the end of the second quarter of the calendar year',
            '2025. The contractor has agreed to a fixed price for the work.',
          ],
        },
      ]),
    );
    const segments = segmentText(content.text, { pages: content.pages });
    assert.deepEqual(
      segments.map((s) => [s.kind, s.text]),
      [
        [
          'sentence',
          'We confirm that the renovation of the warehouse roof will be completed before the end of the second quarter of the calendar year 2025.',
        ],
        ['sentence', 'The contractor has agreed to a fixed price for the work.'],
      ],
    );
  });

  it('Word: a sentence split over paragraphs (one per line of a wrapped text) is one unit; a paragraph that ends one is not joined', () => {
    const text = [
      '1. Cancellations received before 1 March are refunded in full less an',
      '',
      'administration charge of EUR 60.',
      '',
      '2. Later cancellations are not refunded.',
      '',
      'Attendance can be transferred to a colleague.',
    ].join('\n');
    const texts = segmentText(text).map((s) => s.text);
    assert.ok(
      texts.includes(
        'Cancellations received before 1 March are refunded in full less an administration charge of EUR 60.',
      ),
      texts.join(' | '),
    );
    assert.ok(texts.includes('Attendance can be transferred to a colleague.'), texts.join(' | '));
  });

  it('PDF: numbered headings stand alone; short numbered lines are list items', async () => {
    const content = await extract(
      'policy.pdf',
      pdf([
        {
          lines: [
            '3. Payment Terms',
            'Invoices are payable within thirty days of receipt.',
            'Accepted methods:',
            '1. Bank transfer',
            '2. Credit card',
          ],
        },
      ]),
    );
    const segments = segmentText(content.text, { pages: content.pages });
    assert.deepEqual(
      segments.map((s) => [s.kind, s.text, s.number ?? null]),
      [
        ['heading', 'Payment Terms', '3'],
        ['sentence', 'Invoices are payable within thirty days of receipt.', null],
        ['field', 'Accepted methods:', null],
        ['list_item', 'Bank transfer', '1'],
        ['list_item', 'Credit card', '2'],
      ],
    );
  });

  it('PDF: an invoice table whose column gaps extraction collapsed: each row a unit; "Total due: EUR 2,660.00" a field', async () => {
    const content = await extract(
      'invoice.pdf',
      pdf([
        {
          lines: [
            'INVOICE 2025-117',
            'Description          Hours      Rate         Amount',
            'Consulting           12         EUR 150.00   EUR 1,800.00',
            'Design review         4         EUR 215.00   EUR 860.00',
            'Total due: EUR 2,660.00',
            'Payment is due within 14 days of the invoice date.',
          ],
        },
      ]),
    );
    const segments = segmentText(content.text, { pages: content.pages });
    const rows = segments.filter((s) => s.kind === 'table_row').map((s) => s.text);
    assert.deepEqual(rows, [
      'Description Hours Rate Amount',
      'Consulting 12 EUR 150.00 EUR 1,800.00',
      'Design review 4 EUR 215.00 EUR 860.00',
    ]);
    const total = find(segments, /Total due/);
    assert.deepEqual(
      [total.kind, total.text, total.label, total.value],
      ['field', 'Total due: EUR 2,660.00', 'Total due', 'EUR 2,660.00'],
    );
    assert.equal(find(segments, /Payment is due/).kind, 'sentence');
  });

  it('Markdown: headings without #, pipe tables as labelled rows with no pipes in the text, the separator row dropped', async () => {
    const content = await extract(
      'rates.md',
      '# Rate card\n\nOur rates for 2026 are below.\n\n| Service | Unit | Price |\n|---|---|---|\n| Translation | page | EUR 32.00 |\n| Interpreting | hour | EUR 95.00 |\n',
    );
    const segments = segmentText(content.text);
    assert.deepEqual(
      segments.map((s) => [s.kind, s.text]),
      [
        ['heading', 'Rate card'],
        ['sentence', 'Our rates for 2026 are below.'],
        ['table_row', 'Service; Unit; Price'],
        ['table_row', 'Service: Translation; Unit: page; Price: EUR 32.00'],
        ['table_row', 'Service: Interpreting; Unit: hour; Price: EUR 95.00'],
      ],
    );
    const row = segments[3]!;
    assert.deepEqual(row.cells, ['Translation', 'page', 'EUR 32.00']);
    assert.deepEqual(row.header, ['Service', 'Unit', 'Price']);
    assert.ok(segments.every((s) => !s.text.includes('|')));
  });

  it('CSV: tab-separated rows under their header', async () => {
    const content = await extract(
      'vendors.csv',
      'Vendor,Renewal date,Annual cost\nOkta,2026-09-14,33600\nZendesk,2026-02-28,27800\n',
    );
    const segments = segmentText(content.text, { pages: content.pages });
    assert.deepEqual(
      segments.map((s) => [s.kind, s.text]),
      [
        ['table_row', 'Vendor; Renewal date; Annual cost'],
        ['table_row', 'Vendor: Okta; Renewal date: 2026-09-14; Annual cost: 33600'],
        ['table_row', 'Vendor: Zendesk; Renewal date: 2026-02-28; Annual cost: 27800'],
      ],
    );
  });

  it('e-mail: From/To/Date/Subject are header fields, the greeting a line, the closing and name a signature', async () => {
    const content = await extract(
      'mail.txt',
      'From: Grace Whitmore <grace@lakeshore.example>\nTo: orders@brennan.example\nDate: 11 June 2026\nSubject: PO 44817 for the July promotion\n\nHi Declan,\n\nPlease deliver the 18,000 boxes to our Milwaukee centre\nno later than July 6, 2026.\n\nThanks,\nGrace Whitmore\nProcurement Manager, Lakeshore Foods Inc.\n',
    );
    const segments = segmentText(content.text);
    assert.deepEqual(
      segments.map((s) => [s.kind, s.text]),
      [
        ['header_field', 'From: Grace Whitmore <grace@lakeshore.example>'],
        ['header_field', 'To: orders@brennan.example'],
        ['header_field', 'Date: 11 June 2026'],
        ['header_field', 'Subject: PO 44817 for the July promotion'],
        ['line', 'Hi Declan,'],
        ['sentence', 'Please deliver the 18,000 boxes to our Milwaukee centre no later than July 6, 2026.'],
        ['signature', 'Thanks,'],
        ['signature', 'Grace Whitmore'],
        ['signature', 'Procurement Manager, Lakeshore Foods Inc.'],
      ],
    );
    assert.deepEqual([segments[3]!.label, segments[3]!.value], ['Subject', 'PO 44817 for the July promotion']);
  });

  it('offsets always point at the unit in the source', async () => {
    const content = await extract(
      'mixed.pdf',
      pdf([
        {
          lines: [
            'SUMMARY',
            '1. The supplier delivers the goods to the warehouse in',
            'Rotterdam by 3 May 2026.',
            'Total: EUR 10.00',
          ],
        },
        { lines: ['Second page text.'] },
      ]),
    );
    const segments = segmentText(content.text, { pages: content.pages });
    for (const s of segments) {
      const source = content.text.slice(s.start, s.end);
      const words = (x: string) =>
        x
          .replace(/^\d+\.\s*/, '')
          .split(/\s+/)
          .join(' ');
      assert.equal(words(source), words(s.text), `${s.kind} at ${s.start}`);
    }
    assert.deepEqual(
      segments.map((s) => s.page),
      [1, 1, 1, 2],
    );
  });

  it('chunking keeps a wrapped clause whole and its page', async () => {
    const content = await extract(
      'terms.pdf',
      pdf([
        {
          lines: [
            '1. The term of this Lease begins on March 1, 2025 and ends on',
            'February 28, 2026, unless terminated earlier under clause 7.',
            '2. The Tenant shall pay the rent monthly in advance on the first',
            'day of each month.',
          ],
        },
      ]),
    );
    const chunks = chunkText(content.text, { pages: content.pages, targetTokens: 20, overlapTokens: 0 });
    assert.ok(chunks.some((c) => c.text.includes('ends on\nFebruary 28, 2026')));
    assert.ok(chunks.every((c) => c.page === 1));
  });

  it('two-column rows ("Label | figure") are "label: value" units under their header, not one run-on sentence', async () => {
    const content = await extract(
      'invoice.txt',
      [
        'Description | Amount (KES)',
        'Quarterly maintenance fee, lifts P1-P4 (Clause 5.1) | 348,000.00',
        'Less: service credit, late response on 11 April 2025 (Clause 4.3) | -34,800.00',
        'Subtotal | 313,200.00',
        'TOTAL DUE | KES 363,312.00',
        'Total due | EUR 2,660.00',
        'Tel: +254 20 555 0188 | billing@example.com',
      ].join('\n'),
    );
    const segments = segmentText(content.text);
    const credit = find(segments, /service credit/);
    assert.deepEqual(
      [credit.kind, credit.text, credit.header],
      [
        'table_row',
        'Less: service credit, late response on 11 April 2025 (Clause 4.3): -34,800.00',
        ['Description', 'Amount (KES)'],
      ],
    );
    const total = find(segments, /^Total due/);
    assert.deepEqual([total.kind, total.label, total.value], ['table_row', 'Total due', 'EUR 2,660.00']);
    assert.equal(find(segments, /^Subtotal/).text, 'Subtotal: 313,200.00');
    // A field with a second contact after a pipe stays a field.
    assert.equal(find(segments, /^Tel/).kind, 'field');
  });

  it('Markdown: a two-column table with an empty header cell reads "Subtotal: GBP 2,312.00", a wider one "column: value"', async () => {
    const content = await extract(
      'invoice.md',
      [
        '| Item | Qty | Amount |',
        '|------|-----|--------|',
        '| Door plaques | 12 | GBP 462.00 |',
        '',
        '| Summary  |              |',
        '|----------|--------------|',
        '| Subtotal | GBP 2,312.00 |',
        '| Total due | GBP 2,774.40 |',
      ].join('\n'),
    );
    const rows = segmentText(content.text)
      .filter((s) => s.kind === 'table_row')
      .map((s) => s.text);
    assert.ok(rows.includes('Item: Door plaques; Qty: 12; Amount: GBP 462.00'), JSON.stringify(rows));
    assert.ok(rows.includes('Subtotal: GBP 2,312.00'), JSON.stringify(rows));
    assert.ok(rows.includes('Total due: GBP 2,774.40'), JSON.stringify(rows));
  });

  it('aligned columns: a totals row with fewer cells than the header, and label-value lines, are "label: value" units', () => {
    const text = [
      'Service                          Frequency        Annual fee (EUR)',
      'Gardening                        weekly                  12,000',
      'Total annual fee                                         16,500',
      '',
      'Payment terms                    30 days net',
    ].join('\n');
    const segments = segmentText(text);
    assert.equal(find(segments, /Gardening/).text, 'Service: Gardening; Frequency: weekly; Annual fee (EUR): 12,000');
    const total = find(segments, /^Total annual fee/);
    assert.deepEqual([total.text, total.label], ['Total annual fee: 16,500', 'Total annual fee']);
    assert.deepEqual(total.header, ['Service', 'Frequency', 'Annual fee (EUR)']);
    assert.equal(find(segments, /^Payment terms/).text, 'Payment terms: 30 days net');
  });

  it('PDF: lettered sub-clauses "(a)", "(b)" wrapped over lines stay whole, each its own unit', async () => {
    const content = await extract(
      'supply.pdf',
      pdf([
        {
          lines: [
            '3. Orders and delivery.',
            '(a) The Buyer will place call-off orders through its supplier portal.',
            '(b) The Supplier shall deliver each call-off order within fifteen (15) working days of',
            "acceptance, at the Buyer's warehouse in Lyon.",
            '(c) Minimum order quantity is 5,000 units per part number.',
          ],
        },
      ]),
    );
    const segments = segmentText(content.text, { pages: content.pages });
    const b = find(segments, /fifteen/);
    assert.equal(b.number, 'b');
    assert.equal(
      b.text,
      "The Supplier shall deliver each call-off order within fifteen (15) working days of acceptance, at the Buyer's warehouse in Lyon.",
    );
    assert.equal(find(segments, /Minimum order/).number, 'c');
  });

  it('a summary does not quote two-column rows or a pipe-separated contact line as prose', () => {
    const text = [
      'Unit 12, Spartan Industrial Park, Kempton Park Tel: 011 555 0183 | accounts@example.com',
      '',
      'Description | Amount (ZAR)',
      'Out-of-hours call-out on 3 May 2025 for the landing door of lift two that was forced open | 12,500.00',
      'Less: service credit for the late response to the entrapment on 11 and 29 April 2025 | -34,800.00',
      '',
      'The call-out of 3 May was logged by your security supervisor after the landing door had been forced open.',
      'The service credit for April is applied automatically as agreed in our meeting of 6 May.',
    ].join('\n');
    const summary = summarizeText(text);
    assert.ok(!summary.includes('|'), summary);
    assert.match(summary, /logged by your security supervisor|applied automatically/);
  });
});
