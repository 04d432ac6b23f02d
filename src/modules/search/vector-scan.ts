/**
 * Exact top-k cosine over a matrix of unit vectors (pure; runs inline or in a scan thread).
 * Rows of one document are contiguous, so each document's best passage is found in one pass and
 * only documents enter the heap: the answer is the k best documents with their best row.
 *
 * Two passes (docs/search.md, "Semantic search"). The first scores every row from its int8 codes
 * with the SIMD kernel, as an interval certain to hold the exact score (vector-codes.ts), and keeps
 * the documents whose best upper bound reaches the k-th best lower bound: no other document can be in
 * the top-k. The second scores those documents' rows exactly from the float32 matrix, as the scan
 * always did, so scores, order and ties are those of a plain exact scan. Without codes (small sets,
 * no WebAssembly SIMD) the first pass is the exact score itself.
 */
import { BLOCK_ROWS, dotsOver } from './int8-dot-kernel.ts';
import { type CodeView, errorBound, maxErrorBound, QUANT_FLOATS, quantizeQuery, slotOutput } from './vector-codes.ts';

export interface ScanRequest {
  /** Row-major vectors, `dims` floats a row (a view over shared memory). */
  matrix: Float32Array;
  /** Document slot of each row; -1 for a removed row. */
  rowDoc: Int32Array;
  dims: number;
  start: number;
  end: number;
  query: Float32Array;
  /** Allowed document slots (1 = allowed); null = every slot. */
  mask: Uint8Array | null;
  k: number;
  /** The rows' int8 codes for the first pass; null: the first pass scores exactly. */
  codes: CodeView | null;
  /** The calling thread's scratch slot in the code memory (vector-codes.ts). */
  slot: number;
}

/** Parallel arrays, best first: document slot, its best row, the cosine. */
export interface ScanResult {
  docs: number[];
  rows: number[];
  scores: number[];
}

/**
 * The first pass: `block` scores rows [from, from + count), all in one block of BLOCK_ROWS, into
 * `score`; each score is within `error(row)` of the exact one, and every `error(row)` is at most `maxError`.
 */
interface FirstPass {
  block(from: number, count: number, score: Float64Array): void;
  error(row: number): number;
  maxError: number;
}

/** The exact cosine of one row: four accumulators, the loop V8 compiles best without SIMD. */
export function rowDot(matrix: Float32Array, row: number, dims: number, query: Float32Array): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const o = row * dims;
  let i = 0;
  for (; i + 3 < dims; i += 4) {
    s0 += matrix[o + i]! * query[i]!;
    s1 += matrix[o + i + 1]! * query[i + 1]!;
    s2 += matrix[o + i + 2]! * query[i + 2]!;
    s3 += matrix[o + i + 3]! * query[i + 3]!;
  }
  for (; i < dims; i++) s0 += matrix[o + i]! * query[i]!;
  return s0 + s1 + s2 + s3;
}

function exactPass(r: ScanRequest): FirstPass {
  return {
    block(from, count, score) {
      for (let i = 0; i < count; i++) {
        const doc = r.rowDoc[from + i]!;
        score[i] = doc < 0 || (r.mask !== null && r.mask[doc] !== 1) ? 0 : rowDot(r.matrix, from + i, r.dims, r.query);
      }
    },
    error: () => 0,
    maxError: 0,
  };
}

function codePass(codes: CodeView, slot: number, query: Float32Array): FirstPass | null {
  const dots = dotsOver(codes.memory);
  if (!dots) return null;
  const { layout } = codes;
  const q = quantizeQuery(codes, slot, query);
  const buffer = codes.memory.buffer;
  const outOffset = slotOutput(layout, slot);
  const out = new Int32Array(buffer, outOffset, BLOCK_ROWS);
  const quant = new Float32Array(buffer, layout.quantOffset, layout.capacity * QUANT_FLOATS);
  // A thread's range may start or end inside a block: the block is scored once, its rows read as asked.
  let computed = -1;
  return {
    block(from, count, score) {
      const block = Math.floor(from / BLOCK_ROWS);
      if (block !== computed) dots(layout.codesOffset + block * layout.blockBytes, q.pairs, q.count, outOffset);
      computed = block;
      const first = from - block * BLOCK_ROWS;
      for (let i = 0; i < count; i++) score[i] = out[first + i]! * q.scale * quant[(from + i) * QUANT_FLOATS]!;
    },
    error: (row) => errorBound(q, quant, row * QUANT_FLOATS),
    maxError: maxErrorBound(codes, q),
  };
}

/**
 * The k best of a stream of (score, document, row), ranked by score, then by lower document slot
 * (so ties resolve the same whatever the order of the stream or its split over threads): a min-heap
 * whose root is the k-th best once `full`.
 */
class TopK {
  readonly score: Float64Array;
  readonly doc: Int32Array;
  readonly row: Int32Array;
  size = 0;
  constructor(k: number) {
    this.score = new Float64Array(k);
    this.doc = new Int32Array(k);
    this.row = new Int32Array(k);
  }
  get full(): boolean {
    return this.size === this.score.length;
  }
  /** The k-th best score, or -Infinity before there are k. */
  get min(): number {
    return this.full && this.size > 0 ? this.score[0]! : Number.NEGATIVE_INFINITY;
  }
  // Whether entry i ranks below (score, doc).
  #below(i: number, score: number, doc: number): boolean {
    return this.score[i]! < score || (this.score[i] === score && this.doc[i]! > doc);
  }
  #put(i: number, score: number, doc: number, row: number): void {
    this.score[i] = score;
    this.doc[i] = doc;
    this.row[i] = row;
  }
  #move(to: number, from: number): void {
    this.#put(to, this.score[from]!, this.doc[from]!, this.row[from]!);
  }
  push(score: number, doc = 0, row = 0): void {
    if (this.score.length === 0) return;
    if (!this.full) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.#below(parent, score, doc)) break;
        this.#move(i, parent);
        i = parent;
      }
      this.#put(i, score, doc, row);
      return;
    }
    if (!this.#below(0, score, doc)) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child = right < this.size && this.#below(right, this.score[left]!, this.doc[left]!) ? right : left;
      if (!this.#below(child, score, doc)) break;
      this.#move(i, child);
      i = child;
    }
    this.#put(i, score, doc, row);
  }
  /** The entries, best first. */
  sorted(): ScanResult {
    const order = Array.from({ length: this.size }, (_, i) => i).sort(
      (a, b) => this.score[b]! - this.score[a]! || this.doc[a]! - this.doc[b]!,
    );
    return {
      docs: order.map((i) => this.doc[i]!),
      rows: order.map((i) => this.row[i]!),
      scores: order.map((i) => this.score[i]!),
    };
  }
}

/**
 * First pass: the documents that may be in the top-k, as [doc, first row, end row, upper bound]
 * in row order (a document's rows are contiguous). A row scoring below the running k-th best lower
 * bound by more than any row's error cannot matter and is dismissed before its own bound is computed:
 * the span of a document kept holds its rows that can reach the top-k, which is where its best is
 * whenever it belongs there.
 */
function candidates(r: ScanRequest, pass: FirstPass): number[] {
  const { rowDoc, mask, k } = r;
  const lower = new TopK(k);
  let found: number[] = [];
  const score = new Float64Array(BLOCK_ROWS);
  let dismiss = Number.NEGATIVE_INFINITY;
  let doc = -1;
  let docLow = 0;
  let docHigh = 0;
  let first = 0;
  let end = 0;
  let pruneAt = 4 * (1024 + 4 * k);
  const finish = () => {
    // Lower bounds compete by value alone: a document ranks at least as high as its bound, whoever holds it.
    lower.push(docLow);
    if (docHigh >= lower.min) found.push(doc, first, end, docHigh);
    dismiss = lower.min - pass.maxError;
    // Bounded memory even when scores rise along the rows: drop what the bound has since excluded.
    if (found.length > pruneAt) {
      found = prune(found, lower.min);
      pruneAt = Math.max(pruneAt, 2 * found.length);
    }
  };
  for (let from = r.start, count = 0; from < r.end; from += count) {
    count = Math.min(BLOCK_ROWS - (from % BLOCK_ROWS), r.end - from);
    pass.block(from, count, score);
    for (let i = 0; i < count; i++) {
      if (score[i]! < dismiss) continue;
      const row = from + i;
      const d = rowDoc[row]!;
      if (d < 0 || (mask !== null && mask[d] !== 1)) continue;
      const e = pass.error(row);
      const low = score[i]! - e;
      const high = score[i]! + e;
      if (d !== doc) {
        if (doc >= 0) finish();
        doc = d;
        docLow = low;
        docHigh = high;
        first = row;
      } else {
        if (low > docLow) docLow = low;
        if (high > docHigh) docHigh = high;
      }
      end = row + 1;
    }
  }
  if (doc >= 0) finish();
  return prune(found, lower.min);
}

function prune(found: number[], threshold: number): number[] {
  const kept: number[] = [];
  for (let i = 0; i < found.length; i += 4)
    if (found[i + 3]! >= threshold) kept.push(found[i]!, found[i + 1]!, found[i + 2]!, found[i + 3]!);
  return kept;
}

export function scanTopK(r: ScanRequest): ScanResult {
  const { matrix, dims, query, k } = r;
  if (k <= 0) return { docs: [], rows: [], scores: [] };
  const pass = (r.codes && codePass(r.codes, r.slot, query)) ?? exactPass(r);
  const found = candidates(r, pass);

  // Second pass: exact scores of the candidates' rows.
  const top = new TopK(k);
  for (let c = 0; c < found.length; c += 4) {
    let bestScore = Number.NEGATIVE_INFINITY;
    let bestRow = -1;
    for (let row = found[c + 1]!; row < found[c + 2]!; row++) {
      const score = rowDot(matrix, row, dims, query);
      if (score > bestScore) {
        bestScore = score;
        bestRow = row;
      }
    }
    top.push(bestScore, found[c]!, bestRow);
  }
  return top.sorted();
}

/** Merges partial results (a document split across two ranges keeps its best row), best k first. */
export function mergeResults(parts: ScanResult[], k: number): ScanResult {
  const best = new Map<number, { row: number; score: number }>();
  for (const p of parts) {
    for (let i = 0; i < p.docs.length; i++) {
      const have = best.get(p.docs[i]!);
      if (!have || p.scores[i]! > have.score) best.set(p.docs[i]!, { row: p.rows[i]!, score: p.scores[i]! });
    }
  }
  const sorted = [...best.entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, k);
  return { docs: sorted.map((e) => e[0]), rows: sorted.map((e) => e[1].row), scores: sorted.map((e) => e[1].score) };
}
