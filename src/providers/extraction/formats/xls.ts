import { readFile } from 'node:fs/promises';
import { ExtractionError } from '../extraction-error.ts';
import { CompoundFile, decode, summaryInformation } from './cfb.ts';
import type { FormatReader } from './context.ts';
import { compactMetadata } from './context.ts';
import { printableStrings } from './ole-strings.ts';
import { normaliseText, TextBuilder } from './text-utils.ts';

// Excel 97-2003 (.xls), best effort. npm's maintained-looking parser (`xlsx`) is frozen with open
// advisories, so this reads the BIFF records itself: sheet names, shared strings, text, number and
// formula-result cells. Numbers are shown as stored (dates as serial numbers: formats are not
// applied). When the records cannot be followed, the readable strings of the stream are used.

const R = {
  BOF: 0x0809,
  EOF: 0x000a,
  FILEPASS: 0x002f,
  CODEPAGE: 0x0042,
  BOUNDSHEET: 0x0085,
  SST: 0x00fc,
  CONTINUE: 0x003c,
  LABELSST: 0x00fd,
  LABEL: 0x0204,
  RSTRING: 0x00d6,
  NUMBER: 0x0203,
  RK: 0x027e,
  MULRK: 0x00bd,
  FORMULA: 0x0006,
  STRING: 0x0207,
  BOOLERR: 0x0205,
} as const;

interface Sheet {
  name: string;
  offset: number;
  kind: number;
}

/** XLS: each worksheet as "Sheet: Name" then rows of tab-separated cells; one page per sheet. */
export const readXls: FormatReader = async ({ path }) => {
  const container = new CompoundFile(await readFile(path));
  const stream = container.stream('Workbook') ?? container.stream('Book');
  if (!stream) throw new Error('there is no Workbook stream');
  const info = summaryInformation(container);
  let sheets: { name: string; rows: string[] }[];
  let bestEffort = false;
  try {
    sheets = readBiff(stream);
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    sheets = [{ name: '', rows: printableStrings(stream) }];
    bestEffort = true;
  }
  const out = new TextBuilder();
  const pages: string[] = [];
  for (const sheet of sheets) {
    const page = [sheet.name ? `Sheet: ${sheet.name}` : '', ...sheet.rows].join('\n');
    pages.push(normaliseText(page));
    if (!out.add(`${page}\n\n`)) break;
  }
  return {
    text: normaliseText(out.toString()),
    pages,
    metadata: compactMetadata({
      author: info.author,
      title: info.title,
      subject: info.subject,
      created: info.created,
      modified: info.modified,
      sheets: sheets
        .map((s) => s.name)
        .filter(Boolean)
        .join(', '),
      best_effort: bestEffort || undefined,
      truncated: out.truncated || undefined,
    }),
    media: null,
  };
};

function readBiff(stream: Buffer): { name: string; rows: string[] }[] {
  const first = record(stream, 0);
  if (!first || first.type !== R.BOF) throw new Error('the workbook stream does not start with a BOF record');
  const biff8 = first.data.length >= 2 && first.data.readUInt16LE(0) === 0x0600;
  const sheets: Sheet[] = [];
  let strings: string[] = [];
  let codepage = 1252;
  for (let at = 0; ; ) {
    const r = record(stream, at);
    if (!r) break;
    if (r.type === R.FILEPASS) throw new ExtractionError('unsupported', 'the XLS file is password-protected');
    if (r.type === R.CODEPAGE && r.data.length >= 2) codepage = r.data.readUInt16LE(0);
    if (r.type === R.BOUNDSHEET && r.data.length >= 7) {
      const length = r.data[6] as number;
      const name = biff8
        ? unicodeChars(r.data, 8, length, r.data[7] as number)
        : decode(r.data.subarray(7, 7 + length), codepage);
      sheets.push({ offset: r.data.readUInt32LE(0), kind: r.data[5] as number, name });
    }
    if (r.type === R.SST) {
      const segments = [r.data];
      let next = r.next;
      for (let c = record(stream, next); c && c.type === R.CONTINUE; c = record(stream, next)) {
        segments.push(c.data);
        next = c.next;
      }
      strings = readSst(segments);
    }
    at = r.next;
    if (r.type === R.EOF) break;
  }
  return sheets
    .filter((s) => s.kind === 0)
    .map((s) => ({ name: s.name, rows: readSheet(stream, s.offset, strings, biff8, codepage) }));
}

function readSheet(stream: Buffer, offset: number, strings: string[], biff8: boolean, codepage: number): string[] {
  const cells = new Map<number, Map<number, string>>();
  const set = (row: number, col: number, value: string) => {
    if (value === '') return;
    const line = cells.get(row) ?? new Map<number, string>();
    cells.set(row, line);
    line.set(col, value);
  };
  let pendingFormula: { row: number; col: number } | null = null;
  let depth = 0;
  for (let at = offset; ; ) {
    const r = record(stream, at);
    if (!r) break;
    at = r.next;
    const d = r.data;
    if (r.type === R.BOF) depth++;
    else if (r.type === R.EOF) {
      if (--depth <= 0) break;
    }
    // Records of an embedded chart's substream are not cells of this sheet.
    if (depth > 1) continue;
    const row = d.length >= 4 ? d.readUInt16LE(0) : 0;
    const col = d.length >= 4 ? d.readUInt16LE(2) : 0;
    switch (r.type) {
      case R.LABELSST:
        if (d.length >= 10) set(row, col, strings[d.readUInt32LE(6)] ?? '');
        break;
      case R.LABEL:
      case R.RSTRING:
        if (d.length >= 8)
          set(
            row,
            col,
            biff8
              ? unicodeChars(d, 9, d.readUInt16LE(6), d[8] as number)
              : decode(d.subarray(8, 8 + d.readUInt16LE(6)), codepage),
          );
        break;
      case R.NUMBER:
        if (d.length >= 14) set(row, col, number(d.readDoubleLE(6)));
        break;
      case R.RK:
        if (d.length >= 10) set(row, col, number(rk(d.readUInt32LE(6))));
        break;
      case R.MULRK:
        for (let i = 0, p = 4; p + 6 <= d.length - 2; i++, p += 6) set(row, col + i, number(rk(d.readUInt32LE(p + 2))));
        break;
      case R.BOOLERR:
        if (d.length >= 8) set(row, col, d[7] ? '#ERROR' : d[6] ? 'TRUE' : 'FALSE');
        break;
      case R.FORMULA:
        if (d.length < 14) break;
        if (d.readUInt16LE(12) !== 0xffff) set(row, col, number(d.readDoubleLE(6)));
        else if (d[6] === 0)
          pendingFormula = { row, col }; // the text result follows in a STRING record
        else if (d[6] === 1) set(row, col, d[8] ? 'TRUE' : 'FALSE');
        break;
      case R.STRING:
        if (pendingFormula && d.length >= 3) {
          set(
            pendingFormula.row,
            pendingFormula.col,
            biff8
              ? unicodeChars(d, 3, d.readUInt16LE(0), d[2] as number)
              : decode(d.subarray(2, 2 + d.readUInt16LE(0)), codepage),
          );
        }
        pendingFormula = null;
        break;
    }
  }
  const rows: string[] = [];
  for (const row of [...cells.keys()].sort((a, b) => a - b)) {
    const line = cells.get(row) as Map<number, string>;
    const width = Math.max(...line.keys()) + 1;
    rows.push(
      Array.from({ length: Math.min(width, 256) }, (_, c) => (line.get(c) ?? '').replace(/\s+/g, ' ').trim()).join(
        '\t',
      ),
    );
  }
  return rows;
}

/** The shared string table: XLUnicodeRichExtendedStrings whose characters may continue in the next CONTINUE record. */
function readSst(segments: Buffer[]): string[] {
  const strings: string[] = [];
  let seg = 0;
  let pos = 8;
  const current = () => segments[seg] as Buffer;
  const ensure = () => {
    while (seg < segments.length && pos >= current().length) {
      seg++;
      pos = 0;
    }
    if (seg >= segments.length) throw new RangeError('end of table');
  };
  const u8 = () => {
    ensure();
    return current()[pos++] as number;
  };
  const u16 = () => u8() | (u8() << 8);
  const u32 = () => (u16() | (u16() << 16)) >>> 0;
  const skip = (n: number) => {
    for (let left = n; left > 0; ) {
      ensure();
      const step = Math.min(left, current().length - pos);
      pos += step;
      left -= step;
    }
  };
  const total = Math.min(segments[0]?.readUInt32LE(4) ?? 0, 5_000_000);
  try {
    for (let i = 0; i < total; i++) {
      const count = u16();
      let flags = u8();
      const runs = flags & 0x08 ? u16() : 0;
      const ext = flags & 0x04 ? u32() : 0;
      let text = '';
      for (let left = count; left > 0; ) {
        if (pos >= current().length) {
          // Characters continue in the next record, which starts with its own high-byte flag.
          seg++;
          pos = 0;
          if (seg >= segments.length) throw new RangeError('end of table');
          flags = (flags & ~0x01) | (u8() & 0x01);
        }
        const width = flags & 0x01 ? 2 : 1;
        const take = Math.min(left, Math.floor((current().length - pos) / width));
        if (take <= 0) throw new RangeError('a string is cut short');
        text += unicodeChars(current(), pos, take, flags);
        pos += take * width;
        left -= take;
      }
      skip(runs * 4 + ext);
      strings.push(text);
    }
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // A short table keeps the strings read so far.
  }
  return strings;
}

function unicodeChars(data: Buffer, at: number, count: number, flags: number): string {
  return flags & 0x01
    ? data.toString('utf16le', at, Math.min(data.length, at + count * 2))
    : data.toString('latin1', at, Math.min(data.length, at + count));
}

function record(stream: Buffer, at: number): { type: number; data: Buffer; next: number } | null {
  if (at + 4 > stream.length) return null;
  const type = stream.readUInt16LE(at);
  const length = stream.readUInt16LE(at + 2);
  if (type === 0 && length === 0) return null;
  if (at + 4 + length > stream.length) throw new Error('a record runs past the end of the stream');
  return { type, data: stream.subarray(at + 4, at + 4 + length), next: at + 4 + length };
}

/** An RK number: a 30-bit integer or the top of a double, possibly times 100. */
function rk(value: number): number {
  let n: number;
  if (value & 0x02) n = value >> 2;
  else {
    const b = Buffer.alloc(8);
    b.writeUInt32LE((value & 0xfffffffc) >>> 0, 4);
    n = b.readDoubleLE(0);
  }
  return value & 0x01 ? n / 100 : n;
}

function number(n: number): string {
  return Number.isFinite(n) ? String(Number(n.toPrecision(15))) : '';
}
