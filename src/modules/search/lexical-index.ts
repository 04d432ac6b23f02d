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

/**
 * The layout of `serialize()`; bump it when the layout or the terms change (tokens, stop words,
 * stemming: search-terms.ts): a snapshot of another format is ignored and the index rebuilt from the texts.
 */
export const SNAPSHOT_FORMAT = 1;
const SNAPSHOT_MAGIC = 0x584c5644; // "DVLX"
const HEADER_BYTES = 40;

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
  /**
   * Each concept's document frequencies (plain and exact) as the last full pass over its postings
   * counted them, by `conceptKey`; emptied by every change of the documents. A hybrid request scores
   * the same concepts again for a few documents (the other arm's finds): with these it reads only
   * those documents' postings (`#scoreOnly`) instead of every posting of every term.
   */
  readonly #conceptStats = new Map<string, { df: number; exactDf: number }>();

  get documents(): number {
    return this.#live;
  }

  /** Approximate bytes held: postings (6 bytes each, lists grown by doubling), lengths, scratch, ~100 bytes a term. */
  get bytes(): number {
    return (
      this.#postings * 9 +
      this.#docLen.byteLength +
      (this.#scratchArrays?.size ?? 0) * 65 +
      this.dictionary.terms.length * 100
    );
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
    this.#conceptStats.clear();
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
    this.#conceptStats.clear();
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
    if (options.only && this.#fewerThanPostings(concepts, options.only.size)) return this.#scoreOnly(concepts, options);
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
      const { df, exactDf } = documentFrequencies(touched, s.tf, s.exactTf);
      const key = conceptKey(concept);
      if (key !== null) this.#remember(key, df, exactDf);
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
    // The best `limit` by (score desc, slot asc), kept in a bounded heap: common words match most
    // of the tenant's documents, and making and sorting a hit for each of them was most of a query's time.
    const top = new TopK(options.limit);
    for (const slot of any) {
      const keep =
        this.#slotDoc[slot] !== null &&
        (!mask || mask[slot] === 1) &&
        (!only || only.has(slot)) &&
        (options.join === 'any' || s.exact[slot]! >>> 0 === all >>> 0);
      if (keep) {
        const coverage = idfTotal > 0 ? s.score[slot]! / idfTotal : 0;
        const score = options.coordination && idfTotal > 0 ? (coverage * s.covered[slot]!) / idfTotal : coverage;
        if (top.admits(score, slot)) {
          top.add({
            slot,
            score,
            bm25: s.bm25[slot]!,
            keyword:
              exactIdfTotal > 0 ? (s.exactScore[slot]! * s.exactCovered[slot]!) / (exactIdfTotal * exactIdfTotal) : 0,
            exactConcepts: popcount(s.exact[slot]!),
            concepts: popcount(s.matched[slot]!),
          });
        }
      }
      s.score[slot] = 0;
      s.covered[slot] = 0;
      s.bm25[slot] = 0;
      s.exactScore[slot] = 0;
      s.exactCovered[slot] = 0;
      s.exact[slot] = 0;
      s.matched[slot] = 0;
    }
    return top.sorted();
  }

  /**
   * `score` restricted to `options.only`, reading only those documents' postings (a binary search
   * per term and document: lists are in slot order) and each concept's document frequencies from
   * `#conceptStats` (counted by a full pass over its postings when absent). Every sum is taken in
   * the order the full pass takes it, so scores are bit-for-bit the full pass's.
   */
  #scoreOnly(concepts: Concept[], options: ScoringOptions): LexicalHit[] {
    const n = this.#live;
    const avgdl = this.#totalLength / n;
    const { k1, b, mask } = options;
    const slots = [...options.only!]
      .filter((slot) => this.#slotDoc[slot] != null && (!mask || mask[slot] === 1))
      .sort((x, y) => x - y);
    const m = slots.length;
    const score = new Float64Array(m);
    const covered = new Float64Array(m);
    const bm25 = new Float64Array(m);
    const exactScore = new Float64Array(m);
    const exactCovered = new Float64Array(m);
    const exact = new Uint32Array(m);
    const matched = new Uint32Array(m);
    const tf = new Float64Array(m);
    const exactTf = new Float64Array(m);
    let idfTotal = 0;
    let exactIdfTotal = 0;
    for (let c = 0; c < concepts.length; c++) {
      const concept = concepts[c]!;
      const { df, exactDf } = this.#statsOf(concept);
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const exactIdf = Math.log(1 + (n - exactDf + 0.5) / (exactDf + 0.5));
      idfTotal += idf;
      exactIdfTotal += exactIdf;
      this.#frequenciesAt(concept, slots, tf, exactTf);
      for (let i = 0; i < m; i++) {
        const f = tf[i]!;
        const e = exactTf[i]!;
        if (f <= 0) continue;
        const norm = k1 * (1 - b + (b * this.#docLen[slots[i]!]!) / avgdl);
        score[i]! += idf * (0.5 * Math.min(1, f) + (0.5 * f) / (f + norm));
        covered[i]! += idf * Math.min(1, f);
        if (e > 0) {
          bm25[i]! += (exactIdf * e * (k1 + 1)) / (e + norm);
          exactScore[i]! += exactIdf * (0.5 + (0.5 * e) / (e + norm));
          exactCovered[i]! += exactIdf;
          exact[i]! |= 1 << c;
        }
        matched[i]! |= 1 << c;
      }
    }
    const all = concepts.length >= 32 ? 0xffffffff : (1 << concepts.length) - 1;
    const top = new TopK(options.limit);
    for (let i = 0; i < m; i++) {
      if (matched[i] === 0) continue;
      if (options.join === 'all' && exact[i]! >>> 0 !== all >>> 0) continue;
      const coverage = idfTotal > 0 ? score[i]! / idfTotal : 0;
      const s = options.coordination && idfTotal > 0 ? (coverage * covered[i]!) / idfTotal : coverage;
      if (top.admits(s, slots[i]!))
        top.add({
          slot: slots[i]!,
          score: s,
          bm25: bm25[i]!,
          keyword: exactIdfTotal > 0 ? (exactScore[i]! * exactCovered[i]!) / (exactIdfTotal * exactIdfTotal) : 0,
          exactConcepts: popcount(exact[i]!),
          concepts: popcount(matched[i]!),
        });
    }
    return top.sorted();
  }

  /** Whether a binary search per document and term reads less than the concepts' posting lists. */
  #fewerThanPostings(concepts: Concept[], documents: number): boolean {
    let postings = 0;
    let searches = 0;
    const depth = Math.log2(Math.max(2, this.#slotDoc.length)) + 1;
    for (const concept of concepts) {
      for (const term of concept.terms) {
        postings += this.#postLen[term.id] ?? 0;
        searches += documents * depth;
      }
    }
    return searches < postings;
  }

  /** A concept's document frequencies: remembered, or counted over its postings as `score` counts them. */
  #statsOf(concept: Concept): { df: number; exactDf: number } {
    const key = conceptKey(concept);
    const known = key === null ? undefined : this.#conceptStats.get(key);
    if (known) return known;
    const s = this.#scratch();
    const touched: number[] = [];
    this.#accumulate(concept, s.tf, s.exactTf, s.seen, touched);
    const { df, exactDf } = documentFrequencies(touched, s.tf, s.exactTf);
    for (const slot of touched) {
      s.tf[slot] = 0;
      s.exactTf[slot] = 0;
      s.seen[slot] = 0;
    }
    if (key !== null) this.#remember(key, df, exactDf);
    return { df, exactDf };
  }

  #remember(key: string, df: number, exactDf: number): void {
    // Bounded: a few hundred distinct concepts between two changes of the documents is plenty.
    if (this.#conceptStats.size >= 512) this.#conceptStats.clear();
    this.#conceptStats.set(key, { df, exactDf });
  }

  /** A concept's (weighted) frequency and exact frequency in each of `slots` (live, ascending), as `#accumulate` sums them. */
  #frequenciesAt(concept: Concept, slots: number[], tf: Float64Array, exactTf: Float64Array): void {
    tf.fill(0);
    exactTf.fill(0);
    const only = concept.only ?? null;
    if (concept.conjunctive) {
      const lists = concept.terms.map((t) => t.id);
      if (lists.some((id) => !this.#postLen[id])) return;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        if (only && !only[slot]) continue;
        let least = Number.POSITIVE_INFINITY;
        for (const id of lists) {
          const at = this.#find(id, slot);
          if (at < 0) {
            least = 0;
            break;
          }
          least = Math.min(least, this.#postTf[id]![at]!);
        }
        if (least > 0) {
          tf[i] = least;
          exactTf[i] = least;
        }
      }
      return;
    }
    for (const term of concept.terms) {
      if (!this.#postLen[term.id]) continue;
      const tfs = this.#postTf[term.id]!;
      const isExact = term.weight >= 1;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        if (only && !only[slot]) continue;
        const at = this.#find(term.id, slot);
        if (at < 0) continue;
        tf[i]! += term.weight * tfs[at]!;
        if (isExact) exactTf[i]! += tfs[at]!;
      }
    }
  }

  /** The position of `slot` in a term's posting list (in slot order), or -1. */
  #find(term: number, slot: number): number {
    const docs = this.#postDocs[term]!;
    let lo = 0;
    let hi = this.#postLen[term]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = docs[mid]!;
      if (at === slot) return mid;
      if (at < slot) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
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

  /**
   * The index as bytes (docs/search.md, "Cold start"): its version, the term table, the live
   * documents (renumbered in slot order), their lengths and every posting list, so that a process
   * can load a tenant's index by copying arrays instead of reading and tokenising every text.
   */
  serialize(): Uint8Array {
    const encoder = new TextEncoder();
    const newSlot = new Int32Array(this.#slotDoc.length).fill(-1);
    const ids: string[] = [];
    for (let slot = 0; slot < this.#slotDoc.length; slot++) {
      const id = this.#slotDoc[slot];
      if (id === null || id === undefined) continue;
      newSlot[slot] = ids.length;
      ids.push(id);
    }
    const termCount = this.dictionary.terms.length;
    const postLen = new Int32Array(termCount);
    let total = 0;
    for (let term = 0; term < termCount; term++) {
      const docs = this.#postDocs[term];
      let live = 0;
      for (let i = 0; i < (this.#postLen[term] ?? 0); i++) if (newSlot[docs![i]!]! >= 0) live++;
      postLen[term] = live;
      total += live;
    }
    const termBytes = encoder.encode(this.dictionary.terms.join('\n'));
    const idBytes = encoder.encode(ids.join('\n'));
    const layout = snapshotLayout(termBytes.length, idBytes.length, ids.length, termCount, total);
    const out = new Uint8Array(layout.size);
    const header = new DataView(out.buffer);
    header.setUint32(0, SNAPSHOT_MAGIC, true);
    header.setUint32(4, SNAPSHOT_FORMAT, true);
    header.setFloat64(8, this.version, true);
    header.setUint32(16, termCount, true);
    header.setUint32(20, ids.length, true);
    header.setUint32(24, total, true);
    header.setUint32(28, termBytes.length, true);
    header.setUint32(32, idBytes.length, true);
    out.set(termBytes, layout.terms);
    out.set(idBytes, layout.ids);
    const docLen = new Int32Array(out.buffer, layout.docLen, ids.length);
    for (let slot = 0; slot < this.#slotDoc.length; slot++)
      if (newSlot[slot]! >= 0) docLen[newSlot[slot]!] = this.#docLen[slot]!;
    new Int32Array(out.buffer, layout.postLen, termCount).set(postLen);
    const docs = new Int32Array(out.buffer, layout.docs, total);
    const tfs = new Uint16Array(out.buffer, layout.tfs, total);
    let w = 0;
    for (let term = 0; term < termCount; term++) {
      const list = this.#postDocs[term];
      const tf = this.#postTf[term];
      for (let i = 0; i < (this.#postLen[term] ?? 0); i++) {
        const slot = newSlot[list![i]!]!;
        if (slot < 0) continue;
        docs[w] = slot;
        tfs[w] = tf![i]!;
        w++;
      }
    }
    return out;
  }

  /** An index from `serialize()`'s bytes; null when they are of another format (or not a snapshot). */
  static restore(bytes: Uint8Array): LexicalIndex | null {
    if (bytes.length < HEADER_BYTES) return null;
    // Typed views need aligned offsets: a buffer handed over by a driver may be a slice of a pool.
    const own = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
    const header = new DataView(own.buffer, own.byteOffset, own.byteLength);
    if (header.getUint32(0, true) !== SNAPSHOT_MAGIC || header.getUint32(4, true) !== SNAPSHOT_FORMAT) return null;
    const termCount = header.getUint32(16, true);
    const docCount = header.getUint32(20, true);
    const total = header.getUint32(24, true);
    const layout = snapshotLayout(header.getUint32(28, true), header.getUint32(32, true), docCount, termCount, total);
    if (layout.size !== own.byteLength) return null;
    const decoder = new TextDecoder();
    const base = own.byteOffset;
    const terms =
      termCount === 0
        ? []
        : decoder.decode(own.subarray(layout.terms, layout.terms + header.getUint32(28, true))).split('\n');
    const ids =
      docCount === 0
        ? []
        : decoder.decode(own.subarray(layout.ids, layout.ids + header.getUint32(32, true))).split('\n');
    if (terms.length !== termCount || ids.length !== docCount) return null;
    const index = new LexicalIndex();
    for (const term of terms) index.dictionary.idOf(term);
    index.version = header.getFloat64(8, true);
    index.#slotDoc = ids;
    for (let slot = 0; slot < ids.length; slot++) index.#slotOf.set(ids[slot]!, slot);
    index.#docLen = new Int32Array(Math.max(64, docCount * 2));
    index.#docLen.set(new Int32Array(own.buffer, base + layout.docLen, docCount));
    for (let slot = 0; slot < docCount; slot++) index.#totalLength += index.#docLen[slot]!;
    index.#live = docCount;
    const postLen = new Int32Array(own.buffer, base + layout.postLen, termCount);
    const docs = new Int32Array(own.buffer, base + layout.docs, total);
    const tfs = new Uint16Array(own.buffer, base + layout.tfs, total);
    // Each term's list is a view of the snapshot's arrays (no copy); appending to one copies it out (#append).
    let at = 0;
    for (let term = 0; term < termCount; term++) {
      const n = postLen[term]!;
      index.#postDocs[term] = docs.subarray(at, at + n);
      index.#postTf[term] = tfs.subarray(at, at + n);
      index.#postLen[term] = n;
      at += n;
    }
    index.#postings = total;
    return index;
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
      const grownDocs = new Int32Array(Math.max(4, length * 2));
      grownDocs.set(docs);
      const grownTf = new Uint16Array(Math.max(4, length * 2));
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

/** Byte offsets of a snapshot's parts (each typed array 8-byte aligned). */
function snapshotLayout(termBytes: number, idBytes: number, docs: number, terms: number, postings: number) {
  const align = (n: number) => (n + 7) & ~7;
  const termsAt = HEADER_BYTES;
  const ids = align(termsAt + termBytes);
  const docLen = align(ids + idBytes);
  const postLen = align(docLen + docs * 4);
  const docsAt = align(postLen + terms * 4);
  const tfs = align(docsAt + postings * 4);
  return { terms: termsAt, ids, docLen, postLen, docs: docsAt, tfs, size: align(tfs + postings * 2) };
}

/**
 * The best `k` hits by score (higher first), ties by slot (lower first): a min-heap on that order,
 * so a candidate costs one comparison with the worst kept unless it enters.
 */
class TopK {
  readonly #k: number;
  readonly #heap: LexicalHit[] = [];
  constructor(k: number) {
    this.#k = Math.max(0, k);
  }

  /** Whether a hit of this score and slot would be kept. */
  admits(score: number, slot: number): boolean {
    if (this.#heap.length < this.#k) return true;
    if (this.#k === 0) return false;
    return better(score, slot, this.#heap[0]!);
  }

  add(hit: LexicalHit): void {
    const heap = this.#heap;
    if (heap.length < this.#k) {
      heap.push(hit);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!better(heap[parent]!.score, heap[parent]!.slot, heap[i]!)) break;
        [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
        i = parent;
      }
      return;
    }
    heap[0] = hit;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && better(heap[worst]!.score, heap[worst]!.slot, heap[l]!)) worst = l;
      if (r < heap.length && better(heap[worst]!.score, heap[worst]!.slot, heap[r]!)) worst = r;
      if (worst === i) break;
      [heap[worst], heap[i]] = [heap[i]!, heap[worst]!];
      i = worst;
    }
  }

  sorted(): LexicalHit[] {
    return this.#heap.sort((x, y) => y.score - x.score || x.slot - y.slot);
  }
}

/** Whether (score, slot) ranks before `hit`. */
function better(score: number, slot: number, hit: LexicalHit): boolean {
  return score > hit.score || (score === hit.score && slot < hit.slot);
}

/** A concept's key in `#conceptStats`; null for a concept limited to verified documents (a phrase: its statistics depend on that set). */
function conceptKey(concept: Concept): string | null {
  if (concept.only) return null;
  let key = concept.conjunctive ? 'c' : 'w';
  for (const t of concept.terms) key += `${t.id}:${t.weight},`;
  return key;
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}

/**
 * A concept's document frequency (weighted: a neighbour's match counts its weight, at most 1 a
 * document) and exact document frequency, over the slots its postings touched.
 */
function documentFrequencies(
  touched: readonly number[],
  tf: Float64Array,
  exactTf: Float64Array,
): { df: number; exactDf: number } {
  let df = 0;
  let exactDf = 0;
  for (const slot of touched) {
    df += Math.min(1, tf[slot]!);
    if (exactTf[slot]! > 0) exactDf++;
  }
  return { df, exactDf };
}
