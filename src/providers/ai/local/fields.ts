import { CURRENCY_CODES, formatAmount, parseNumber } from './amounts.ts';
import { ORG_FIELD_WORDS, PERSON_FIELD_WORDS, ROLE_WORDS } from './name-words.ts';

// Structure that says what a name is: labelled fields ("Prepared by: Olivia Brooks",
// "Bill to:" + next line) and delimited tables whose column header says "Vendor" or "Owner".

/** A value that a field label or column header types. */
export interface TypedValue {
  kind: 'person' | 'organization';
  /** The value as written (one cell or one comma-separated item). */
  text: string;
  start: number;
}

/** What the structure of the text tells. */
export interface FieldFindings {
  values: TypedValue[];
  /** Amounts from table columns whose header names a currency ("Annual cost (USD)"). */
  amounts: { value: string; amount: number; currency: string; text: string; start: number; confidence: number }[];
}

const FIELD = /^\s*([\p{L}][\p{L} .'/&-]{0,40}?)\s*(?::|,(?=\s*\p{Lu}))\s*(.*)$/u;
const DELIMITERS = [',', '\t', ';', '|'] as const;

/** Typed values of labelled fields and table columns. */
export function findFieldValues(text: string): FieldFindings {
  const lines = splitLines(text);
  const values: TypedValue[] = [];
  const amounts: FieldFindings['amounts'] = [];
  const inTable = new Set<number>();

  for (const table of findTables(lines)) {
    const header = splitCells(table.rows[0]!.text, table.delimiter);
    const kinds = header.map((cell) => kindOfLabel(cell.text));
    const currencies = header.map((cell) => currencyOfHeader(cell.text));
    for (const row of table.rows) inTable.add(row.index);
    for (const row of table.rows.slice(1)) {
      splitCells(row.text, table.delimiter).forEach((cell, column) => {
        const kind = kinds[column];
        const start = row.start + cell.offset;
        if (kind && /^\p{Lu}/u.test(cell.text)) values.push({ kind, text: cell.text, start });
        const currency = currencies[column];
        if (currency && /^\d[\d,.]*$/.test(cell.text)) {
          const value = parseNumber(cell.text);
          if (value !== null) amounts.push({ value: formatAmount(currency, value), amount: value, currency, text: cell.text, start, confidence: 0.85 });
        }
      });
    }
  }

  for (let i = 0; i < lines.length; i++) {
    if (inTable.has(i)) continue;
    const m = FIELD.exec(lines[i]!.text);
    if (!m) continue;
    const kind = kindOfLabel(m[1]!);
    if (!kind) continue;
    let value = m[2]!;
    let valueStart = lines[i]!.start + lines[i]!.text.length - value.length;
    if (value.trim() === '' && lines[i + 1] && lines[i + 1]!.text.trim() !== '') {
      value = lines[i + 1]!.text;
      valueStart = lines[i + 1]!.start;
    }
    // A list of people ("Present: A (Chair), B, C"); one organisation per field.
    const items = kind === 'person' ? splitItems(value) : [{ text: value.split(/,\s/)[0]!, offset: 0 }];
    for (const item of items) {
      const trimmed = item.text.replace(/\s*\(.*?\)\s*$/, '').trim();
      if (/^\p{Lu}/u.test(trimmed)) values.push({ kind, text: trimmed, start: valueStart + item.offset + item.text.indexOf(trimmed) });
    }
  }
  return { values, amounts };
}

// The kind of value a label announces, judged by its last telling word ("Contract owner" → person).
function kindOfLabel(label: string): TypedValue['kind'] | null {
  const wordsOfLabel = label.toLowerCase().split(/[^\p{L}-]+/u).filter(Boolean);
  if (wordsOfLabel.length === 0 || wordsOfLabel.length > 4) return null;
  for (let i = wordsOfLabel.length - 1; i >= 0; i--) {
    const w = wordsOfLabel[i]!;
    if (w === 'name' || PERSON_FIELD_WORDS.has(w) || ROLE_WORDS.has(w)) return 'person';
    if (ORG_FIELD_WORDS.has(w)) return 'organization';
  }
  return null;
}

function currencyOfHeader(header: string): string | null {
  const code = /\b([A-Z]{3})\b/.exec(header)?.[1];
  if (code && CURRENCY_CODES.has(code)) return code;
  if (/\$/.test(header)) return 'USD';
  if (/€/.test(header)) return 'EUR';
  if (/£/.test(header)) return 'GBP';
  return null;
}

interface Line {
  text: string;
  start: number;
  index: number;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    lines.push({ text: raw.replace(/\r$/, ''), start, index });
    start += raw.length + 1;
  });
  return lines;
}

// Runs of at least three lines with the same number (≥ 2) of one delimiter.
function findTables(lines: Line[]): { delimiter: string; rows: Line[] }[] {
  const tables: { delimiter: string; rows: Line[] }[] = [];
  let i = 0;
  while (i < lines.length) {
    let found = false;
    for (const delimiter of DELIMITERS) {
      const count = countOf(lines[i]!.text, delimiter);
      if (count < 2) continue;
      let j = i + 1;
      while (j < lines.length && countOf(lines[j]!.text, delimiter) === count) j++;
      if (j - i >= 3) {
        tables.push({ delimiter, rows: lines.slice(i, j) });
        i = j;
        found = true;
        break;
      }
    }
    if (!found) i++;
  }
  return tables;
}

const countOf = (text: string, ch: string) => text.split(ch).length - 1;

function splitCells(text: string, delimiter: string): { text: string; offset: number }[] {
  const cells: { text: string; offset: number }[] = [];
  let offset = 0;
  for (const raw of text.split(delimiter)) {
    const lead = raw.length - raw.trimStart().length;
    cells.push({ text: raw.trim(), offset: offset + lead });
    offset += raw.length + 1;
  }
  return cells;
}

// Comma-separated items, not splitting inside parentheses ("Owen Price (Grants Officer, minutes)").
function splitItems(value: string): { text: string; offset: number }[] {
  const items: { text: string; offset: number }[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= value.length; i++) {
    const ch = value[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (i === value.length || ((ch === ',' || ch === ';') && depth === 0)) {
      items.push({ text: value.slice(start, i), offset: start });
      start = i + 1;
    }
  }
  return items;
}
