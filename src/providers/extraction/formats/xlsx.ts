import ExcelJS from 'exceljs';
import type { FormatReader } from './context.ts';
import { compactMetadata } from './context.ts';
import { officeProperties } from './ooxml.ts';
import { normaliseText, TextBuilder } from './text-utils.ts';
import { guardZip, readZipEntry, type ZipEntry } from './zip-guard.ts';

/**
 * XLSX, streamed with exceljs's WorkbookReader (the workbook is never loaded whole): each sheet as
 * "Sheet: Name" then one line per row, cells separated by tabs; one page per sheet.
 */
export const readXlsx: FormatReader = async ({ path, extension, maxDecodedBytes }) => {
  // Worksheets are streamed row by row; shared strings and styles are cached whole.
  const entries = await guardZip(path, extension, {
    maxPartBytes: maxDecodedBytes,
    streamed: (name) => /^xl\/worksheets\/[^/]+\.xml$/.test(name),
  });
  if (!entries.some((e) => e.name === 'xl/workbook.xml'))
    throw new Error('the workbook part (xl/workbook.xml) is missing');
  const out = new TextBuilder();
  const pages: string[] = [];
  const sheets: string[] = [];
  const book = workbookSheets(path, entries);
  try {
    reading: for await (const sheet of book.sheets) {
      const name = sheet.name ?? `Sheet${sheets.length + 1}`;
      sheets.push(name);
      const header = `Sheet: ${name}\n`;
      const page: string[] = [header];
      if (!out.add(header)) break;
      for await (const row of sheet.rows) {
        const line = `${rowText(row.values)}\n`;
        page.push(line);
        if (!out.add(line)) {
          pages.push(normaliseText(page.join('')));
          break reading;
        }
      }
      pages.push(normaliseText(page.join('')));
      out.add('\n');
    }
  } finally {
    book.close();
  }
  const read = async (name: string) => {
    const entry = entries.find((e) => e.name === name);
    return entry ? (await readZipEntry(path, entry)).toString('utf8') : undefined;
  };
  const props = await officeProperties(read);
  // Every sheet's name from the workbook part, also those not reached before the text was full.
  const listed = book.listed();
  return {
    text: normaliseText(out.toString()),
    pages,
    metadata: compactMetadata({
      author: props.author,
      title: props.title,
      subject: props.subject,
      created: props.created,
      modified: props.modified,
      sheets: (listed.length >= sheets.length ? listed : sheets).join(', '),
      truncated: out.truncated || undefined,
    }),
    media: null,
  };
};

type Row = { values: ExcelJS.CellValue[] | Record<string, ExcelJS.CellValue> };
interface Sheets {
  sheets: AsyncIterable<{ name: string | undefined; rows: AsyncIterable<Row> | Iterable<Row> }>;
  /** Every sheet's name from the workbook part, also those not reached before the text was full. */
  listed(): string[];
  close(): void;
}

/**
 * The workbook's sheets, streamed with exceljs's WorkbookReader when the zip allows it. That reader
 * parses a worksheet as soon as shared strings and the workbook's relations are known, and fails
 * ("reading 'sheets'") when the workbook part itself comes later in the zip — an order some writers
 * produce. Such files are read whole instead (their parts are already bounded by the zip guard).
 */
function workbookSheets(path: string, entries: readonly ZipEntry[]): Sheets {
  const at = (test: (name: string) => boolean) => entries.findIndex((e) => test(e.name));
  const workbookAt = at((n) => n === 'xl/workbook.xml');
  const firstSheetAt = at((n) => /^xl\/worksheets\/[^/]+\.xml$/.test(n));
  if (firstSheetAt !== -1 && workbookAt > firstSheetAt) return loadedSheets(path);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(path, {
    sharedStrings: 'cache',
    // Styles tell which numbers are dates.
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  return {
    sheets: (async function* () {
      for await (const sheet of reader)
        yield { name: (sheet as unknown as { name?: string }).name, rows: sheet as AsyncIterable<Row> };
    })(),
    listed: () =>
      ((reader as unknown as { model?: { sheets?: { name?: string }[] } }).model?.sheets ?? [])
        .map((s) => s.name ?? '')
        .filter(Boolean),
    // Stopping early leaves the zip stream open: close the file.
    close: () => (reader as unknown as { stream?: { destroy?(): void } }).stream?.destroy?.(),
  };
}

function loadedSheets(path: string): Sheets {
  const book = new ExcelJS.Workbook();
  const loaded = book.xlsx.readFile(path);
  return {
    sheets: (async function* () {
      await loaded;
      for (const ws of book.worksheets) {
        const rows: Row[] = [];
        ws.eachRow((row) => rows.push({ values: row.values }));
        yield { name: ws.name, rows };
      }
    })(),
    listed: () => book.worksheets.map((ws) => ws.name),
    close: () => {},
  };
}

/** A row's cells (exceljs: 1-based, sparse) separated by tabs, without trailing empty cells. */
function rowText(values: ExcelJS.CellValue[] | Record<string, ExcelJS.CellValue>): string {
  const cells = Array.isArray(values) ? values.slice(1) : Object.values(values);
  const texts = Array.from(cells, (v) => cellText(v).replace(/\s+/g, ' ').trim());
  while (texts.length > 0 && texts[texts.length - 1] === '') texts.pop();
  return texts.join('\t');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return '';
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('.000Z', 'Z');
  }
  if (typeof value !== 'object') return String(value);
  const v = value as Record<string, unknown>;
  if (Array.isArray(v.richText)) return v.richText.map((r: { text?: string }) => r.text ?? '').join('');
  if ('result' in v) return cellText(v.result);
  if (typeof v.text === 'string') return v.text;
  if (typeof v.error === 'string') return v.error;
  return '';
}
