// The lines of a text and what each one is, before they are assembled into segments
// (segmentation.ts): table rows, e-mail headers, fields, list markers, signatures, prose.

/** A line of the source: its span, and its content without indentation or "> " quote marks. */
export interface Line {
  start: number;
  end: number;
  /** Offset of `content` in the source. */
  contentStart: number;
  /** As written, for column gaps. */
  raw: string;
  content: string;
}

/** What a line is, judged with its neighbours. */
export type LineType =
  | 'blank'
  | 'rule'
  | 'md_heading'
  | 'table_row'
  | 'header_field'
  | 'field'
  | 'bullet'
  | 'numbered'
  | 'signature'
  | 'text';

export interface TypedLine extends Line {
  type: LineType;
  /** Cells of a table row; the label and value of a field; the marker of a list item or clause. */
  cells?: string[];
  label?: string;
  value?: string;
  /** "1", "4.2", "a": the number of a numbered line (its depth is the count of dots plus one). */
  number?: string;
  /** Where the content after a list marker starts. */
  markerEnd?: number;
}

const EMAIL_LABEL = /^(from|to|cc|bcc|subject|date|sent|reply-to|re)\s*:\s*(.*)$/i;
const FIELD = /^(\p{Lu}[\p{L}\p{N} .'’/&()#%-]{0,58}?)\s*:\s+(\S.*)$/u;
const FIELD_LABEL_ONLY = /^(\p{Lu}[\p{L}\p{N} .'’/&()#-]{0,38}?)\s*:$/u;
const BULLET = /^(?:[-*•·▪◦–+]|\((?:[a-z]|[ivx]{1,4}|\d{1,2})\)|(?:[a-z]|[ivx]{1,4})[.)])\s+(?=\S)/;
// "1. ", "2) ", "4.2 Fees", "Section 3 " — not "12 Baker Street" nor a year ("2025. The ...").
const NUMBERED =
  /^(?:(?:[Ss]ection|SECTION|[Aa]rticle|ARTICLE|[Cc]lause|CLAUSE|§)\s*(\d{1,3}(?:\.\d{1,3})*)[.):]?\s+|((?:\d{1,3}\.)+\d{1,3})\.?\s+(?=\p{Lu})|(\d{1,3})[.)]\s+)(?=\S)/u;
const RULE = /^(?:[-=_*~]\s*){3,}$/;
const PIPE_RULE = /^\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?$/;
const CLOSINGS =
  /^(?:sincerely|yours sincerely|yours faithfully|yours truly|kind regards|best regards|warm regards|regards|best wishes|with best wishes|best|cheers|thanks|thank you|many thanks|respectfully|mit freundlichen grüßen)[,.!]?$/i;
/** A sentence ends here: punctuation, maybe closing quotes or brackets. */
export const ENDS_SENTENCE = /[.!?]["'”’)\]]*$/;
/** Small words that carry a sentence; a row of a table has few of them. */
const PROSE_WORDS = new Set(
  'a an the and or of to in on at by for with from is are was were be been will shall may must this that these those it its we you they he she which who per than as not'.split(
    ' ',
  ),
);

/** The lines of text[from, to), split at \n and form feeds, a trailing \r dropped. */
export function lineSpans(text: string, from = 0, to = text.length): Line[] {
  const lines: Line[] = [];
  let start = from;
  for (let i = from; i <= to; i++) {
    const ch = i < to ? text.charCodeAt(i) : 10;
    if (ch !== 10 && ch !== 12) continue;
    const end = i > start && text.charCodeAt(i - 1) === 13 ? i - 1 : i;
    const raw = text.slice(start, end);
    const lead = /^[\s>]*/.exec(raw)![0];
    // "> " quote marks of a reply are not content; a line of only ">" is blank.
    const content = raw.slice(lead.length).trimEnd();
    lines.push({ start, end, contentStart: start + lead.length, raw, content });
    start = i + 1;
  }
  return lines;
}

/** Each line typed, looking at its neighbours where one line alone cannot tell. */
export function typeLines(lines: Line[]): TypedLine[] {
  const typed: TypedLine[] = lines.map((line) => ({ ...line, type: typeAlone(line) }));
  markPairHeaders(typed);
  markNumericRows(typed);
  markDelimitedRows(typed, ',');
  markDelimitedRows(typed, ';');
  markEmailHeaders(typed);
  markSignatures(typed);
  return typed;
}

/** "For Quayside Estates DAC:", "Signed for and on behalf of the Landlord:": whose signatures follow. */
const PARTY_LEAD_IN =
  /^(?:[Ss]igned\s+)?(?:[Ff]or\s+and\s+)?(?:[Ff]or|[Oo]n behalf of)\s+(?:the\s+)?\p{Lu}[^:]{0,80}:$/u;

function typeAlone(line: Line): LineType {
  const c = line.content;
  if (c === '') return 'blank';
  if ((PIPE_RULE.test(c) && c.includes('|')) || RULE.test(c)) return 'rule';
  if (/^#{1,6}\s+\S/.test(c)) return 'md_heading';
  if (pipeCells(c)) return 'table_row';
  if (columnCells(line.raw)) return 'table_row';
  if (CLOSINGS.test(c)) return 'signature';
  if (fieldParts(c)) return 'field';
  if (BULLET.test(c)) return 'bullet';
  if (NUMBERED.test(c)) return 'numbered';
  return 'text';
}

/** Fills in the parts a line type carries (cells, label and value, list marker). */
export function describeLine(line: TypedLine): TypedLine {
  const c = line.content;
  switch (line.type) {
    case 'table_row':
      line.cells ??= pipeCells(c) ?? columnCells(line.raw) ?? [c];
      break;
    case 'field':
    case 'header_field': {
      const parts = (line.type === 'header_field' ? emailParts(c) : null) ?? fieldParts(c);
      if (parts) {
        line.label = parts.label;
        line.value = parts.value;
      }
      break;
    }
    case 'bullet': {
      const m = BULLET.exec(c)!;
      line.markerEnd = line.contentStart + m[0].length;
      const letter = /^\(?([a-z]|[ivx]{1,4}|\d{1,2})[.)]/.exec(m[0]);
      if (letter) line.number = letter[1];
      break;
    }
    case 'numbered': {
      const m = NUMBERED.exec(c)!;
      line.number = m[1] ?? m[2] ?? m[3];
      line.markerEnd = line.contentStart + m[0].length;
      break;
    }
  }
  return line;
}

// "| a | b |": two or more cells between pipes.
function pipeCells(content: string): string[] | null {
  if (!content.startsWith('|') && (content.match(/ \| /g) ?? []).length < 2) return pairCells(content);
  const cells = content
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
  return cells.length >= 2 ? cells : null;
}

/**
 * "Total due | EUR 2,660.00", "VAT at 16% | 52,112.00": one pipe between a label and a figure, a
 * row of a two-column table written without outer pipes. Not "Tel: … | billing@…" (a field with a
 * second contact after it) nor a pipe in prose.
 */
function pairCells(content: string): string[] | null {
  const parts = content.split(' | ');
  if (parts.length !== 2) return null;
  const [left, right] = parts.map((p) => p.trim()) as [string, string];
  if (!/\p{L}/u.test(left) || /:\s/.test(right) || left.split(/\s+/).length > 20) return null;
  return /\d/.test(right) && right.split(/\s+/).length <= 4 ? [left, right] : null;
}

// "Description | Amount (KES)" over "Quarterly fee | 348,000.00": the words over two-column rows are their header.
function markPairHeaders(lines: TypedLine[]): void {
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1]!;
    if (line.type === 'table_row' || next.type !== 'table_row' || pipeCells(next.content)?.length !== 2) continue;
    const parts = line.content.split(' | ').map((p) => p.trim());
    if (parts.length === 2 && parts.every((p) => /^\p{L}/u.test(p) && p.split(/\s+/).length <= 5)) {
      line.type = 'table_row';
      line.cells = parts;
    }
  }
}

// Columns kept apart by tabs or by runs of spaces (text that was not whitespace-normalised).
function columnCells(raw: string): string[] | null {
  const body = raw.trim();
  if (!/\S(?:\t| {3,}|\t)\S/.test(body) && (body.match(/\S {2}\S/g) ?? []).length < 2) return null;
  const cells = body
    .split(/\t+| {2,}/)
    .map((cell) => cell.trim())
    .filter(Boolean);
  return cells.length >= 2 ? cells : null;
}

function fieldParts(written: string): { label: string; value: string } | null {
  // "**Bill date:** 4 February 2026": Markdown emphasis around a label is no part of it.
  const content = written.replace(/^(\*\*|__)([^*_]{1,60}?:)\1\s*/, '$2 ');
  const m = FIELD.exec(content) ?? FIELD_LABEL_ONLY.exec(content);
  if (!m) return null;
  const label = m[1]!.trim();
  const value = (m[2] ?? '').trim();
  const labelWords = label.split(/\s+/);
  const valueWords = value.split(/\s+/).filter(Boolean).length;
  // "Employer pension contribution this period (3%): 102.50": a longer label is still one when its value is a bare figure.
  const figure = valueWords <= 3 && /\d/.test(value) && !ENDS_SENTENCE.test(value.replace(/\d\.$/, ''));
  const [maxWords, maxProse] = figure ? [8, 2] : [5, 1];
  if (
    label.length > (figure ? 58 : 38) ||
    /%/.test(label.replace(/\(\d+(?:\.\d+)?\s?%\)/, '')) ||
    labelWords.length > maxWords ||
    labelWords.filter((w) => PROSE_WORDS.has(w.toLowerCase())).length > maxProse
  )
    return null;
  // "Note: The supplier shall ..." is a sentence with a lead-in, not a field.
  if (value.length > 80 || (ENDS_SENTENCE.test(value) && valueWords >= 8)) return null;
  // "Premises: the entire second floor of Block C, with a" is a sentence wrapped at the line end.
  if (valueWords >= 6 && (/[,-]$/.test(value) || /\b(?:a|an|the|of|and|or|to|in|by|with|for|on|at)$/i.test(value)))
    return null;
  return { label, value };
}

function emailParts(content: string): { label: string; value: string } | null {
  const m = EMAIL_LABEL.exec(content);
  return m ? { label: m[1]!, value: m[2]!.trim() } : null;
}

// CSV-like rows: two or more adjacent lines cut into the same number (≥ 3) of cells by a delimiter.
function markDelimitedRows(lines: TypedLine[], delimiter: ',' | ';'): void {
  const counts = lines.map((line) =>
    (line.type === 'text' || line.type === 'field') && !readsAsProse(line.content)
      ? cellsBy(line.content, delimiter).length
      : 0,
  );
  for (let i = 0; i < lines.length; i++) {
    const n = counts[i]!;
    if (n < 3) continue;
    if (counts[i - 1] === n || counts[i + 1] === n) {
      lines[i]!.type = 'table_row';
      lines[i]!.cells = cellsBy(lines[i]!.content, delimiter);
    }
  }
}

/**
 * A line carried by small sentence words ("accordance with the schedule, including lubrication,
 * adjustment of"): a wrapped sentence with commas, never a row of cells.
 */
function readsAsProse(content: string): boolean {
  const tokens = content.split(/\s+/).filter(Boolean);
  const prose = tokens.filter((t) => PROSE_WORDS.has(t.toLowerCase().replace(/[^\p{L}]/gu, ''))).length;
  return prose >= 3 && prose / tokens.length >= 0.2;
}

// Splits at a delimiter that is not inside a number ("1,500.00", "9.750,00").
function cellsBy(content: string, delimiter: string): string[] {
  const pattern = delimiter === ',' ? /(?<!\d),|,(?!\d{2,3}(?:\D|$))/ : /;/;
  return content.split(pattern).map((cell) => cell.trim());
}

// Table rows whose column gaps were collapsed into single spaces (normalised PDF or text
// extraction): adjacent short lines of figures (two or more numbers, or ending on one) with
// almost no sentence words, and the header line of words just above them.
function markNumericRows(lines: TypedLine[]): void {
  const numeric = lines.map((line) => line.type === 'text' && looksNumericRow(line.content));
  for (let i = 0; i < lines.length; i++) {
    if (!numeric[i] || !(numeric[i - 1] || numeric[i + 1])) continue;
    lines[i]!.type = 'table_row';
    lines[i]!.cells = [lines[i]!.content];
    const above = lines[i - 1];
    if (above && !numeric[i - 1] && above.type === 'text' && looksHeaderRow(above.content)) {
      above.type = 'table_row';
      above.cells = [above.content];
    }
  }
}

function looksNumericRow(content: string): boolean {
  if (ENDS_SENTENCE.test(content) && !/\d[.]$/.test(content)) return false;
  // A title or dateline whose only figures are a date or a year ("Northern Summit 2026",
  // "Manchester Central, 22-23 September 2026") is a line of words, not a row of figures.
  if (!/\d/.test(content.replace(DATE_IN_LINE, ''))) return false;
  const tokens = content.split(/\s+/);
  if (tokens.length > 14) return false;
  const isNumber = (t: string) => /^[^\p{L}]*\d[\d.,:/%-]*[^\p{L}]*$/u.test(t);
  const numbers = tokens.filter(isNumber).length;
  const prose = tokens.filter((t) => PROSE_WORDS.has(t.toLowerCase())).length;
  return (numbers >= 2 || isNumber(tokens[tokens.length - 1]!)) && prose <= 1;
}

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\\.?';
const DATE_IN_LINE = new RegExp(
  `\\b\\d{1,2}(?:\\s*[-–]\\s*\\d{1,2})?\\s+${MONTH}\\s+(?:19|20)\\d{2}\\b|\\b${MONTH}\\s+\\d{1,2}(?:\\s*[-–]\\s*\\d{1,2})?,?\\s+(?:19|20)\\d{2}\\b|\\b(?:19|20)\\d{2}$`,
  'g',
);

function looksHeaderRow(content: string): boolean {
  const tokens = content.split(/\s+/);
  return (
    tokens.length >= 2 &&
    tokens.length <= 10 &&
    !/\d/.test(content) &&
    !/[.!?:;,]$/.test(content) &&
    tokens.every((t) => /^[\p{Lu}(#%]/u.test(t))
  );
}

// "From:", "To:", "Subject:" lines together make an e-mail header: metadata, not sentences.
function markEmailHeaders(lines: TypedLine[]): void {
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j < lines.length && EMAIL_LABEL.test(lines[j]!.content)) j++;
    if (j - i >= 2) {
      for (let k = i; k < j; k++) lines[k]!.type = 'header_field';
    }
    i = Math.max(j, i + 1);
  }
}

// A letter closing ("Kind regards,") and the short lines after it (name, title, company), a
// "--" signature delimiter and what follows it, or the names and titles under a party's lead-in in
// a contract's signature block ("For Brightwater Analytics Limited:"), which stays a lead-in.
function markSignatures(lines: TypedLine[]): void {
  for (let i = 0; i < lines.length; i++) {
    const partyLeadIn = PARTY_LEAD_IN.test(lines[i]!.content);
    const opener = lines[i]!.type === 'signature' || lines[i]!.content === '--' || partyLeadIn;
    if (!opener) continue;
    if (!partyLeadIn) lines[i]!.type = lines[i]!.content === '--' ? 'rule' : 'signature';
    let taken = 0;
    let blanks = 0;
    for (let j = i + 1; j < lines.length && taken < 5; j++) {
      const line = lines[j]!;
      if (line.type === 'blank') {
        if (taken > 0 || ++blanks > 1) break;
        continue;
      }
      const c = line.content;
      const short =
        c.length <= 60 &&
        (!ENDS_SENTENCE.test(c) || /\b(?:Ltd|Inc|Corp|Co|GmbH|B\.V|S\.A|plc)\.$/.test(c) || c.split(/\s+/).length <= 3);
      if (!short || line.type === 'table_row' || line.type === 'numbered' || line.type === 'md_heading') break;
      line.type = 'signature';
      taken++;
    }
  }
}
