/**
 * The keyword query language (docs/search.md): words (all must match, stemmed), `"exact phrases"`,
 * `prefix*`; everything else is text. A user query is parsed into clauses and then written in each
 * engine's own syntax from those clauses only, so no user text ever reaches FTS5 or `to_tsquery`
 * as syntax and no query can fail to parse.
 */

export type Clause =
  | { kind: 'word'; text: string }
  | { kind: 'prefix'; text: string }
  | { kind: 'phrase'; words: string[] };

/** At most this many clauses are searched (longer queries are cut: every clause costs a posting list). */
export const MAX_CLAUSES = 12;
/** A prefix shorter than this would expand to most of the vocabulary; it is searched as a word. */
const MIN_PREFIX = 2;

/** English stop words: left out of keyword queries (not of phrases) unless the query has nothing else. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does doing ' +
    'down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more ' +
    'most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that the their ' +
    'theirs them themselves then there these they this those through to too under until up very was we were what when where which while who whom why ' +
    'will with would you your yours yourself yourselves'
  ).split(' '),
);

/** Lower case without diacritics ("Résumé" → "resume"), as both engines fold. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** The word tokens of a text, folded: runs of letters and digits. */
export function tokens(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Parses a user query into clauses; an empty list means nothing searchable was written. */
export function parseQuery(query: string): Clause[] {
  const clauses: Clause[] = [];
  const stopped: Clause[] = [];
  // A quoted run (an unterminated quote runs to the end), or a run of anything but spaces and quotes.
  for (const match of query.matchAll(/"([^"]*)"?|[^\s"]+/g)) {
    if (match[1] !== undefined) {
      const words = tokens(match[1]);
      if (words.length === 1) clauses.push({ kind: 'word', text: words[0]! });
      else if (words.length > 1) clauses.push({ kind: 'phrase', words });
      continue;
    }
    const raw = match[0];
    const words = tokens(raw);
    if (words.length === 0) continue;
    if (words.length > 1) {
      // "e-mail", "U.S.", "2026-03-01": the engines split these into adjacent tokens, so they are phrases.
      clauses.push({ kind: 'phrase', words });
      continue;
    }
    const word = words[0]!;
    if (raw.endsWith('*') && word.length >= MIN_PREFIX) clauses.push({ kind: 'prefix', text: word });
    else if (STOP_WORDS.has(word)) stopped.push({ kind: 'word', text: word });
    else clauses.push({ kind: 'word', text: word });
  }
  const chosen = clauses.length > 0 ? clauses : stopped;
  return dedupe(chosen).slice(0, MAX_CLAUSES);
}

function dedupe(clauses: Clause[]): Clause[] {
  const seen = new Set<string>();
  return clauses.filter((c) => {
    const key = c.kind === 'phrase' ? `p:${c.words.join(' ')}` : `${c.kind}:${c.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The words a clause list searches for (for highlighting outside the engines). */
export function clauseWords(clauses: Clause[]): { words: string[]; prefixes: string[] } {
  const words: string[] = [];
  const prefixes: string[] = [];
  for (const c of clauses) {
    if (c.kind === 'word') words.push(c.text);
    else if (c.kind === 'prefix') prefixes.push(c.text);
    else words.push(...c.words.filter((w) => !STOP_WORDS.has(w)));
  }
  return { words, prefixes };
}

/** An FTS5 MATCH expression: every token a quoted string (never an operator), clauses joined by AND or OR. */
export function toFts5(clauses: Clause[], join: 'all' | 'any' = 'all'): string {
  const parts = clauses.map((c) => {
    if (c.kind === 'word') return `"${c.text}"`;
    if (c.kind === 'prefix') return `"${c.text}"*`;
    return `"${c.words.join(' ')}"`;
  });
  return parts.join(join === 'all' ? ' AND ' : ' OR ');
}

/** A `to_tsquery` text: quoted lexemes, `:*` prefixes, `<->` phrases, joined by `&` or `|`. */
export function toTsquery(clauses: Clause[], join: 'all' | 'any' = 'all'): string {
  const parts = clauses.map((c) => {
    if (c.kind === 'word') return `'${c.text}'`;
    if (c.kind === 'prefix') return `'${c.text}':*`;
    return `(${c.words.map((w) => `'${w}'`).join(' <-> ')})`;
  });
  return parts.join(join === 'all' ? ' & ' : ' | ');
}
