// Plain-text helpers shared by the local AI provider, the chunker and the OpenAI provider:
// word tokens, stop words and a light stemmer. Sentences come from segmentation.ts.

export { type Sentence, splitSentences } from './segmentation.ts';

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
