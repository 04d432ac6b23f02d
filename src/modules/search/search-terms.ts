import { stemmer } from 'stemmer';
import { fold, STOP_WORDS } from './query-syntax.ts';

/**
 * The terms search indexes and queries, the same on both dialects: tokens of letters and digits,
 * folded (case and diacritics), English stop words left out, stemmed with Porter's algorithm (the
 * one FTS5's `porter` tokenizer applies); tokens with digits are kept whole.
 */

const WORD_CHAR = /^[\p{L}\p{N}\p{M}]/u;
const TOKEN = /[\p{L}\p{N}]+/gu;

/** A folded token's term: its Porter stem, or the token itself when it holds a digit. */
export function termOf(token: string): string {
  return /\d/.test(token) ? token : stemmer(token);
}

/** Folded tokens of a query word or phrase (what the vectors and the stemmer take). */
export function foldedTokens(text: string): string[] {
  return fold(text).match(TOKEN) ?? [];
}

const STOP = -1;
const ABSENT = -2;

/**
 * Maps the tokens of texts to term ids, fast: ASCII tokens are hashed while scanning and looked up
 * in an open-addressing table by their characters, so a token seen before costs no string and no
 * stemming (creating and hashing a string per token made loading a large tenant 4× slower). Term
 * ids are dense, in order of first appearance; `terms[id]` is the stem.
 */
export class TermDictionary {
  readonly terms: string[] = [];
  readonly #idOfTerm = new Map<string, number>();
  // Token table: keys (the tokens), their hashes and their term ids (STOP for stop words).
  #keys: (string | undefined)[] = new Array(1 << 12);
  #hashes = new Int32Array(1 << 12);
  #values = new Int32Array(1 << 12);
  #size = 0;

  /** The id of a term (a stem), made when new. */
  idOf(term: string): number {
    let id = this.#idOfTerm.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.#idOfTerm.set(term, id);
    }
    return id;
  }

  /** The id of a term when some text had it, else undefined. */
  find(term: string): number | undefined {
    return this.#idOfTerm.get(term);
  }

  /** Calls `visit` with the term id of each indexed token of `text`, in order. */
  scan(text: string, visit: (id: number) => void): void {
    const lower = text.toLowerCase();
    const n = lower.length;
    let i = 0;
    while (i < n) {
      let c = lower.charCodeAt(i);
      if (!isWordChar(lower, i, c)) {
        i++;
        continue;
      }
      const start = i;
      let ascii = true;
      let hash = 0x811c9dc5 | 0;
      while (i < n) {
        c = lower.charCodeAt(i);
        if (c < 128) {
          if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) break;
        } else if (isWordChar(lower, i, c)) ascii = false;
        else break;
        hash = Math.imul(hash ^ c, 0x01000193);
        i++;
      }
      if (ascii) this.#visitAscii(lower, start, i, hash, visit);
      else for (const token of foldedTokens(lower.slice(start, i))) this.#visitToken(token, visit);
    }
  }

  #visitAscii(lower: string, start: number, end: number, hash: number, visit: (id: number) => void): void {
    const value = this.#lookup(lower, start, end, hash);
    if (value >= 0) visit(value);
    else if (value === ABSENT) {
      const token = lower.slice(start, end);
      const id = STOP_WORDS.has(token) ? STOP : this.idOf(termOf(token));
      this.#insert(token, hash, id);
      if (id >= 0) visit(id);
    }
  }

  #visitToken(token: string, visit: (id: number) => void): void {
    if (STOP_WORDS.has(token)) return;
    visit(this.idOf(termOf(token)));
  }

  #lookup(lower: string, start: number, end: number, hash: number): number {
    const mask = this.#keys.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const key = this.#keys[slot];
      if (key === undefined) return ABSENT;
      if (this.#hashes[slot] !== hash || key.length !== length) continue;
      let same = true;
      for (let k = 0; k < length; k++) {
        if (key.charCodeAt(k) !== lower.charCodeAt(start + k)) {
          same = false;
          break;
        }
      }
      if (same) return this.#values[slot]!;
    }
  }

  #insert(token: string, hash: number, value: number): void {
    if ((this.#size + 1) * 2 > this.#keys.length) this.#grow();
    const mask = this.#keys.length - 1;
    let slot = hash & mask;
    while (this.#keys[slot] !== undefined) slot = (slot + 1) & mask;
    this.#keys[slot] = token;
    this.#hashes[slot] = hash;
    this.#values[slot] = value;
    this.#size++;
  }

  #grow(): void {
    const keys = this.#keys;
    const hashes = this.#hashes;
    const values = this.#values;
    this.#keys = new Array(keys.length * 2);
    this.#hashes = new Int32Array(keys.length * 2);
    this.#values = new Int32Array(keys.length * 2);
    this.#size = 0;
    for (let s = 0; s < keys.length; s++) if (keys[s] !== undefined) this.#insert(keys[s]!, hashes[s]!, values[s]!);
  }
}

function isWordChar(text: string, i: number, c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
  if (c >= 0xd800 && c <= 0xdbff) return WORD_CHAR.test(text.slice(i, i + 2));
  return WORD_CHAR.test(text[i]!);
}
