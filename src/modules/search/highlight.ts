import { clauseWords, fold, parseQuery } from './query-syntax.ts';

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
  const parts = passage.split(/(\s+)/).filter((p) => p !== '');
  const tokens = parts.filter((p) => !/^\s+$/.test(p));
  const hit = tokens.map((t) => {
    const f = fold(t).replace(/[^\p{L}\p{N}]/gu, '');
    if (f === '') return false;
    return (
      words.includes(f) ||
      stems.some((s, i) => f.startsWith(s) && f.length <= words[i]!.length + 4) ||
      prefixes.some((p) => f.startsWith(p))
    );
  });
  let bestStart = 0;
  let bestCount = -1;
  for (let start = 0; start < Math.max(1, tokens.length - WINDOW_WORDS + 1); start++) {
    let count = 0;
    for (let i = start; i < Math.min(tokens.length, start + WINDOW_WORDS); i++) if (hit[i]) count++;
    if (count > bestCount) {
      bestCount = count;
      bestStart = start;
    }
  }
  const end = Math.min(tokens.length, bestStart + WINDOW_WORDS);
  const out: string[] = [];
  for (let i = bestStart; i < end; i++) {
    const escaped = tokens[i]!.replace(/[&<>"]/g, (c) => ESCAPES[c]!);
    out.push(hit[i] ? `<mark>${escaped}</mark>` : escaped);
  }
  return `${bestStart > 0 ? '…' : ''}${out.join(' ')}${end < tokens.length ? '…' : ''}`;
}
