import { TermDictionary } from './search-terms.ts';

/**
 * One tenant's documents as an inverted index in memory (docs/search.md, "Keyword scoring"): per
 * term, the documents holding it and how often; per document, its length. Every statistic BM25
 * reads — the number of documents, their average length, a term's document frequency — is the
 * tenant's own, so no score or rank of one tenant depends on another tenant's documents, and both
 * dialects rank identically (the database only says what changed).
 *
 * Documents live in slots; replacing one frees its slot (its postings are skipped until the next
 * compaction, once dead slots are a third of the whole).
 */

/** Term frequencies are capped here (a Uint16 per posting). */
const MAX_TF = 65_535;

/** One term of a query concept and how much an occurrence counts (1 exact, below 1 a neighbour). */
export interface WeightedTerm {
  id: number;
  weight: number;
}

/** A query clause as the index scores it: the terms that count for it, and which documents may match (phrases). */
export interface Concept {
  terms: WeightedTerm[];
  /** Slots allowed to match this concept (a phrase verified by the database); null: any. */
  only?: Uint8Array | null;
  /** All terms must occur (a phrase's words); the concept's frequency is then their least. */
  conjunctive?: boolean;
}

export interface ScoringOptions {
  /** BM25's term-frequency saturation and length normalisation. */
  k1: number;
  b: number;
  /** Documents the caller may see (slot mask); null: every document. */
  mask: Uint8Array | null;
  /** `all`: only documents matching every concept exactly; `any`: any concept, exactly or softly. */
  join: 'all' | 'any';
  limit: number;
  /** Documents to score whatever their rank (slots), for hybrid's other arm; others are not returned. */
  only?: Set<number> | null;
  /**
   * Multiply by the idf-weighted share of concepts the document holds at all (the classic
   * coordination factor): a document holding every word keeps its score, one holding a few
   * incidental words of a longer query falls steeply (keyword scores, so that in hybrid search the
   * words a paraphrase happens to share do not outweigh its meaning).
   */
  coordination?: boolean;
}

/** A scored document: `score` in [0, 1] (idf-weighted coverage of the query, see `score`), `exact` the concepts it holds exactly. */
export interface LexicalHit {
  slot: number;
  score: number;
  /** Plain BM25 of the exact terms. */
  bm25: number;
  /** The keyword score of the exact terms alone (with the coordination factor): what keyword search scores this document. */
  keyword: number;
  exactConcepts: number;
  concepts: number;
}

export class LexicalIndex {
  readonly dictionary = new TermDictionary();
  /** The tenant's change version this index reflects (search_state.version). */
  version = 0;
  #postDocs: Int32Array[] = [];
  #postTf: Uint16Array[] = [];
  #postLen: number[] = [];
  #docLen = new Int32Array(64);
  #slotDoc: (string | null)[] = [];
  readonly #slotOf = new Map<string, number>();
  #live = 0;
  #dead = 0;
  #totalLength = 0;
  #postings = 0;

  get documents(): number {
    return this.#live;
  }

  /** Approximate bytes held: postings (6 bytes each, lists grown by doubling), lengths, scratch, ~100 bytes a term. */
  get bytes(): number {
    return this.#postings * 9 + this.#docLen.byteLength + (this.#scratchArrays?.size ?? 0) * 65 + this.dictionary.terms.length * 100;
  }

  documentOf(slot: number): string | null {
    return this.#slotDoc[slot] ?? null;
  }

  slotOf(documentId: string): number | undefined {
    return this.#slotOf.get(documentId);
  }

  /** Sets a document's text (null or empty removes it). */
  put(documentId: string, text: string | null): void {
    this.remove(documentId);
    if (!text) return;
    const counts = new Map<number, number>();
    let length = 0;
    this.dictionary.scan(text, (id) => {
      counts.set(id, (counts.get(id) ?? 0) + 1);
      length++;
    });
    if (length === 0) return;
    const slot = this.#slotDoc.length;
    this.#slotDoc.push(documentId);
    this.#slotOf.set(documentId, slot);
    if (slot >= this.#docLen.length) {
      const grown = new Int32Array(this.#docLen.length * 2);
      grown.set(this.#docLen);
      this.#docLen = grown;
    }
    this.#docLen[slot] = length;
    this.#live++;
    this.#totalLength += length;
    for (const [term, tf] of counts) this.#append(term, slot, Math.min(MAX_TF, tf));
  }

  remove(documentId: string): void {
    const slot = this.#slotOf.get(documentId);
    if (slot === undefined) return;
    this.#slotOf.delete(documentId);
    this.#slotDoc[slot] = null;
    this.#totalLength -= this.#docLen[slot]!;
    this.#docLen[slot] = 0;
    this.#live--;
    this.#dead++;
    if (this.#dead > 1024 && this.#dead * 3 > this.#slotDoc.length) this.#compact();
  }

  /** The slot mask of these documents (those not indexed are ignored). */
  mask(documentIds: Iterable<string>): Uint8Array {
    const mask = new Uint8Array(this.#slotDoc.length);
    for (const id of documentIds) {
      const slot = this.#slotOf.get(id);
      if (slot !== undefined) mask[slot] = 1;
    }
    return mask;
  }

  /** Term ids whose stem starts with `prefix` (a `prefix*` clause). */
  termsStartingWith(prefix: string): number[] {
    const out: number[] = [];
    const terms = this.dictionary.terms;
    for (let id = 0; id < terms.length; id++) if (terms[id]!.startsWith(prefix) && this.#postLen[id]) out.push(id);
    return out;
  }

  /**
   * Scores documents against the concepts. Per concept, a document's frequency is the weighted sum
   * of its terms' occurrences (a neighbour's occurrence counts its weight: soft BM25); the
   * concept's document frequency is the sum over documents of min(1, frequency), so a word that
   * only softly matches many documents is weighed as common. A document scores
   *
   *   Σ idf(c) · (½·min(1, tf) + ½·sat(tf)) / Σ idf(c),   sat(tf) = tf / (tf + k1·(1 − b + b·len/avgdl))
   *
   * — the idf-weighted share of the query it covers, where holding a word counts half and its
   * BM25 saturation the other half: all of a query's words once in an average document score ~0.7,
   * several times ~0.85, half of them (by weight) about half that. Ranked by this score; ties by slot.
   */
  score(concepts: Concept[], options: ScoringOptions): LexicalHit[] {
    if (concepts.length === 0 || this.#live === 0) return [];
    const n = this.#live;
    const avgdl = this.#totalLength / n;
    const { k1, b, mask, only } = options;
    const s = this.#scratch();
    const touched: number[] = [];
    const any: number[] = [];
    let idfTotal = 0;
    let exactIdfTotal = 0;
    for (let c = 0; c < concepts.length; c++) {
      const concept = concepts[c]!;
      touched.length = 0;
      this.#accumulate(concept, s.tf, s.exactTf, s.seen, touched);
      let df = 0;
      let exactDf = 0;
      for (const slot of touched) {
        df += Math.min(1, s.tf[slot]!);
        if (s.exactTf[slot]! > 0) exactDf++;
      }
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      // The exact idf (plain BM25) counts exact occurrences only.
      const exactIdf = Math.log(1 + (n - exactDf + 0.5) / (exactDf + 0.5));
      idfTotal += idf;
      exactIdfTotal += exactIdf;
      for (const slot of touched) {
        const f = s.tf[slot]!;
        const e = s.exactTf[slot]!;
        s.tf[slot] = 0;
        s.exactTf[slot] = 0;
        s.seen[slot] = 0;
        if (f <= 0) continue;
        if (s.matched[slot] === 0) any.push(slot);
        const norm = k1 * (1 - b + (b * this.#docLen[slot]!) / avgdl);
        s.score[slot]! += idf * (0.5 * Math.min(1, f) + (0.5 * f) / (f + norm));
        s.covered[slot]! += idf * Math.min(1, f);
        if (e > 0) {
          s.bm25[slot]! += (exactIdf * e * (k1 + 1)) / (e + norm);
          s.exactScore[slot]! += exactIdf * (0.5 + (0.5 * e) / (e + norm));
          s.exactCovered[slot]! += exactIdf;
          s.exact[slot]! |= 1 << c;
        }
        s.matched[slot]! |= 1 << c;
      }
    }
    const all = concepts.length >= 32 ? 0xffffffff : (1 << concepts.length) - 1;
    const hits: LexicalHit[] = [];
    for (const slot of any) {
      const keep =
        this.#slotDoc[slot] !== null &&
        (!mask || mask[slot] === 1) &&
        (!only || only.has(slot)) &&
        (options.join === 'any' || s.exact[slot]! >>> 0 === all >>> 0);
      if (keep) {
        const coverage = idfTotal > 0 ? s.score[slot]! / idfTotal : 0;
        hits.push({
          slot,
          score: options.coordination && idfTotal > 0 ? (coverage * s.covered[slot]!) / idfTotal : coverage,
          bm25: s.bm25[slot]!,
          keyword: exactIdfTotal > 0 ? (s.exactScore[slot]! * s.exactCovered[slot]!) / (exactIdfTotal * exactIdfTotal) : 0,
          exactConcepts: popcount(s.exact[slot]!),
          concepts: popcount(s.matched[slot]!),
        });
      }
      s.score[slot] = 0;
      s.covered[slot] = 0;
      s.bm25[slot] = 0;
      s.exactScore[slot] = 0;
      s.exactCovered[slot] = 0;
      s.exact[slot] = 0;
      s.matched[slot] = 0;
    }
    hits.sort((x, y) => y.score - x.score || x.slot - y.slot);
    return hits.slice(0, options.limit);
  }

  // Per-slot scratch arrays, kept between queries (scoring is synchronous: one query at a time per
  // thread) and left all zero after each: a query touches only its matches' slots.
  #scratchArrays: {
    size: number;
    tf: Float64Array;
    exactTf: Float64Array;
    seen: Uint8Array;
    score: Float64Array;
    covered: Float64Array;
    bm25: Float64Array;
    exactScore: Float64Array;
    exactCovered: Float64Array;
    exact: Uint32Array;
    matched: Uint32Array;
  } | null = null;
  #scratch() {
    const size = this.#slotDoc.length;
    if (!this.#scratchArrays || this.#scratchArrays.size < size) {
      const capacity = Math.max(1024, size * 2);
      this.#scratchArrays = {
        size: capacity,
        tf: new Float64Array(capacity),
        exactTf: new Float64Array(capacity),
        seen: new Uint8Array(capacity),
        score: new Float64Array(capacity),
        covered: new Float64Array(capacity),
        bm25: new Float64Array(capacity),
        exactScore: new Float64Array(capacity),
        exactCovered: new Float64Array(capacity),
        exact: new Uint32Array(capacity),
        matched: new Uint32Array(capacity),
      };
    }
    return this.#scratchArrays;
  }

  // A concept's frequency per document (weighted), its exact part, and the documents it touches.
  #accumulate(concept: Concept, tf: Float64Array, exactTf: Float64Array, seen: Uint8Array, touched: number[]): void {
    const only = concept.only ?? null;
    if (concept.conjunctive) {
      // A phrase: the least frequency of its words, over documents holding all of them (and verified).
      const lists = concept.terms.map((t) => t.id);
      if (lists.some((id) => !this.#postLen[id])) return;
      const counts = new Map<number, { n: number; least: number }>();
      for (const id of lists) {
        const docs = this.#postDocs[id]!;
        const tfs = this.#postTf[id]!;
        for (let i = 0; i < this.#postLen[id]!; i++) {
          const slot = docs[i]!;
          if (only && !only[slot]) continue;
          const entry = counts.get(slot);
          if (entry) {
            entry.n++;
            entry.least = Math.min(entry.least, tfs[i]!);
          } else counts.set(slot, { n: 1, least: tfs[i]! });
        }
      }
      for (const [slot, entry] of counts) {
        if (entry.n !== lists.length || this.#slotDoc[slot] === null) continue;
        tf[slot] = entry.least;
        exactTf[slot] = entry.least;
        touched.push(slot);
      }
      return;
    }
    for (const term of concept.terms) {
      const length = this.#postLen[term.id] ?? 0;
      const docs = this.#postDocs[term.id]!;
      const tfs = this.#postTf[term.id]!;
      const isExact = term.weight >= 1;
      for (let i = 0; i < length; i++) {
        const slot = docs[i]!;
        if (this.#slotDoc[slot] === null || (only && !only[slot])) continue;
        if (!seen[slot]) {
          seen[slot] = 1;
          touched.push(slot);
        }
        tf[slot]! += term.weight * tfs[i]!;
        if (isExact) exactTf[slot]! += tfs[i]!;
      }
    }
  }

  #append(term: number, slot: number, tf: number): void {
    let docs = this.#postDocs[term];
    let length = this.#postLen[term] ?? 0;
    if (!docs) {
      docs = new Int32Array(4);
      this.#postDocs[term] = docs;
      this.#postTf[term] = new Uint16Array(4);
      length = 0;
    } else if (length === docs.length) {
      const grownDocs = new Int32Array(length * 2);
      grownDocs.set(docs);
      const grownTf = new Uint16Array(length * 2);
      grownTf.set(this.#postTf[term]!);
      docs = grownDocs;
      this.#postDocs[term] = grownDocs;
      this.#postTf[term] = grownTf;
    }
    docs[length] = slot;
    this.#postTf[term]![length] = tf;
    this.#postLen[term] = length + 1;
    this.#postings++;
  }

  // Renumbers the live documents' slots and drops the dead ones' postings.
  #compact(): void {
    const newSlot = new Int32Array(this.#slotDoc.length).fill(-1);
    const slotDoc: string[] = [];
    const docLen = new Int32Array(Math.max(64, this.#live * 2));
    for (let slot = 0; slot < this.#slotDoc.length; slot++) {
      const id = this.#slotDoc[slot];
      if (id === null || id === undefined) continue;
      newSlot[slot] = slotDoc.length;
      docLen[slotDoc.length] = this.#docLen[slot]!;
      this.#slotOf.set(id, slotDoc.length);
      slotDoc.push(id);
    }
    let postings = 0;
    for (let term = 0; term < this.#postDocs.length; term++) {
      const docs = this.#postDocs[term];
      if (!docs) continue;
      const tfs = this.#postTf[term]!;
      let w = 0;
      for (let r = 0; r < this.#postLen[term]!; r++) {
        const slot = newSlot[docs[r]!]!;
        if (slot < 0) continue;
        docs[w] = slot;
        tfs[w] = tfs[r]!;
        w++;
      }
      this.#postLen[term] = w;
      postings += w;
    }
    this.#slotDoc = slotDoc;
    this.#docLen = docLen;
    this.#dead = 0;
    this.#postings = postings;
  }
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}
