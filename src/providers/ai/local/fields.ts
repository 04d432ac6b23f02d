import { type AmountOptions, CURRENCY_CODES, currencyOf, formatAmount, parseNumber } from './amounts.ts';
import { ORG_FIELD_WORDS, PARTY_FIELD_WORDS, PERSON_FIELD_WORDS, ROLE_WORDS } from './name-words.ts';

// Structure that says what a name is: labelled fields ("Prepared by: Olivia Brooks",
// "Bill to:" + next line) and delimited tables whose column header says "Vendor" or "Owner".

/** A value that a field label or column header types. */
export interface TypedValue {
  /** `party`: either, the value's own words decide ("Prepared for: Bushveld Platinum" / "… for: Jane Doe"). */
  kind: 'person' | 'organization' | 'party';
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
export function findFieldValues(text: string, options: AmountOptions = {}): FieldFindings {
  const lines = splitLines(text);
  const values: TypedValue[] = [];
  const amounts: FieldFindings['amounts'] = [];
  const inTable = new Set<number>();

  const stated = statedCurrency(text);
  for (const table of findTables(lines)) {
    const header = splitCells(table.rows[0]!.text, table.delimiter);
    const kinds = header.map((cell) => kindOfLabel(cell.text));
    // A column headed with a currency, a figure column under a caption that states one ("Budget
    // execution (PEN)"), or a money column of a document that states its currency once.
    const caption = header.some((cell) => currencyOfHeader(cell.text))
      ? null
      : captionCurrency(lines, table.rows[0]!.index, header, options);
    const currencies = header.map(
      (cell, k) =>
        currencyOfHeader(cell.text) ??
        (caption && k > 0 && captionedMoney(cell.text) ? caption : null) ??
        (stated && MONEY_HEADER.test(cell.text) ? stated : null),
    );
    const factors = header.map(
      (cell) => scaleOfHeader(cell.text) * (currencyOfHeader(cell.text) ? 1 : stated ? stated.factor : 1),
    );
    for (const row of table.rows) inTable.add(row.index);
    for (const row of table.rows.slice(1)) {
      splitCells(row.text, table.delimiter).forEach((cell, column) => {
        const kind = kinds[column];
        const start = row.start + cell.offset;
        if (kind && /^\p{Lu}/u.test(cell.text)) values.push({ kind, text: cell.text, start });
        const currency = currencies[column];
        // "1,250.00", "-34,800.00", "(3,250.00)": a bare figure of a money column; a bracket is a debit.
        const figure = /^(-|\()?\s*(\d[\d,. ]*\d|\d)\s*\)?$/.exec(cell.text);
        if (currency && figure) {
          const value = parseNumber(figure[2]!);
          const code = typeof currency === 'string' ? currency : currency.code;
          if (value !== null && value !== 0) {
            const amount = Math.round((figure[1] ? -value : value) * factors[column]! * 100) / 100;
            amounts.push({
              value: formatAmount(code, amount),
              amount,
              currency: code,
              text: cell.text,
              start,
              confidence: 0.85,
            });
          }
        }
      });
    }
  }

  for (const table of findAlignedTables(lines, inTable, options)) {
    for (const row of table.rows) inTable.add(row.index);
    amounts.push(...table.amounts);
  }

  // The currency a heading states for the labelled figures under it ("Salary break-up (per annum, INR)").
  let headed: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    if (inTable.has(i)) continue;
    // "Opening Balance (KES),"4,215.35"": a label that names the currency of its figure (a comma
    // inside the figure, "R$ 187.600,00", separates nothing).
    const money = /^\s*([^,:\t]{2,40}?)\s*(?:(?<!\d),|[:\t])\s*"?(-|\()?\s*(\d[\d,. ]*\d|\d)\s*\)?"?\s*$/.exec(
      lines[i]!.text,
    );
    const own = money && /\(/.test(money[1]!) ? currencyOfHeader(money[1]!) : null;
    const code =
      own ?? (money && headed && /[,.\s]\d{2,3}$/.test(money[3]!) && !NOT_MONEY_LABEL.test(money[1]!) ? headed : null);
    if (!money && lines[i]!.text.trim() !== '') headed = headingCurrency(lines[i]!.text);
    if (money && code) {
      const value = parseNumber(money[3]!);
      if (value !== null && value !== 0) {
        const amount = money[2] ? -value : value;
        const start = lines[i]!.start + lines[i]!.text.indexOf(money[3]!);
        amounts.push({
          value: formatAmount(code, amount),
          amount,
          currency: code,
          text: money[3]!,
          start,
          confidence: 0.85,
        });
      }
    }
    const m = FIELD.exec(lines[i]!.text);
    if (!m) continue;
    const kind = kindOfLabel(m[1]!);
    if (!kind) continue;
    // "Coastal Marine University, Đà Nẵng": a name before a comma is a name, not a label.
    const commaForm = !lines[i]!.text.slice(0, m[1]!.length + 4).includes(':');
    if (commaForm && /^\s*\p{Lu}\S*\s+\p{Lu}/u.test(m[1]!)) continue;
    let value = m[2]!;
    let valueStart = lines[i]!.start + lines[i]!.text.length - value.length;
    if (value.trim() === '' && lines[i + 1] && lines[i + 1]!.text.trim() !== '') {
      value = lines[i + 1]!.text;
      valueStart = lines[i + 1]!.start;
    }
    // A list of people ("Present: A (Chair), B, C"); one organisation per field.
    // A party's value is its first item of each ";"-separated one ("To: Teo Siew Ling; Nur Aisyah").
    const items =
      kind === 'person'
        ? splitItems(value)
        : kind === 'party'
          ? splitItems(value)
              .filter((item) => item.offset === 0 || value[item.offset - 1] === ';')
              .map((item) => ({ text: item.text.split(/,\s/)[0]!, offset: item.offset }))
          : [{ text: value.split(/,\s/)[0]!, offset: 0 }];
    for (const item of items) {
      // "1. Karabo Molefe", "Shin Eun-ji (QA).": without the item's number, a note after it or a closing stop.
      const trimmed = item.text
        .replace(/\s*\(.*?\)\s*[.;]?\s*$|[.;]\s*$/, '')
        .replace(/^\s*(?:\d{1,2}|[a-z])[.)]\s+/, '')
        .trim();
      if (/^\p{Lu}/u.test(trimmed))
        values.push({ kind, text: trimmed, start: valueStart + item.offset + item.text.indexOf(trimmed) });
    }
  }
  return { values, amounts };
}

// The kind of value a label announces, judged by its last telling word ("Contract owner" → person).
function kindOfLabel(label: string): TypedValue['kind'] | null {
  const wordsOfLabel = label
    .toLowerCase()
    .split(/[^\p{L}-]+/u)
    .filter(Boolean);
  if (wordsOfLabel.length === 0 || wordsOfLabel.length > 4) return null;
  // "Head office:", "Branch address:": a place follows, whatever the words before say.
  if (/^(?:office|address|location|branch|site|venue|premises)$/.test(wordsOfLabel[wordsOfLabel.length - 1]!))
    return null;
  // "For the Client:", "For the Supplier:": who signs for a party (a company's own name fails the person checks later).
  if (
    wordsOfLabel[0] === 'for' &&
    wordsOfLabel.length > 1 &&
    ORG_FIELD_WORDS.has(wordsOfLabel[wordsOfLabel.length - 1]!)
  )
    return 'person';
  // "Prepared for:", "Issued for:": for whom, a client more often than a person.
  if (wordsOfLabel.length > 1 && wordsOfLabel[wordsOfLabel.length - 1] === 'for') return 'party';
  if (wordsOfLabel.length === 1 && PARTY_FIELD_WORDS.has(wordsOfLabel[0]!)) return 'party';
  for (let i = wordsOfLabel.length - 1; i >= 0; i--) {
    const w = wordsOfLabel[i]!;
    if (w === 'name' || PERSON_FIELD_WORDS.has(w) || ROLE_WORDS.has(w)) return 'person';
    // "Collected by:", "Issued by:", "By:": someone did it (an organisation's name fails the person checks later).
    // "By: Chidi Okafor" in a signature block: the signatory.
    if (w === 'by' && i === wordsOfLabel.length - 1) return 'person';
    if (ORG_FIELD_WORDS.has(w)) return 'organization';
  }
  return null;
}

/** Headers of columns that hold money. */
const MONEY_HEADER =
  /\b(?:amount|balance|paid|withdrawn|withdrawal|deposit|debit|credit|total|price|value|cost|fee|charge|sales|revenue|target|actual|budget|spent|spend|expenditures?|outturn|net|gross|tax|vat)\b/i;

/** "(₹ crore)", "USD m", "'000": what a column's figures are counted in. */
function scaleOfHeader(header: string): number {
  // Word edges of any alphabet: the "K" of "Kč" or the "m" of "mín." is no scale.
  if (/(?<!\p{L})(?:crores?|cr)(?!\p{L})/iu.test(header)) return 1e7;
  if (/(?<!\p{L})(?:lakhs?|lacs?)(?!\p{L})/iu.test(header)) return 1e5;
  if (/(?<!\p{L})(?:millions?|mn|mio)(?!\p{L})|(?<!\p{L})[A-Z]{3}\s?m(?!\p{L})|[$€£]m(?!\p{L})/u.test(header))
    return 1e6;
  if (/(?<!\p{L})(?:thousands?|k)(?!\p{L})|['’]000\b/iu.test(header)) return 1e3;
  return 1;
}

/** The currency a document states once for all its figures ("All amounts in KES", "Currency: INR"). */
function statedCurrency(text: string): { code: string; factor: number } | null {
  const m =
    /\b(?:(?:all\s+)?(?:amounts|figures|values|prices)\s+(?:are\s+)?(?:in|shown\s+in|stated\s+in|expressed\s+in)|currency\s*:)\s*((?:U\.S\.|[A-Z]{1,3})?\$|[A-Z]{3}|[€£₹¥])(?:\s*(crores?|lakhs?|millions?|thousands?))?/i.exec(
      text,
    );
  if (!m) {
    // A document that writes one currency code only (a statement in KES) counts every money column in it.
    const codes = new Set([...text.matchAll(/\b[A-Z]{3}\b/g)].map((c) => c[0]).filter((c) => CURRENCY_CODES.has(c)));
    return codes.size === 1 ? { code: [...codes][0]!, factor: 1 } : null;
  }
  const code = currencyOfHeader(m[1]!) ?? (m[1] === '₹' ? 'INR' : m[1] === '¥' ? 'JPY' : null);
  return code ? { code, factor: m[2] ? scaleOfHeader(m[2]) : 1 } : null;
}

/** Dollars written with a country prefix ("HK$", "S$", "NT$"). */
const DOLLAR_PREFIXES: Record<string, string> = {
  US: 'USD',
  'U.S.': 'USD',
  C: 'CAD',
  CA: 'CAD',
  CAN: 'CAD',
  A: 'AUD',
  AU: 'AUD',
  NZ: 'NZD',
  HK: 'HKD',
  S: 'SGD',
  SG: 'SGD',
  NT: 'TWD',
  R: 'BRL',
  MX: 'MXN',
};

function currencyOfHeader(header: string, options: AmountOptions = {}): string | null {
  const code = /\b([A-Z]{3})\b/.exec(header)?.[1];
  if (code && CURRENCY_CODES.has(code)) return code;
  // "Harga satuan (Rp)", "Unit Price (RM)", "Celkem (Kč)", "Belopp (kr)": a sign in brackets.
  const bracketed = /\(\s*([^\s()/\d]{1,4})\s*(?:[/)]|\s)/u.exec(header)?.[1];
  const signed = bracketed && !/\$/.test(bracketed) ? currencyOf(bracketed, options) : null;
  if (signed) return signed;
  // A prefixed dollar names its own currency: "Amount (HK$)" is HKD, not USD.
  const prefixed = /(?:^|[^A-Za-z.])((?:U\.S\.|[A-Za-z]{1,3}))\$/.exec(header)?.[1];
  if (prefixed) {
    const dollar = DOLLAR_PREFIXES[prefixed.toUpperCase()];
    if (dollar) return dollar;
  }
  if (/\$/.test(header)) return 'USD';
  if (/€/.test(header)) return 'EUR';
  if (/£/.test(header)) return 'GBP';
  if (/₹/.test(header)) return 'INR';
  return null;
}

// Plain-text tables laid out with runs of spaces: cells are what two or more spaces (or a tab) separate.
const CELL = /\S+(?:[^\S\t\n]\S+)*/gu;
const cellsOf = (text: string) =>
  [...text.matchAll(CELL)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));
// A figure alone in its cell (Western or Indian grouping), or ending it after a label ("Discount 3%   -2,466.00", "Less: credit note (1,200.00)").
const CELL_FIGURE =
  /(?:^|\s)([-−]|\()?\s?(\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?|\d{1,3}(?:[,.\u00a0\u202f\u2009 '’]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)(\))?$/u;
// Columns that count things, not money, whatever currency a caption states.
const COUNT_HEADER =
  /^(?:no\.?|#|item|qty|quantity|units?|pcs|bags|kg|net kg|moq|days|hours|hrs|count|seats|%|share|year|month|date|ref|code)$|\b(?:qty|quantity|units|kg|%)\b/iu;

/**
 * Tables laid out with spaces whose header names a currency for a column ("Unit price (USD)",
 * "Total (Rp)", "Purchase cost (UGX m)"), or whose caption on the line above states one for the
 * money columns ("Budget (ETB)" over "Line  Budget  Spent  Balance"): each bare figure of such a
 * column is money. A row with as many cells as the header is read cell by cell; a shorter one (a
 * subtotal, a row with an empty cell) by where its figures stand under the header.
 */
function findAlignedTables(
  lines: Line[],
  taken: Set<number>,
  options: AmountOptions,
): { rows: Line[]; amounts: FieldFindings['amounts'] }[] {
  const out: { rows: Line[]; amounts: FieldFindings['amounts'] }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (taken.has(i)) continue;
    const header = cellsOf(lines[i]!.text);
    if (header.length < 3 || header.some((c) => CELL_FIGURE.test(c.text) && !/[\p{L}]/u.test(c.text))) continue;
    let currencies = header.map((c) => currencyOfHeader(c.text, options));
    if (!currencies.some(Boolean)) {
      const stated = captionCurrency(lines, i, header, options);
      if (!stated) continue;
      currencies = header.map((c, k) => (k > 0 && captionedMoney(c.text) ? stated : null));
    }
    const factors = header.map((c) => scaleOfHeader(c.text));
    const rows: Line[] = [lines[i]!];
    const amounts: FieldFindings['amounts'] = [];
    let j = i + 1;
    let gap = false;
    for (; j < lines.length && !taken.has(j); j++) {
      const line = lines[j]!;
      if (line.text.trim() === '') {
        // One blank line before the totals ("Taxable value      23,22,000.00") does not end the table.
        if (gap || !totalsFollow(lines, j, header, currencies, taken)) break;
        gap = true;
        continue;
      }
      rows.push(line);
      const cells = cellsOf(line.text);
      cells.forEach((cell, k) => {
        const figure = CELL_FIGURE.exec(cell.text);
        if (!figure || (k === 0 && cells.length > 1) || (figure[1] === '(') !== (figure[3] === ')')) return;
        const at = cell.start + figure.index + figure[0].length - figure[0].trimStart().length;
        const column =
          cells.length === header.length && cell.text === figure[0].trim() ? k : columnUnder(header, at, cell.end);
        const currency = currencies[column];
        const value = parseNumber(figure[2]!);
        if (!currency || value === null || value === 0) return;
        const amount = Math.round((figure[1] ? -value : value) * factors[column]! * 100) / 100;
        amounts.push({
          value: formatAmount(currency, amount),
          amount,
          currency,
          text: cell.text.slice(figure.index).trim(),
          start: line.start + at,
          confidence: 0.8,
        });
      });
    }
    if (rows.length >= 2 && amounts.length > 0) {
      out.push({ rows, amounts });
      i = j - 1;
    }
  }
  return out;
}

/**
 * The currency a short caption in brackets on the line above a table states for its money columns
 * ("Budget (ETB)", "3. Budget execution (PEN)"), where a header cell says it holds money.
 */
function captionCurrency(
  lines: Line[],
  headerIndex: number,
  header: { text: string }[],
  options: AmountOptions,
): string | null {
  const caption = [lines[headerIndex - 1], lines[headerIndex - 2]].find((l) => l && l.text.trim() !== '');
  // A caption is a line of its own, not another table's header ("Description | Amount (KES)").
  if (!caption || caption.text.trim().split(/\s+/).length > 8 || !/\(/.test(caption.text) || /[|\t]/.test(caption.text))
    return null;
  const stated = currencyOfHeader(caption.text, options);
  return stated && header.some((c) => MONEY_HEADER.test(c.text)) ? stated : null;
}

/** Whether the lines after a blank one start with labelled figures standing under a money column of the header. */
function totalsFollow(
  lines: Line[],
  blank: number,
  header: { start: number; end: number }[],
  currencies: (string | null)[],
  taken: Set<number>,
): boolean {
  let rows = 0;
  for (let k = blank + 1; k < lines.length && lines[k]!.text.trim() !== ''; k++) {
    const cells = cellsOf(lines[k]!.text);
    const last = cells[cells.length - 1];
    if (taken.has(k)) return false;
    if (
      cells.length < 2 ||
      cells.length > 3 ||
      !last ||
      CELL_FIGURE.exec(last.text)?.[0].trim() !== last.text ||
      !currencies[columnUnder(header, last.start, last.end)]
    )
      break;
    rows++;
  }
  return rows > 0;
}

// Under a caption's currency, the columns that hold money: a money word or a period ("2024", "Q3",
// "FY2025"), never a count ("Qty", "Households").
const captionedMoney = (header: string) =>
  !COUNT_HEADER.test(header) && (MONEY_HEADER.test(header) || /^(?:FY\s?)?\d{4}$|^[QH][1-4]\b/i.test(header.trim()));

// Labels of figures that are not money whatever the heading says.
const NOT_MONEY_LABEL =
  /\b(?:no|nos|number|ref|reference|code|tel|phone|fax|mobile|account|a\/c|id|pin|date|year|qty|quantity|units?|hours|days)\b/i;

/** A short heading that states a currency in brackets ("Annexure A - Salary break-up (per annum, INR)"), or null. */
function headingCurrency(line: string): string | null {
  const text = line.trim();
  if (text === '' || text.split(/\s+/).length > 10 || !/\([^)]*\)\s*:?$/.test(text) || /[|\t]/.test(text)) return null;
  return currencyOfHeader(text);
}

/** The header cell a figure stands under: the one it overlaps most, else the nearest. */
function columnUnder(header: { start: number; end: number }[], start: number, end: number): number {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  header.forEach((h, k) => {
    const overlap = Math.min(end, h.end) - Math.max(start, h.start);
    if (overlap > bestScore) {
      bestScore = overlap;
      best = k;
    }
  });
  return best;
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

// Runs of at least three lines with the same number (≥ 2) of one delimiter; a pipe, never
// punctuation in prose, makes a two-column table too ("Description | Amount (KES)").
function findTables(lines: Line[]): { delimiter: string; rows: Line[] }[] {
  const tables: { delimiter: string; rows: Line[] }[] = [];
  let i = 0;
  while (i < lines.length) {
    let found = false;
    for (const delimiter of DELIMITERS) {
      const count = countOf(lines[i]!.text, delimiter);
      if (count < (delimiter === '|' ? 1 : 2)) continue;
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

/** Delimiters outside double quotes (a CSV cell "4,215.35" holds a comma that splits nothing). */
// … nor does a thousands separator of a column laid out with spaces ("BOPF   12,000   4.85   58,200.00",
// "Invoice SGP/1021   3,18,600.00").
// … nor the grouping of a labelled figure ("Basic salary: 13,60,000").
const countOf = (text: string, ch: string) =>
  splitQuoted(
    ch === ',' && (/\S {3,}\S/.test(text) || /^[^,:]{2,40}:\s*[-(]?[\d,.]+\)?\s*$/.test(text))
      ? text.replace(/(?<=\d),(?=(?:\d{2},)*\d{3}(?!\d))/g, '')
      : text,
    ch,
  ).length - 1;

function splitQuoted(text: string, delimiter: string): string[] {
  if (!text.includes('"')) return text.split(delimiter);
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === delimiter && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function splitCells(text: string, delimiter: string): { text: string; offset: number }[] {
  const cells: { text: string; offset: number }[] = [];
  let offset = 0;
  for (const raw of splitQuoted(text, delimiter)) {
    const lead = raw.length - raw.trimStart().length + (raw.trimStart().startsWith('"') ? 1 : 0);
    cells.push({ text: raw.trim().replace(/^"(.*)"$/, '$1'), offset: offset + lead });
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
