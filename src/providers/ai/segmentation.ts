// One segmentation of extracted text for every reader: passages (chunking.ts), summaries, key
// phrases and chat answers all see the same units. It is built for text as extraction leaves it:
// PDF lines wrapped mid-sentence (and mid-word, with a hyphen), numbered clauses, tables (pipes,
// tabs, aligned or collapsed columns), headings, e-mail headers, "Label: value" lines and
// signatures. Offsets always point into the source; `text` is the unit made readable.

import { describeLine, ENDS_SENTENCE, lineSpans, type TypedLine, typeLines } from './segment-lines.ts';

/** What a segment is. */
export type SegmentKind =
  /** Prose. */
  | 'sentence'
  /** A sentence of a numbered clause ("1. The term ... ends on February 28, 2026."). */
  | 'clause'
  /** A bulleted item, or a short numbered one. */
  | 'list_item'
  | 'heading'
  /** One row of a table; `cells` holds its cells, `header` the column names when known. */
  | 'table_row'
  /** From:, To:, Subject:, Date: of an e-mail: metadata, not sentences. */
  | 'header_field'
  /** A "Label: value" line ("Total due: EUR 2,660.00"). */
  | 'field'
  /** A letter closing and the name, title and company lines after it. */
  | 'signature'
  /** A short line standing alone that is none of the above (an address line, a page footer). */
  | 'line';

/** A unit of a text: a sentence, a row, a field, a heading... */
export interface Segment {
  kind: SegmentKind;
  /** Readable: wrapped lines joined, hyphenated breaks mended, list markers and table pipes dropped. */
  text: string;
  /** Offsets of the unit in the source (list markers included): `source.slice(start, end)`. */
  start: number;
  end: number;
  /** 1-based page, when pages were given. */
  page: number | null;
  /** The number of a clause or list item ("1", "4.2", "b"). */
  number?: string;
  /** The label and value of a field or e-mail header. */
  label?: string;
  value?: string;
  cells?: string[];
  header?: string[];
}

/** A sentence (or a line that stands alone, like a heading or a table row) as the source has it. */
export interface Sentence {
  text: string;
  start: number;
  end: number;
}

/** Where each page sits in a text. */
export interface PageSection {
  start: number;
  end: number;
  page: number | null;
}

export interface SegmentOptions {
  /** The text of each page, in order; the text is their concatenation (any separator). */
  pages?: string[] | null;
}

/** A line this long that does not end a sentence was wrapped: the sentence goes on below. */
const WRAP_MIN = 45;
/** Words a line cannot end on unless its sentence goes on. */
const OPEN_ENDING =
  /\b(?:and|or|of|the|a|an|to|on|in|for|with|by|at|from|between|per|than|under|within|into|that|which|is|are|was|be|shall|will|may|must|not|no|its|their|our|your|this|these|USD|EUR|GBP|CHF)$/i;

// Abbreviations whose trailing period does not end a sentence.
const ABBREVIATIONS = new Set(
  `mr mrs ms mx dr prof sr jr st no nos vs etc inc ltd co corp plc llc bv nv sa ag e.g i.e eg ie approx dept est fig
  jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun rev hon gen col capt lt
  sgt ft mt ave blvd rd art pos para ref tel ext attn cf al vol p pp u.s a.m p.m am pm sec cl`
    .split(/\s+/)
    .filter(Boolean),
);
// Of those, the ones a sentence often ends with: before a capitalised word, their period ends it.
const FINAL_ABBREVIATIONS = new Set(['etc', 'a.m', 'p.m', 'inc', 'ltd', 'co', 'corp', 'plc', 'llc']);

/** The segments of a text, in order; each page is segmented alone, so a segment never spans two. */
export function segmentText(text: string, options: SegmentOptions = {}): Segment[] {
  const out: Segment[] = [];
  for (const section of pageSections(text, options.pages)) segmentSection(text, section, out);
  return out;
}

/** Sentences and standalone lines as the source writes them (the older view, for callers that want source slices). */
export function splitSentences(text: string): Sentence[] {
  return segmentText(text).map((s) => ({ text: text.slice(s.start, s.end), start: s.start, end: s.end }));
}

/** Page sections of a text: each page located in order; without pages, the whole text. */
export function pageSections(text: string, pages: readonly string[] | null | undefined): PageSection[] {
  if (!pages || pages.length === 0) return [{ start: 0, end: text.length, page: null }];
  const starts: number[] = [];
  let cursor = 0;
  for (const page of pages) {
    const probe = page.trim().slice(0, 64);
    const found = probe ? text.indexOf(probe, cursor) : -1;
    const start = found >= 0 ? found : cursor;
    starts.push(start);
    cursor = Math.min(text.length, start + page.trim().length);
  }
  return starts.map((start, i) => ({ start, end: i + 1 < starts.length ? starts[i + 1]! : text.length, page: i + 1 }));
}

type Emit = (segment: Omit<Segment, 'page'>) => void;

/** Lines read together as one run of prose, a clause or a list item. */
interface Block {
  kind: 'prose' | 'clause' | 'list_item';
  lines: TypedLine[];
  number?: string;
  markerEnd?: number;
}

function segmentSection(text: string, section: PageSection, out: Segment[]): void {
  const lines = typeLines(lineSpans(text, section.start, section.end)).map(describeLine);
  const emit: Emit = (segment) => out.push({ ...segment, page: section.page });
  let block: Block | null = null;
  let lastNumber: number[] | null = null;
  let header: string[] | null = null;
  const flush = () => {
    if (block) emitBlock(text, block, emit);
    block = null;
  };
  // A "Label: value" line, of the body or of a header block, as one segment of its own.
  const emitField = (line: TypedLine, kind: 'field' | 'header_field') =>
    emit({
      kind,
      text: readable(text, line.contentStart, line.end),
      start: line.contentStart,
      end: line.end,
      ...(line.label !== undefined ? { label: line.label, value: line.value ?? '' } : {}),
    });
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // A sentence wrapped mid-way goes on, whatever its next line looks like alone ("Premises: …", "2 …").
    const open = (block as Block | null)?.lines.at(-1);
    if (open && wrapsInto(open, line)) line.type = 'text';
    if (line.type !== 'table_row' && line.type !== 'rule') header = null;
    switch (line.type) {
      case 'blank': {
        // A Word file written from wrapped text has a paragraph per line: "… refunded in full less an"
        // and "administration charge of EUR 60." are one sentence, whatever the blank between them.
        const open = (block as Block | null)?.lines.at(-1);
        const next = lines.slice(i + 1).find((l) => l.type !== 'blank');
        if (open && next && wrapsOn(open, next)) break;
        flush();
        break;
      }
      case 'rule':
        flush();
        break;
      case 'md_heading':
        flush();
        emit({
          kind: 'heading',
          text: line.content.replace(/^#+\s*/, '').replace(/\s*#+$/, ''),
          start: line.contentStart,
          end: line.end,
        });
        break;
      case 'table_row': {
        flush();
        const cells = line.cells ?? [line.content];
        if (header === null && isHeaderRow(lines, i)) {
          header = cells;
          emit({
            kind: 'table_row',
            text: cells.filter(Boolean).join('; '),
            start: line.contentStart,
            end: line.end,
            cells,
          });
          break;
        }
        emit({ ...tableRow(cells, header), start: line.contentStart, end: line.end });
        break;
      }
      case 'field':
        // "Endorsements: the fryer must be fitted with an automatic fire suppression" wrapped
        // mid-sentence in a PDF: the sentence goes on below, so it is prose, not a one-line field.
        if (wrapsOn(line, lines[i + 1])) {
          flush();
          block = { kind: 'prose', lines: [line] };
          break;
        }
        flush();
        emitField(line, 'field');
        break;
      case 'header_field':
        flush();
        emitField(line, 'header_field');
        break;
      case 'signature':
        flush();
        emit({
          kind: 'signature',
          text: readable(text, line.contentStart, line.end),
          start: line.contentStart,
          end: line.end,
        });
        break;
      case 'bullet':
        flush();
        block = { kind: 'list_item', lines: [line], number: line.number, markerEnd: line.markerEnd };
        break;
      case 'numbered': {
        const number = line.number!.split('.').map(Number);
        const previous: TypedLine | undefined = (block as Block | null)?.lines.at(-1);
        // "…ends on\n2. February" is not a new clause unless 2 is the next number.
        if (block && previous && !endsUnit(previous.content) && !follows(lastNumber, number)) {
          block.lines.push(line);
          break;
        }
        flush();
        lastNumber = number;
        if (isNumberedHeading(text, lines, i)) {
          emit({
            kind: 'heading',
            text: readable(text, line.markerEnd!, line.end),
            start: line.contentStart,
            end: line.end,
            number: line.number,
          });
          break;
        }
        block = { kind: 'clause', lines: [line], number: line.number, markerEnd: line.markerEnd };
        break;
      }
      default: {
        const previous: TypedLine | undefined = (block as Block | null)?.lines.at(-1);
        if (block && previous && continues(previous, line)) block.lines.push(line);
        else {
          flush();
          block = { kind: 'prose', lines: [line] };
        }
      }
    }
  }
  flush();
}

/**
 * A table row as a readable unit. Under a header that names its columns, "column: value" for each
 * cell ("Item: Widgets; Qty: 4; Price: EUR 10.00"); a row of a label and one value (a two-column
 * table, a totals row of an aligned table, "Total due | EUR 2,660.00") is a "label: value" unit,
 * labelled like a field, so "what is the total due" finds it by its label.
 */
function tableRow(cells: string[], header: string[] | null): Omit<Segment, 'start' | 'end' | 'page'> {
  const filled = cells.filter(Boolean);
  const named = header !== null && header.length === cells.length && header.filter(Boolean).length > 1;
  const pair = filled.length === 2 && /\p{L}/u.test(filled[0]!) && filled[0]!.split(/\s+/).length <= 20;
  // The header stays with the row: a currency named only in a column title ("Amount (KES)") is its unit.
  const kept = header ? { header } : {};
  // In a wider table, the column names say what each of the two filled cells is.
  if (named && !(pair && (!cells[0] || cells.length === 2))) {
    const text = cells
      .map((c, k) => (!c ? '' : header![k] ? `${header![k]}: ${c}` : c))
      .filter(Boolean)
      .join('; ');
    return { kind: 'table_row', text, cells, ...kept };
  }
  if (pair)
    return {
      kind: 'table_row',
      text: `${filled[0]!.replace(/:$/, '')}: ${filled[1]}`,
      cells,
      label: filled[0]!.replace(/:$/, ''),
      value: filled[1]!,
      ...kept,
    };
  return { kind: 'table_row', text: filled.join('; '), cells, ...kept };
}

// A long line left mid-sentence, followed by a field, signature or collapsed row line that may be
// its continuation (pipes, tabs, bullets and numbered items stay structure).
function wrapsInto(previous: TypedLine, line: TypedLine): boolean {
  if (endsUnit(previous.content) || previous.content.length < WRAP_MIN) return false;
  if (labelLine(previous.content) && labelLine(line.content) && !OPEN_ENDING.test(previous.content)) return false;
  if (line.type === 'field' || line.type === 'signature') return true;
  return line.type === 'table_row' && (line.cells?.length ?? 0) <= 1;
}

/** A long line left open whose next line starts in lower case: one sentence wrapped. */
function wrapsOn(line: TypedLine, next: TypedLine | undefined): boolean {
  if (next?.type !== 'text' || endsUnit(line.content) || line.content.length < WRAP_MIN) return false;
  return /^\p{Ll}/u.test(next.content);
}

// A sentence that ends on a line ends its unit; so does a lead-in ending with a colon.
function endsUnit(content: string): boolean {
  return ENDS_SENTENCE.test(content) || /[:;]$/.test(content);
}

/** Whether `next` carries on the sentence that `previous` (the block's last line) left open. */
function continues(previous: TypedLine, next: TypedLine): boolean {
  const p = previous.content;
  const n = next.content;
  if (/\p{L}-$/u.test(p) && /^\p{Ll}/u.test(n)) return true;
  if (endsUnit(p)) return false;
  // A title in capitals does not run into the sentence below it.
  if (shouting(p) !== shouting(n)) return false;
  // "Dear Ms Jones," and address lines end with a comma and stand alone.
  if (p.endsWith(',') && p.length < WRAP_MIN) return false;
  // "Approved for the Employer by …: Sunita Mehra" over "Accepted for the Contractor: Tom Brackley": label lines, one each.
  if (labelLine(p) && labelLine(n) && !OPEN_ENDING.test(p)) return false;
  if (p.length >= WRAP_MIN || OPEN_ENDING.test(p)) return true;
  return /^\p{Ll}/u.test(n);
}

/** A line opening with a label of a few words and a colon, its value after it. */
function labelLine(content: string): boolean {
  return /^\p{Lu}[^:.!?]{2,60}:\s+\S/u.test(content) && !/,$/.test(content);
}

function shouting(content: string): boolean {
  const letters = content.replace(/[^\p{L}]/gu, '');
  return letters.length >= 4 && letters === letters.toUpperCase();
}

/** Whether a number comes next after `last`: the next sibling at any depth, or the first child. */
function follows(last: number[] | null, n: number[]): boolean {
  if (!last) return n[n.length - 1] === 1;
  for (let depth = 0; depth < last.length; depth++) {
    if (n.length === depth + 1 && n[depth] === last[depth]! + 1 && last.slice(0, depth).every((x, k) => n[k] === x))
      return true;
  }
  return n.length === last.length + 1 && n[n.length - 1] === 1 && last.every((x, k) => n[k] === x);
}

// "3. Payment Terms": short, title-like, no sentence; unless short numbered lines follow (a list).
function isNumberedHeading(text: string, lines: TypedLine[], i: number): boolean {
  const line = lines[i]!;
  const content = text.slice(line.markerEnd!, line.end).trim();
  if (content.length > 60 || /[.!?,;]$/.test(content) || OPEN_ENDING.test(content) || !/^\p{Lu}/u.test(content))
    return false;
  const words = content.split(/\s+/);
  if (words.length > 8) return false;
  const next = lines.slice(i + 1).find((l) => l.type !== 'blank');
  // "3. Offline mode" over "The meeting agreed to …": a short numbered line in sentence case that a
  // paragraph follows titles it, as minutes and reports number their topics.
  if (!titleLike(words))
    return (
      words.length <= 6 &&
      !/[:]/.test(content) &&
      next?.type === 'text' &&
      /^\p{Lu}/u.test(next.content) &&
      next.content.length > 40
    );
  if (!next) return true;
  if (next.type === 'text' && /^\p{Ll}/u.test(next.content)) return false;
  if (next.type === 'numbered' && next.number!.split('.').length === line.number!.split('.').length) {
    return text.slice(next.markerEnd!, next.end).trim().length > 60;
  }
  return true;
}

function titleLike(words: string[]): boolean {
  const long = words.filter((w) => w.length > 3);
  if (long.length === 0) return true;
  return long.filter((w) => /^[\p{Lu}\d]/u.test(w)).length >= long.length * 0.6;
}

// The first row of a table is its header when a rule follows it, or when it has no digits and
// the row below does.
function isHeaderRow(lines: TypedLine[], i: number): boolean {
  const next = lines[i + 1];
  if (!next) return false;
  if (next.type === 'rule' && lines[i + 2]?.type === 'table_row') return true;
  if (lines[i - 1]?.type === 'table_row') return false;
  const cells = lines[i]!.cells ?? [];
  return (
    next.type === 'table_row' &&
    !/\d/.test(cells.join(' ')) &&
    /\d/.test(next.content) &&
    (next.cells?.length ?? 0) === cells.length
  );
}

function emitBlock(text: string, block: Block, emit: Emit): void {
  const first = block.lines[0]!;
  const last = block.lines[block.lines.length - 1]!;
  const bodyStart = block.markerEnd ?? first.contentStart;
  const sentences = splitAtSentenceEnds(text, bodyStart, last.end);
  const extra = block.number !== undefined ? { number: block.number } : {};
  if (
    block.kind === 'prose' &&
    block.lines.length === 1 &&
    sentences.length === 1 &&
    !ENDS_SENTENCE.test(first.content)
  ) {
    const s = sentences[0]!;
    const kind =
      headingLike(first.content) || sentenceCaseTitle(first.content)
        ? 'heading'
        : wordCount(text, s.start, s.end) < 8
          ? 'line'
          : 'sentence';
    emit({ kind, text: readable(text, s.start, s.end), start: s.start, end: s.end });
    return;
  }
  const kind =
    block.kind === 'prose'
      ? 'sentence'
      : block.kind === 'list_item' || wordCount(text, bodyStart, last.end) < 8
        ? 'list_item'
        : 'clause';
  // "7. Security. The facility is secured by …": a run-in title is the label of the sentence it
  // opens, not a sentence of its own.
  const title = block.kind === 'clause' && sentences.length > 1 ? runInTitle(sentences[0]!.text) : null;
  sentences.forEach((s, k) => {
    if (title !== null && k === 0) return;
    const opensBlock = k === 0 || (title !== null && k === 1);
    const from = title !== null && k === 1 ? sentences[0]!.start : s.start;
    emit({
      kind,
      text: readable(text, from, s.end),
      start: opensBlock ? first.contentStart : s.start,
      end: s.end,
      ...extra,
      ...(title !== null && k === 1 ? { label: title } : {}),
    });
  });
}

/** The title of a clause that opens with one ("Security.", "Personal data breaches."), without its period; else null. */
function runInTitle(sentence: string): string | null {
  const m = /^(\p{Lu}[\p{L}'’-]*(?:[ \t]+[\p{L}'’-]+){0,4})\.$/u.exec(sentence.trim());
  if (!m) return null;
  // A short sentence with a verb ("Time is of the essence.") is no title.
  return /\b(?:is|are|was|were|be|has|have|had|shall|will|may|must|can|does|do|applies|apply)\b/i.test(m[1]!)
    ? null
    : m[1]!;
}

/**
 * "Training sessions", "Evacuation drill": a short line standing alone in sentence case, no figure or
 * punctuation, with a lower-case word (so not a name such as "Adaeze Oyelaran"), titles what follows.
 */
function sentenceCaseTitle(content: string): boolean {
  const words = content.split(/\s+/);
  if (words.length < 2 || words.length > 5 || !/^\p{Lu}/u.test(content) || /[\d.,;:!?()]/.test(content)) return false;
  const lower = words.slice(1).filter((w) => /^\p{Ll}{4,}$/u.test(w));
  return lower.length > 0 && words.filter((w) => PROSE_WORDS_SET.has(w.toLowerCase())).length <= 1;
}
const PROSE_WORDS_SET = new Set(
  'a an the and or of to in on at by for with from is are was were be will shall may must this that it we you they'.split(
    ' ',
  ),
);

function headingLike(content: string): boolean {
  if (/[,;]$/.test(content) || content.length > 80 || labelLine(content)) return false;
  const words = content.replace(/:$/, '').split(/\s+/);
  // A leading clause number and a trailing year ("Northern Logistics Summit 2026", "Annual Report
  // 2024/25") belong to a title; any other figure makes a line of data.
  const bare = content.replace(/^[\d.]+\s+/, '').replace(/\s(?:19|20)\d{2}(?:[/–-](?:\d{2}|(?:19|20)\d{2}))?$/, '');
  if (words.length > 10 || /\d/.test(bare)) return false;
  return shouting(content) || (/^\p{Lu}/u.test(content) && titleLike(words));
}

function wordCount(text: string, start: number, end: number): number {
  return text.slice(start, end).split(/\s+/).filter(Boolean).length;
}

/** Sentence spans of text[from, to) (trimmed), split at sentence-final punctuation. */
function splitAtSentenceEnds(text: string, from: number, to: number): Sentence[] {
  const out: Sentence[] = [];
  const block = text.slice(from, to);
  const re = /[.!?]+["'”’)\]]*(?=\s+["'“‘([]?[\p{Lu}\p{N}]|\s*$)/gu;
  let start = 0;
  for (let m = re.exec(block); m; m = re.exec(block)) {
    const end = m.index + m[0].length;
    if (m[0] === '.' && endsWithAbbreviation(block, m.index) && !endsSentenceAnyway(block, m.index)) continue;
    if (m[0] === '.' && unitBeforeFigure(block, m.index)) continue;
    pushTrimmed(out, text, from + start, from + end);
    start = end;
  }
  pushTrimmed(out, text, from + start, to);
  return out;
}

function endsWithAbbreviation(block: string, dotIndex: number): boolean {
  const before = /([\p{L}.]+)$/u.exec(block.slice(Math.max(0, dotIndex - 12), dotIndex));
  if (!before) return /\d$/.test(block.slice(0, dotIndex)) && /^\.\d/.test(block.slice(dotIndex));
  const word = before[1]!.toLowerCase();
  // A single capital letter is an initial ("J. Smith"), a dotted acronym ("U.S.") too.
  if (/^\p{Lu}$/u.test(before[1]!) || /^(?:\p{L}\.)+\p{L}$/u.test(word)) return true;
  return ABBREVIATIONS.has(word.replace(/\.$/, ''));
}

// "Kshs. 185,000", "Rs. 4,500", "Nr. 12": a short capitalised abbreviation (a currency, a unit) before a figure.
function unitBeforeFigure(block: string, dotIndex: number): boolean {
  return (
    /(?:^|[\s(])\p{Lu}\p{Ll}{0,4}$/u.test(block.slice(Math.max(0, dotIndex - 7), dotIndex)) &&
    /^\.\s+\d/.test(block.slice(dotIndex))
  );
}

// "… 8 a.m. to 4:30 p.m. If you are …": a final abbreviation before a capitalised word that is not a name-like continuation.
function endsSentenceAnyway(block: string, dotIndex: number): boolean {
  const word = /([\p{L}.]+)$/u.exec(block.slice(Math.max(0, dotIndex - 12), dotIndex))?.[1]?.toLowerCase();
  return (
    word !== undefined &&
    FINAL_ABBREVIATIONS.has(word) &&
    /^\.\s+(?:The|If|We|You|I|It|This|Please|Our|They|He|She|In|On|For|All|Any|A|An)\b/.test(block.slice(dotIndex))
  );
}

function pushTrimmed(out: Sentence[], text: string, start: number, end: number): void {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  if (end > start) out.push({ text: text.slice(start, end), start, end });
}

/** A span as one line: a word broken by a hyphen at a line end mended, line breaks and quote marks made spaces. */
function readable(text: string, start: number, end: number): string {
  return text
    .slice(start, end)
    .replace(/(\p{L})-[ \t]*\r?\n[\s>]*(?=\p{Ll})/gu, '$1')
    .replace(/[ \t]*(?:\r?\n|\f)[\s>]*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
