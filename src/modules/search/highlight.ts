import { type Clause, clauseWords, fold, parseQuery, tokens } from './query-syntax.ts';
import { termOf } from './search-terms.ts';

/**
 * Highlights as the API answers them (docs/search.md): plain text of the passage, HTML-escaped
 * (`&`, `<`, `>`, `"`), with matched words in `<mark>…</mark>` and `…` where the passage was cut.
 */

/** Start and end markers the engines put around matches; neither can occur in extracted text we escape. */
export const MARK_START = '\u0001';
export const MARK_END = '\u0002';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** An engine's snippet with sentinel markers, as the API's escaped `<mark>` form. */
export function markupFromSentinels(snippet: string): string {
  return snippet
    .replace(/[&<>"]/g, (c) => ESCAPES[c]!)
    .replaceAll(MARK_START, '<mark>')
    .replaceAll(MARK_END, '</mark>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Words of the passage kept around the best window. */
const WINDOW_WORDS = 32;

/**
 * A passage (semantic hits) with the query's words marked: the window of ~32 words holding the most
 * matches. A word matches when, folded, it equals a query word or starts with it (a crude stand-in
 * for stemming: "invoice" marks "invoices"), or starts with a `prefix*`.
 */
export function highlightPassage(passage: string, query: string): string {
  const { words, prefixes } = clauseWords(parseQuery(query));
  const stems = words.map((w) => (w.length > 4 ? w.slice(0, Math.max(4, w.length - 2)) : w));
  return markedWindow(passage, (token) => {
    const f = fold(token).replace(/[^\p{L}\p{N}]/gu, '');
    if (f === '') return NO_MATCH;
    const hit =
      words.includes(f) ||
      stems.some((s, i) => f.startsWith(s) && f.length <= words[i]!.length + 4) ||
      prefixes.some((p) => f.startsWith(p));
    // One key for every match: the window with the most matched words wins.
    return hit ? 0 : NO_MATCH;
  });
}

/**
 * A document's text with the query's terms marked (PostgreSQL's keyword highlight, written here
 * instead of by `ts_headline`: docs/search.md): the window of ~32 words holding the most distinct
 * query terms, then the most matches. A word matches when one of its tokens has a query word's term
 * (folded and Porter-stemmed, as the keyword index and `docuvault_search` stem) or starts with a
 * `prefix*`; phrase words match one by one. Without any match, the text's first window (as
 * `ts_headline` answers).
 */
export function highlightDocument(text: string, clauses: Clause[]): string {
  const { words, prefixes } = clauseWords(clauses);
  const keyOfTerm = new Map<string, number>();
  for (const w of words) if (!keyOfTerm.has(termOf(w))) keyOfTerm.set(termOf(w), keyOfTerm.size);
  const prefixKeys = prefixes.map((_, i) => keyOfTerm.size + i);
  // Porter's stemmer only rewrites a word's ending, so a word can hold a query term only when it
  // contains the term less its last letter (or a prefix): one native regex test rules out most words
  // of a text without folding, splitting or stemming them (which cost ~5 µs a word). Words with
  // letters outside ASCII are folded first, so they always take the full path.
  const needles = [...[...keyOfTerm.keys()].map((t) => (t.length > 1 ? t.slice(0, -1) : t)), ...prefixes];
  if (needles.length === 0) return markedWindow(text, () => NO_MATCH);
  const candidate = new RegExp(`${needles.map(escapeRegExp).join('|')}|[^\\x00-\\x7f]`, 'i');
  const termKey = new Map<string, number>();
  const keyOfToken = (token: string): number => {
    let key = termKey.get(token);
    if (key === undefined) {
      key = keyOfTerm.get(termOf(token)) ?? NO_MATCH;
      if (key === NO_MATCH) {
        const p = prefixes.findIndex((prefix) => token.startsWith(prefix));
        if (p >= 0) key = prefixKeys[p]!;
      }
      termKey.set(token, key);
    }
    return key;
  };
  return markedWindow(text, (word) => {
    if (!candidate.test(word)) return NO_MATCH;
    for (const token of tokens(word)) {
      const key = keyOfToken(token);
      if (key !== NO_MATCH) return key;
    }
    return NO_MATCH;
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const NO_MATCH = -1;

/**
 * The window of WINDOW_WORDS words of `text` scoring best (distinct match keys first, then matched
 * words; the first such window), HTML-escaped, matched words in `<mark>`, `…` where the text was cut.
 * `keyOf` gives a word's match key (which query term it matches) or NO_MATCH.
 */
function markedWindow(text: string, keyOf: (word: string) => number): string {
  const trimmed = text.trim();
  const words = trimmed === '' ? [] : trimmed.split(/\s+/);
  const keys = new Int32Array(words.length);
  let keyCount = 0;
  for (let i = 0; i < words.length; i++) {
    keys[i] = keyOf(words[i]!);
    if (keys[i]! >= keyCount) keyCount = keys[i]! + 1;
  }
  // Sliding window: how many words of each key it holds, so each step costs O(1).
  const inWindow = new Int32Array(keyCount);
  let distinct = 0;
  let matched = 0;
  const add = (key: number, by: 1 | -1) => {
    if (key === NO_MATCH) return;
    matched += by;
    inWindow[key]! += by;
    if (by === 1 && inWindow[key] === 1) distinct++;
    if (by === -1 && inWindow[key] === 0) distinct--;
  };
  for (let i = 0; i < Math.min(words.length, WINDOW_WORDS); i++) add(keys[i]!, 1);
  let bestStart = 0;
  let bestScore = distinct * (WINDOW_WORDS + 1) + matched;
  for (let start = 1; start < words.length - WINDOW_WORDS + 1; start++) {
    const leaving = keys[start - 1]!;
    const entering = keys[start + WINDOW_WORDS - 1]!;
    if (leaving === NO_MATCH && entering === NO_MATCH) continue;
    add(leaving, -1);
    add(entering, 1);
    const score = distinct * (WINDOW_WORDS + 1) + matched;
    if (score > bestScore) {
      bestScore = score;
      bestStart = start;
    }
  }
  const end = Math.min(words.length, bestStart + WINDOW_WORDS);
  const out: string[] = [];
  for (let i = bestStart; i < end; i++) {
    const escaped = words[i]!.replace(/[&<>"]/g, (c) => ESCAPES[c]!);
    out.push(keys[i] !== NO_MATCH ? `<mark>${escaped}</mark>` : escaped);
  }
  return `${bestStart > 0 ? '…' : ''}${out.join(' ')}${end < words.length ? '…' : ''}`;
}
