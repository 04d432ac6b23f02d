// Plain-text helpers shared by the local AI provider, the chunker and the OpenAI provider:
// sentence splitting with offsets, word tokens, stop words and a light stemmer.

/** A sentence (or a line that stands alone, like a heading or a table row) and where it sits. */
export interface Sentence {
  text: string;
  start: number;
  end: number;
}

/** A word and its offset in the text it came from. */
export interface WordToken {
  text: string;
  lower: string;
  start: number;
}

/** English function words and fillers that carry no topic. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all almost also although am among an and any are aren't as at be because been
  before being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
  during each either else etc even ever every few for from further had hadn't has hasn't have haven't having he he'd
  he'll he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it
  it's its itself just least less let's like may me might more most must mustn't my myself neither no nor not of off
  often on once one only or other ought our ours ourselves out over own per perhaps please rather same shall shan't she
  she'd she'll she's should shouldn't since so some such than that that's the their theirs them themselves then there
  there's these they they'd they'll they're they've this those though through thus to too towards under until unto up
  upon us very via was wasn't we we'd we'll we're we've were weren't what what's whatever when when's where where's
  whether which while who who's whom whose why why's will with within without won't would wouldn't yes yet you you'd
  you'll you're you've your yours yourself yourselves okay ok yeah yep hi hello thanks thank really just sure so well
  also get got go going gone make made many much new use used using s t re ll ve d m`
    .split(/\s+/)
    .filter(Boolean),
);

// Abbreviations whose trailing period does not end a sentence.
const ABBREVIATIONS = new Set(
  `mr mrs ms mx dr prof sr jr st no nos vs etc inc ltd co corp plc llc bv nv sa ag e.g i.e eg ie approx dept est fig
  jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun rev hon gen col capt lt
  sgt ft mt ave blvd rd art pos para ref tel ext attn cf al vol p pp u.s a.m p.m am pm`
    .split(/\s+/)
    .filter(Boolean),
);

const BULLET = /^\s*(?:[-*•·▪◦–]|\d+[.)]|[a-z][.)]|\[\d{1,2}:\d{2}(?::\d{2})?\])\s+/i;

/**
 * Splits text into sentences with offsets. Blank lines always separate; a single line break
 * separates when the line ends a sentence, is short (headings, table rows, slide bullets) or the
 * next line starts a list item; otherwise wrapped lines are joined into one sentence.
 */
export function splitSentences(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  const lines = lineSpans(text);
  let blockStart = -1;
  let blockEnd = -1;
  const flush = () => {
    if (blockStart >= 0) splitBlock(text, blockStart, blockEnd, sentences);
    blockStart = -1;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const content = text.slice(line.start, line.end);
    if (content.trim() === '') {
      flush();
      continue;
    }
    if (blockStart < 0) blockStart = line.start;
    blockEnd = line.end;
    const next = lines[i + 1];
    const nextContent = next ? text.slice(next.start, next.end) : '';
    const trimmed = content.trim();
    const standsAlone =
      /[.!?:;]["')\]]?$/.test(trimmed) ||
      trimmed.length < 50 ||
      BULLET.test(nextContent) ||
      BULLET.test(content) ||
      /[,;\t].*[,;\t].*[,;\t]/.test(trimmed) ||
      // Columns aligned with spaces: a table row.
      /\S {3,}\S/.test(trimmed);
    if (standsAlone) flush();
  }
  flush();
  return sentences;
}

function lineSpans(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const ch = text.charCodeAt(i);
    if (i === text.length || ch === 10 || ch === 12) {
      const end = i > start && text.charCodeAt(i - 1) === 13 ? i - 1 : i;
      spans.push({ start, end });
      start = i + 1;
    }
  }
  return spans;
}

// Splits one block (a paragraph or a lone line) at sentence-final punctuation.
function splitBlock(text: string, from: number, to: number, out: Sentence[]): void {
  const re = /[.!?]+["')\]]*(?=\s+["'([]?[\p{Lu}\p{N}]|\s*$)/gu;
  re.lastIndex = 0;
  const block = text.slice(from, to);
  let start = 0;
  for (let m = re.exec(block); m; m = re.exec(block)) {
    const end = m.index + m[0].length;
    if (m[0] === '.' && endsWithAbbreviation(block, m.index)) continue;
    push(out, text, from + start, from + end);
    start = end;
  }
  push(out, text, from + start, to);
}

function endsWithAbbreviation(block: string, dotIndex: number): boolean {
  const before = /([\p{L}.]+)$/u.exec(block.slice(Math.max(0, dotIndex - 12), dotIndex));
  if (!before) return /\d$/.test(block.slice(0, dotIndex)) && /^\.\d/.test(block.slice(dotIndex));
  const word = before[1]!.toLowerCase();
  // A single capital letter is an initial ("J. Smith"), a dotted acronym ("U.S.") too.
  if (/^\p{Lu}$/u.test(before[1]!) || /^(?:\p{L}\.)+\p{L}$/u.test(word)) return true;
  return ABBREVIATIONS.has(word.replace(/\.$/, ''));
}

function push(out: Sentence[], text: string, start: number, end: number): void {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  if (end > start) out.push({ text: text.slice(start, end), start, end });
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** Word tokens (letters and digits, inner apostrophes kept) with offsets. */
export function words(text: string): WordToken[] {
  const out: WordToken[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m; m = WORD.exec(text)) {
    out.push({ text: m[0], lower: m[0].toLowerCase().replace(/’/g, "'"), start: m.index });
  }
  return out;
}

/** True for tokens that contain a digit (numbers, codes, years). */
export const hasDigit = (word: string) => /\d/.test(word);

/**
 * A light suffix-stripping stemmer: plural, possessive, -ing, -ed and a final -e, so
 * "services"/"service", "agreed"/"agree", "reporting"/"reports" meet. Not Porter: no -ation/-ity rules.
 */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/’/g, "'");
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(?:ss|us|is)$/.test(w)) {
    // "process", "status", "analysis": not plurals
  } else if (/(?:sses|xes|zes|ches|shes)$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s')) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** Stemmed content words of a text: no stop words, no single letters. */
export function contentStems(text: string): string[] {
  const out: string[] = [];
  for (const token of words(text)) {
    if (token.lower.length < 2 || STOP_WORDS.has(token.lower)) continue;
    out.push(stem(token.lower));
  }
  return out;
}

/** Approximate token count used for budgets and chunk sizes (about four characters a token). */
export const approxTokens = (text: string) => Math.ceil(text.length / 4);

/** A 32-bit FNV-1a hash of a string. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
