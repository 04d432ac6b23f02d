import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createExtractor } from '../../../src/providers/extraction/extractor.ts';
import { doc, ppt, xls } from '../../fixtures/extraction/legacy.ts';
import { docx, pptx, withWorkbookPartLast, xlsx } from '../../fixtures/extraction/office.ts';
import { pdf } from '../../fixtures/extraction/pdf.ts';
import { extractionFixture, fixtureDir } from './helpers.ts';

describe('extraction of documents', () => {
  const t = extractionFixture();

  it('PDF: the text layer per page, and the information dictionary', async () => {
    const input = await t.files.write(
      'report.pdf',
      pdf([{ lines: ['Quarterly revenue grew', 'by twelve percent.'] }, { lines: ['Second page   with  spaces'] }], {
        author: 'Ada Lovelace',
        title: 'Q3 Report',
        created: "D:20240131120000+01'00'",
      }),
    );
    const reports: { done: number; total: number }[] = [];
    const content = await t.extractor.extract({ ...input, onProgress: (p) => reports.push(p) });
    // Each page reported once its text is known (docs/api-decisions.md §18, `processing_progress`).
    assert.deepEqual(reports, [
      { done: 0, total: 2 },
      { done: 1, total: 2 },
      { done: 2, total: 2 },
    ]);
    assert.deepEqual(content.pages, ['Quarterly revenue grew\nby twelve percent.', 'Second page with spaces']);
    assert.equal(content.text, 'Quarterly revenue grew\nby twelve percent.\n\nSecond page with spaces');
    assert.equal(content.metadata.author, 'Ada Lovelace');
    assert.equal(content.metadata.title, 'Q3 Report');
    assert.equal(content.metadata.pages, 2);
    assert.equal(content.metadata.created, '2024-01-31T11:00:00.000Z');
    assert.equal(content.metadata.ocr, undefined);
    assert.equal(content.media, null);
  });

  it('DOCX: paragraphs through mammoth, author, title and creation date from docProps', async () => {
    const input = await t.files.write(
      'letter.docx',
      await docx(['Dear customer,', 'Your invoice & receipt are attached.'], {
        author: 'Grace Hopper',
        title: 'Invoice',
        created: '2023-05-01T09:30:00Z',
      }),
    );
    const content = await t.extractor.extract(input);
    assert.equal(content.text, 'Dear customer,\n\nYour invoice & receipt are attached.');
    assert.equal(content.pages, null);
    assert.deepEqual(content.metadata, {
      author: 'Grace Hopper',
      title: 'Invoice',
      created: '2023-05-01T09:30:00.000Z',
    });
  });

  it('DOC: the body through word-extractor, and the summary information', async () => {
    const input = await t.files.write(
      'memo.doc',
      doc('Legacy memo about the budget.\nSecond paragraph.', {
        title: 'Memo',
        author: 'Alan Turing',
        created: new Date('2001-02-03T04:05:06Z'),
      }),
    );
    const content = await t.extractor.extract(input);
    assert.equal(content.text, 'Legacy memo about the budget.\nSecond paragraph.');
    assert.equal(content.metadata.title, 'Memo');
    assert.equal(content.metadata.author, 'Alan Turing');
    assert.equal(content.metadata.created, '2001-02-03T04:05:06.000Z');
  });

  it('TXT and MD: UTF-8 with a BOM, UTF-16 and latin1 decoded; whitespace normalised', async () => {
    const utf8 = await t.extractor.extract(
      await t.files.write(
        'a.txt',
        Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from('Crème brûlée\r\nnaïve   café\r\n\r\n\r\n\r\nend  '),
        ]),
      ),
    );
    assert.equal(utf8.text, 'Crème brûlée\nnaïve café\n\nend');
    assert.equal(utf8.metadata.encoding, 'UTF-8');
    const utf16 = await t.extractor.extract(
      await t.files.write(
        'b.md',
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('# Título\n\nÜber straße', 'utf16le')]),
      ),
    );
    assert.equal(utf16.text, '# Título\n\nÜber straße');
    assert.equal(utf16.metadata.encoding, 'UTF-16LE');
    const latin1 = await t.extractor.extract(
      await t.files.write(
        'c.txt',
        Buffer.from(
          'Le garçon a mangé une crêpe à la fête de l’été, très élégant et déjà célèbre.'.replace('’', "'"),
          'latin1',
        ),
      ),
    );
    assert.equal(latin1.text, "Le garçon a mangé une crêpe à la fête de l'été, très élégant et déjà célèbre.");
    assert.match(String(latin1.metadata.encoding), /ISO-8859|windows-125/);
    const empty = await t.extractor.extract(await t.files.write('empty.txt', ''));
    assert.equal(empty.text, '');
  });

  it('CSV: rows as tab-separated lines, quoted cells with commas and line breaks, latin1', async () => {
    const csv = 'name,city,note\r\n"Doe, Jane",Zürich,"multi\nline"\r\nBob,Köln,plain\r\n';
    const content = await t.extractor.extract(await t.files.write('people.csv', Buffer.from(csv, 'latin1')));
    assert.equal(content.text, 'name\tcity\tnote\nDoe, Jane\tZürich\tmulti line\nBob\tKöln\tplain');
    assert.deepEqual(content.pages, [content.text]);
    assert.equal(content.metadata.rows, 3);
    assert.equal(content.metadata.columns, 3);
  });

  it('XLSX: each sheet streamed as "Sheet: Name" and rows; sheets and author in metadata', async () => {
    const input = await t.files.write(
      'budget.xlsx',
      await xlsx(
        {
          Income: [
            ['Month', 'Amount'],
            ['January', 1200.5],
            ['February', 980],
          ],
          Notes: [['Paid on', new Date('2024-03-01T00:00:00Z')]],
        },
        { author: 'Finance Team', title: 'Budget 2024' },
      ),
    );
    const content = await t.extractor.extract(input);
    assert.deepEqual(content.pages, [
      'Sheet: Income\nMonth\tAmount\nJanuary\t1200.5\nFebruary\t980',
      'Sheet: Notes\nPaid on\t2024-03-01',
    ]);
    assert.equal(content.text, `${content.pages?.[0]}\n\n${content.pages?.[1]}`);
    assert.equal(content.metadata.sheets, 'Income, Notes');
    assert.equal(content.metadata.author, 'Finance Team');
    assert.equal(content.metadata.title, 'Budget 2024');
  });

  it('XLSX whose workbook part comes after its worksheets in the zip: read whole, the same text', async () => {
    const bytes = await xlsx(
      {
        Income: [
          ['Month', 'Amount'],
          ['January', 1200.5],
        ],
        Notes: [['Paid']],
      },
      { author: 'Finance Team' },
    );
    const streamed = await t.extractor.extract(await t.files.write('in-order.xlsx', bytes));
    const reordered = await t.extractor.extract(
      await t.files.write('workbook-last.xlsx', await withWorkbookPartLast(bytes)),
    );
    assert.deepEqual(reordered.pages, ['Sheet: Income\nMonth\tAmount\nJanuary\t1200.5', 'Sheet: Notes\nPaid']);
    assert.deepEqual(reordered.pages, streamed.pages);
    assert.equal(reordered.metadata.sheets, 'Income, Notes');
    assert.equal(reordered.metadata.author, 'Finance Team');
  });

  it('XLS (best effort): sheet names, shared strings and numbers from the BIFF records', async () => {
    const input = await t.files.write(
      'old.xls',
      xls(
        {
          Sales: [
            ['Region', 'Total'],
            ['North', 1500],
            ['Süd', 12.75],
          ],
          Empty: [],
        },
        { title: 'Sales 1999', author: 'Excel User' },
      ),
    );
    const content = await t.extractor.extract(input);
    assert.deepEqual(content.pages, ['Sheet: Sales\nRegion\tTotal\nNorth\t1500\nSüd\t12.75', 'Sheet: Empty']);
    assert.equal(content.metadata.sheets, 'Sales, Empty');
    assert.equal(content.metadata.title, 'Sales 1999');
    assert.equal(content.metadata.best_effort, undefined);
  });

  it('PPTX: slides in presentation order with their notes; one page per slide', async () => {
    const input = await t.files.write(
      'deck.pptx',
      await pptx(
        [
          { texts: ['Welcome', 'Agenda for today'], notes: 'Smile and greet' },
          { texts: ['Results'] },
          { texts: ['Questions?'] },
        ],
        { title: 'Kick-off', author: 'Product' },
      ),
    );
    const content = await t.extractor.extract(input);
    assert.deepEqual(content.pages, ['Welcome\nAgenda for today\n\nNotes: Smile and greet', 'Results', 'Questions?']);
    assert.equal(content.metadata.slides, 3);
    assert.equal(content.metadata.title, 'Kick-off');
  });

  it('PPT (best effort): slide titles and text boxes, without master slide prompts', async () => {
    const input = await t.files.write(
      'old.ppt',
      ppt([{ title: 'Roadmap 1998', box: 'Ship the product' }, { title: 'Thank you' }], { title: 'Old deck' }),
    );
    const content = await t.extractor.extract(input);
    assert.deepEqual(content.pages, ['Roadmap 1998\nShip the product', 'Thank you']);
    assert.equal(content.metadata.slides, 2);
    assert.equal(content.metadata.title, 'Old deck');
    assert.doesNotMatch(content.text, /Master/);
  });
});

describe('extraction in parallel and at the size limit', () => {
  let files: Awaited<ReturnType<typeof fixtureDir>>;
  before(async () => {
    files = await fixtureDir();
  });
  after(() => files.cleanup());

  it('two threads serve many files of mixed types at once, each answer its own', async () => {
    const extractor = createExtractor({ threads: 2 });
    try {
      const inputs = await Promise.all(
        Array.from({ length: 8 }, async (_, i) =>
          i % 2 === 0
            ? files.write(`p${i}.pdf`, pdf([{ lines: [`parallel pdf ${i}`] }]))
            : files.write(`d${i}.docx`, await docx([`parallel docx ${i}`])),
        ),
      );
      const results = await Promise.all(inputs.map((input) => extractor.extract(input)));
      for (const [i, content] of results.entries())
        assert.equal(content.text, `parallel ${i % 2 === 0 ? 'pdf' : 'docx'} ${i}`);
    } finally {
      await extractor.close();
    }
  });

  it('cuts text at about 5 MB and says so', async () => {
    const extractor = createExtractor({ threads: 1 });
    try {
      const row = 'alpha,beta,gamma,delta,epsilon,zeta,eta,theta\n';
      const content = await extractor.extract(
        await files.write('long.csv', row.repeat(Math.ceil((6 * 1024 * 1024) / row.length))),
      );
      assert.equal(content.metadata.truncated, true);
      assert.ok(
        content.text.length <= 5 * 1024 * 1024 && content.text.length > 5 * 1024 * 1024 - 100,
        String(content.text.length),
      );
      assert.match(content.text, /^alpha\tbeta\tgamma/);
    } finally {
      await extractor.close();
    }
  });
});
