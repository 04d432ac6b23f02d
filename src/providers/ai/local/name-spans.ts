import { STOP_WORDS } from '../text.ts';
import {
  CONNECTORS,
  FOREIGN_CONNECTORS,
  HONORIFICS,
  LEGAL_SUFFIXES,
  LOWER_CASE_HEADS,
  LOWER_CASE_HONORIFICS,
  PARTICLES,
  PLACE_FIRST,
} from './name-words.ts';

// Candidate names: runs of capitalised words on one line ("Harbor & Finch Logistics, Inc.",
// "Joost van der Berg", "Royal National Institute of Blind People"), with what surrounds them.

/** A word of a line, as the span finder sees it. */
export interface NameToken {
  /** As written, or title-cased when the line is all capitals. */
  text: string;
  lower: string;
  start: number;
  end: number;
  capitalised: boolean;
  /** Two to four capitals ("NYSE", "IT"): kept apart from ordinary names. */
  acronym: boolean;
}

/** A run of capitalised words and its surroundings on the line. */
export interface NameSpan {
  tokens: NameToken[];
  start: number;
  end: number;
  line: number;
  /** First words of a sentence: capitalised by grammar, not as names. */
  sentenceStart: boolean;
  /** Line text before and after the span. */
  before: string;
  after: string;
  /** A title ("Dr", "Mr") directly before the span. */
  honorific: string | null;
}

/** A word as names are split into (also how the company gazetteer splits its names). */
export const NAME_TOKEN = /(?:\p{L}\.){2,}|\bA\/S\b|[\p{L}\p{N}]+(?:['’\-&+][\p{L}\p{N}]+)*|[&+]/gu;
const LINE_PREFIX = /^\s*(?:[-*•·▪◦–]\s+|\d+[.)]\s+|\[\d{1,2}:\d{2}(?::\d{2})?\]\s*|>\s*)?/;
/** Legal forms that close a name even in lower case ("Allianz plc"); "a Delaware corporation" describes, it does not name. */
const LOWER_CASE_LEGAL = new Set([
  'plc',
  'ltd',
  'llc',
  'llp',
  'lp',
  'inc',
  'gmbh',
  'ag',
  'bv',
  'nv',
  'dac',
  'sarl',
  'srl',
  'spa',
  'pty',
  'aps',
  'as',
  'sro',
]);
const ABBREVIATED = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'jr',
  'sr',
  'inc',
  'ltd',
  'co',
  'corp',
  'rev',
  'hon',
  'mx',
  'pvt',
  'pty',
  'bhd',
  'sdn',
  'pte',
  'ltda',
  'cia',
  'kft',
  'zrt',
  'san',
  'tic',
  'sp',
]);

/**
 * Candidate spans of every line of the text. Lines of wrapped prose (long, not ending a sentence)
 * are read together with the next line, so a name broken across them stays whole.
 */
export function findNameSpans(text: string): NameSpan[] {
  const spans: NameSpan[] = [];
  const lines = text.split('\n');
  let lineStart = 0;
  for (let i = 0; i < lines.length; ) {
    let joined = lines[i]!;
    let j = i;
    while (j + 1 < lines.length && isWrapped(lines[j]!, lines[j + 1]!)) {
      joined += ` ${lines[j + 1]!}`;
      j++;
    }
    // "María José Fuentes Araya           Cristóbal Undurraga Vial": signature blocks and letterheads
    // set side by side in columns; each column's cell is read as a line of its own.
    const clean = joined.replace(/[\r\f]/g, ' ');
    for (const cell of clean.matchAll(CELL)) spansOfLine(cell[0], lineStart + cell.index, i, spans);
    lineStart += joined.length + 1;
    i = j + 1;
  }
  return spans;
}

/** A column's text: words separated by at most two spaces; three or more spaces or a tab end it. */
const CELL = /[^\t ](?:[^\t ]| {1,2}(?=[^\t ]))*/g;

function isWrapped(line: string, next: string): boolean {
  const trimmed = line.trimEnd();
  return (
    trimmed.length >= 50 &&
    !/[.!?:;]["')\]]?$/.test(trimmed) &&
    /^\s*\p{L}/u.test(next) &&
    // "Witnesses: 1. …": a line opening with a label starts anew.
    !/^\s*\p{L}[\p{L}' /-]{0,30}:(?:\s|$)/u.test(next) &&
    !/[,;\t].*[,;\t]/.test(trimmed) &&
    // Columns (a gap of three spaces or more inside the line) are laid out, not wrapped.
    !/\S {3,}\S/.test(trimmed)
  );
}

function spansOfLine(line: string, offset: number, lineIndex: number, out: NameSpan[]): void {
  const letters = line.replace(/[^\p{L}]/gu, '');
  const shouting = letters.length >= 4 && letters === letters.toUpperCase() && /\p{Lu}/u.test(letters);
  const tokens: NameToken[] = [];
  for (const m of line.matchAll(NAME_TOKEN)) tokens.push(toToken(m[0], m.index, shouting));

  let i = 0;
  while (i < tokens.length) {
    const next = tokens[i + 1];
    if (isHonorific(tokens[i]!, next) && next && (next.capitalised || PARTICLES.has(next.text))) {
      if (/^\.? {1,2}$/.test(line.slice(tokens[i]!.end, next.start))) {
        // The title is context, not part of the name.
        i++;
        continue;
      }
    }
    const startsHere = tokens[i]!.capitalised && !/\d/.test(tokens[i]!.text);
    const particleStart =
      PARTICLES.has(tokens[i]!.text) && honorificBefore(line, tokens, i) !== null && tokens[i + 1]?.capitalised;
    if (!startsHere && !particleStart) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < tokens.length && joins(line, tokens, j)) j++;
    // Trailing connectors belong to the sentence, not the name.
    let end = j;
    while (
      end > i + 1 &&
      !tokens[end - 1]!.capitalised &&
      !LEGAL_SUFFIXES.has(tokens[end - 1]!.lower.replace(/\./g, '')) &&
      !LOWER_CASE_HEADS.has(tokens[end - 1]!.text) &&
      !/^(?:\p{Ll}\.){2,}$/u.test(tokens[end - 1]!.text)
    )
      end--;
    const span = tokens.slice(i, end);
    const first = span[0]!;
    const last = span[span.length - 1]!;
    let spanEnd = last.end;
    if (ABBREVIATED.has(last.lower) && line[spanEnd] === '.') spanEnd++;
    const before = line.slice(0, first.start);
    out.push({
      tokens: span.map((t) => ({ ...t, start: t.start + offset, end: t.end + offset })),
      start: first.start + offset,
      end: spanEnd + offset,
      line: lineIndex,
      sentenceStart: isSentenceStart(before),
      before,
      after: line.slice(spanEnd),
      honorific: honorificBefore(line, tokens, i),
    });
    i = Math.max(end, i + 1);
  }
}

const BRACKETED_FORMS = new Set(['pty', 'pvt', 'private']);

function toToken(raw: string, start: number, shouting: boolean): NameToken {
  const lettersOnly = raw.replace(/[^\p{L}]/gu, '');
  const allCaps = lettersOnly.length > 0 && lettersOnly === lettersOnly.toUpperCase() && /\p{Lu}/u.test(lettersOnly);
  const dotted = /^(?:\p{L}\.){2,}$/u.test(raw);
  const acronym = allCaps && !dotted && lettersOnly.length >= 2 && lettersOnly.length <= 4 && !shouting;
  let text = raw;
  // Long words of a shouted line are title-cased ("LIMITED" → "Limited"); short legal forms stay ("LLC").
  const shortLegal = LEGAL_SUFFIXES.has(raw.toLowerCase()) && raw.length <= 4;
  if (allCaps && !dotted && (shouting || lettersOnly.length >= 5) && !shortLegal) text = titleCase(raw);
  return {
    text,
    lower: raw.toLowerCase().replace(/’/g, "'"),
    start,
    end: start + raw.length,
    capitalised: /^\p{Lu}/u.test(raw) || raw === '&',
    acronym,
  };
}

function titleCase(word: string): string {
  return word.toLowerCase().replace(/(^|[-'’])(\p{L})/gu, (_, sep: string, ch: string) => sep + ch.toUpperCase());
}

// Whether token j continues the span that token j-1 is part of.
function joins(line: string, tokens: NameToken[], j: number): boolean {
  const prev = tokens[j - 1]!;
  const token = tokens[j]!;
  const gap = line.slice(prev.end, token.start);
  if (/\d/.test(token.text)) return false;
  const plainGap = /^ {1,2}$/.test(gap);
  // "Gregory T. Hamilton", "A. Campbell": an initial and its dot stay inside a name.
  const initial =
    /^\p{Lu}$/u.test(prev.text) && token.capitalised && token.text.length > 1 && !STOP_WORDS.has(token.lower);
  const abbreviationGap =
    ((gap === '. ' || gap === '.,' || gap === '., ') && ABBREVIATED.has(prev.lower)) || (gap === '. ' && initial);
  // "Table Bay Timber (Pty) Ltd", "Indus Textiles (Private) Limited": a legal form in brackets, then the rest of it.
  if (
    (gap === ' (' && BRACKETED_FORMS.has(token.lower) && /^\)\s+\p{Lu}/u.test(line.slice(token.end))) ||
    (gap === ') ' && BRACKETED_FORMS.has(prev.lower) && LEGAL_SUFFIXES.has(token.lower.replace(/\./g, '')))
  )
    return true;
  // "Kuehne + Nagel": a plus between two names, as an ampersand.
  if (token.text === '+') return gap === ' ' && prev.capitalised && /^ \p{Lu}/u.test(line.slice(token.end));
  if (prev.text === '+') return gap === ' ' && token.capitalised;
  // "Wisła Data Systems Sp. z o.o.": the Polish form, in three parts.
  if (prev.lower === 'sp' && token.lower === 'z' && gap === '. ') return /^ o\.\s?o\./.test(line.slice(token.end));
  if (prev.lower === 'z' && /^o\.\s?o\.?$/.test(token.lower) && j >= 2 && tokens[j - 2]!.lower === 'sp')
    return gap === ' ';
  // "Elektro Müller GmbH & Co. KG": a partnership of a company carries a second legal form.
  if (LEGAL_SUFFIXES.has(prev.lower.replace(/\./g, '')) && token.text === '&' && /^\s*Co\b/.test(line.slice(token.end)))
    return plainGap;
  if (
    prev.text === '&' &&
    token.lower === 'co' &&
    j >= 2 &&
    LEGAL_SUFFIXES.has(tokens[j - 2]!.lower.replace(/\./g, ''))
  )
    return plainGap;
  // "S.A. de C.V.", "S. de R.L. de C.V.": a Mexican legal form is written in parts joined by "de".
  if (
    token.lower === 'de' &&
    /^\s*(?:C\.V\.|R\.L\.)/.test(line.slice(token.end)) &&
    (prev.lower === 's' || LEGAL_SUFFIXES.has(prev.lower.replace(/\./g, '')) || prev.lower === 'r.l.')
  )
    return gap === ' ' || gap === '. ';
  if (prev.lower === 'de' && /^(?:c\.v\.|r\.l\.)$/.test(token.lower)) return gap === ' ';
  // ", Inc." continues a name; ", CO 80203" is a state in an address.
  const legal = LEGAL_SUFFIXES.has(token.lower.replace(/\./g, ''));
  const suffixGap = /^\.?, ?$/.test(gap) && legal && token.text !== 'CO';
  if (!plainGap && !abbreviationGap && !suffixGap) return false;
  const afterSuffix = LEGAL_SUFFIXES.has(prev.lower.replace(/\./g, ''));
  // "Allied Irish Banks, p.l.c.", "Kestrel Outdoor Gear Pty Ltd", "Zhejiang Summit Bags Co., Ltd.": legal forms close the name.
  if (suffixGap || (legal && (afterSuffix || /^(?:\p{L}\.){2,}$/u.test(token.text)))) return true;
  // ("Orla Druk Sp. z o.o. of Poznań": the Polish form's last part follows a small "z".)
  if (afterSuffix && j >= 2 && (tokens[j - 2]!.capitalised || prev.lower.includes('.'))) {
    // "Acme Ltd Bank"? Suffixes close a company name.
    return false;
  }
  // A title inside a run starts a new name ("Dear Mr Smith").
  // … not inside a Vietnamese place name ("Quận Hai Bà Trưng").
  const inPlaceName = tokens.slice(Math.max(0, j - 3), j).some((t) => PLACE_FIRST.has(t.lower));
  if (isHonorific(token, tokens[j + 1]) && tokens[j + 1]?.capitalised && prev.lower !== 'vice' && !inPlaceName)
    return false;
  if (token.capitalised) return true;
  // "Công ty TNHH …": Vietnamese "company", written with a small second word, opens a company's name.
  if (token.lower === 'ty' && prev.lower === 'công' && tokens[j + 1]?.capitalised) return true;
  // "Allianz plc", "Acme gmbh": a legal form written in lower case still closes the name.
  if (legal && plainGap && prev.capitalised && LOWER_CASE_LEGAL.has(token.lower.replace(/\./g, ''))) return true;
  // "Škoda Auto a.s.", "Nordhavn Logistik ApS": a form written with dots in lower case, or as its country writes it.
  if (plainGap && prev.capitalised && (/^(?:\p{Ll}\.){2,}$/u.test(token.text) || token.text === 'ApS'))
    return LOWER_CASE_LEGAL.has(token.lower.replace(/\./g, ''));
  // "Komerční banka", "Attijariwafa bank": a bank's word written small still closes its name.
  if (plainGap && prev.capitalised && LOWER_CASE_HEADS.has(token.text) && !tokens[j + 1]?.capitalised) return true;
  // "Takbyggarna i Uppsala AB": a small word of another language inside a name a legal form closes.
  if (plainGap && FOREIGN_CONNECTORS.has(token.text)) {
    for (let k = j + 1; k < tokens.length && k <= j + 3; k++) {
      const next = tokens[k]!;
      if (!/^ {1,2}$/.test(line.slice(tokens[k - 1]!.end, next.start)) || !next.capitalised) break;
      if (LEGAL_SUFFIXES.has(next.lower.replace(/\./g, ''))) return true;
    }
  }
  if (CONNECTORS.has(token.lower) || PARTICLES.has(token.lower)) {
    // A connector joins only when a capitalised word follows ("Bank of America", "van der Berg").
    for (let k = j + 1; k < tokens.length && k <= j + 2; k++) {
      const next = tokens[k]!;
      if (!/^ {1,2}$/.test(line.slice(tokens[k - 1]!.end, next.start))) return false;
      if (next.capitalised) return !/\d/.test(next.text);
      if (!(CONNECTORS.has(next.lower) || PARTICLES.has(next.lower))) return false;
    }
  }
  return false;
}

/** A title before a name; "Sri Lanka" is a country, "Don" with a capital a given name. */
function isHonorific(token: NameToken, next: NameToken | undefined): boolean {
  if (LOWER_CASE_HONORIFICS.has(token.text)) return true;
  return HONORIFICS.has(token.lower) && !(token.lower === 'sri' && next?.lower.startsWith('lanka'));
}

function honorificBefore(line: string, tokens: NameToken[], i: number): string | null {
  const prev = tokens[i - 1];
  if (!prev || !isHonorific(prev, tokens[i])) return null;
  const gap = line.slice(prev.end, tokens[i]!.start);
  return /^\.? {1,2}$/.test(gap) ? prev.text : null;
}

function isSentenceStart(before: string): boolean {
  const rest = before.replace(LINE_PREFIX, '');
  return /^\s*["'“‘([]?$/.test(rest) || /[.!?:;]["'”’)\]]?\s+["'“‘([]?$/.test(rest) || /^[^\p{L}]*$/u.test(rest);
}
