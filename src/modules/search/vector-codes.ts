import { BLOCK_ROWS } from './int8-dot-kernel.ts';

/**
 * int8 codes of passage vectors, for the semantic scan's first pass (docs/search.md, "Semantic
 * search"), and the bound that keeps the scan exact.
 *
 * Each row v is stored as codes c (int8, ±127) and a scale s = max|v| / 127, so v ≈ s·c; the
 * query q as int16 codes ĉ with scale t. The first pass scores a row a = t·s·(ĉ·c), an exact
 * integer dot product times two scales. How far a can be from q·v is bounded per row:
 *
 *   |q·v − a| ≤ |q·(v − s·c)| + |(q − t·ĉ)·s·c|
 *             ≤ min(‖q‖₂·‖v − s·c‖₂, ‖q‖₁·max|v − s·c|) + ‖q − t·ĉ‖₂·‖s·c‖₂        (Cauchy–Schwarz, Hölder)
 *
 * with the row's residual norms and ‖s·c‖₂ computed when the row is quantised, and the query's when
 * it is. A row whose bound says it cannot reach the top-k is skipped; the others are scored again
 * exactly from the float32 vectors, so the answer is the exact top-k.
 *
 * Layout of a code memory (a shared WebAssembly memory, so the kernel and every scan thread read it):
 * a header (the largest of each row bound, so most rows are dismissed without computing theirs),
 * SCAN_SLOTS scratch slots (a thread's query pairs and the kernel's output for a block), QUANT_FLOATS
 * float32 per row (scale, ‖v − s·c‖₂, max|v − s·c|, ‖s·c‖₂, each rounded up), then the codes in
 * blocks of BLOCK_ROWS rows, each block by column pairs (int8-dot-kernel.ts): dimensions 2p and
 * 2p + 1 of the block's rows side by side, `2 × BLOCK_ROWS` bytes a pair (an odd last dimension is
 * paired with a zero).
 */

/** Scratch slots: 0 for scans on the main thread, 1.. for each scan thread (so at most SCAN_SLOTS − 1 threads). */
export const SCAN_SLOTS = 3;
export const QUANT_FLOATS = 4;
/** The header: the largest ‖v − s·c‖₂, max|v − s·c| and ‖s·c‖₂ of any row written (bounds only grow). */
export const HEADER_BYTES = 64;
/** Covers the float64 rounding of the exact score and of `a` (both ~1e-14 at these sizes). */
const SLACK = 1e-9;
const PAGE = 65536;
const MAX_PAGES = 65536;
/** Bytes of one column pair in a block. */
const PAIR_BYTES = BLOCK_ROWS * 2;

export interface CodeLayout {
  dims: number;
  /** Column pairs a row has (dimensions rounded up to even, halved). */
  pairs: number;
  /** Rows the memory holds (a whole number of blocks). */
  capacity: number;
  slotBytes: number;
  quantOffset: number;
  codesOffset: number;
  /** Bytes of a block of codes. */
  blockBytes: number;
  pages: number;
}

/** What a scan reads of the codes. */
export interface CodeView {
  memory: WebAssembly.Memory;
  layout: CodeLayout;
}

const align = (n: number, to: number) => Math.ceil(n / to) * to;

/** The layout for at least `rows` rows of `dims` dimensions, or null when it exceeds a 4 GiB memory. */
export function codeLayout(dims: number, rows: number): CodeLayout | null {
  const pairs = Math.ceil(dims / 2);
  const capacity = align(Math.max(rows, 1), BLOCK_ROWS);
  const slotBytes = align(pairs * 8 + BLOCK_ROWS * 4, 64);
  const quantOffset = HEADER_BYTES + SCAN_SLOTS * slotBytes;
  const codesOffset = align(quantOffset + capacity * QUANT_FLOATS * 4, 64);
  const blockBytes = pairs * PAIR_BYTES;
  const pages = Math.ceil((codesOffset + (capacity / BLOCK_ROWS) * blockBytes) / PAGE);
  return pages > MAX_PAGES ? null : { dims, pairs, capacity, slotBytes, quantOffset, codesOffset, blockBytes, pages };
}

/** A zeroed shared memory of a layout. */
export function codeMemory(layout: CodeLayout): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: layout.pages, maximum: layout.pages, shared: true });
}

/** A float rounded up to float32 (what is stored must not understate a bound). */
const up = (x: number) => Math.fround(x * (1 + 2 ** -20));

/** Typed views over a code memory's header, per-row floats and codes (made once: each view costs an allocation). */
export interface CodeArrays {
  header: Float32Array;
  quant: Float32Array;
  codes: Int8Array;
  /** The codes as int16: one element a row's pair. */
  pairCodes: Int16Array;
}

export function codeArrays(view: CodeView): CodeArrays {
  const { layout } = view;
  const buffer = view.memory.buffer;
  return {
    header: new Float32Array(buffer, 0, 3),
    quant: new Float32Array(buffer, layout.quantOffset, layout.capacity * QUANT_FLOATS),
    codes: new Int8Array(buffer, layout.codesOffset, (layout.capacity / BLOCK_ROWS) * layout.blockBytes),
    pairCodes: new Int16Array(buffer, layout.codesOffset, ((layout.capacity / BLOCK_ROWS) * layout.blockBytes) / 2),
  };
}

/**
 * Copies the codes and bounds of `count` rows between code memories of the same dimensions: whole
 * blocks when the rows stay in place from a block's start (a growing set), else row by row.
 */
export function copyRows(
  from: CodeArrays,
  to: CodeArrays,
  layout: CodeLayout,
  fromRow: number,
  toRow: number,
  count: number,
): void {
  to.quant.set(from.quant.subarray(fromRow * QUANT_FLOATS, (fromRow + count) * QUANT_FLOATS), toRow * QUANT_FLOATS);
  for (let i = 0; i < 3; i++) to.header[i] = Math.max(to.header[i]!, from.header[i]!);
  if (fromRow === toRow && fromRow % BLOCK_ROWS === 0) {
    const start = (fromRow / BLOCK_ROWS) * layout.blockBytes;
    to.codes.set(from.codes.subarray(start, start + Math.ceil(count / BLOCK_ROWS) * layout.blockBytes), start);
    return;
  }
  const pairStride = PAIR_BYTES / 2;
  const blockStride = layout.blockBytes / 2;
  for (let i = 0; i < count; i++) {
    const a = Math.floor((fromRow + i) / BLOCK_ROWS) * blockStride + ((fromRow + i) % BLOCK_ROWS);
    const b = Math.floor((toRow + i) / BLOCK_ROWS) * blockStride + ((toRow + i) % BLOCK_ROWS);
    for (let p = 0; p < layout.pairs; p++) to.pairCodes[b + p * pairStride] = from.pairCodes[a + p * pairStride]!;
  }
}

/** Writes the codes and bounds of the `dims` floats of `source` from `from` as row `row`. */
export function quantizeRow(
  arrays: CodeArrays,
  layout: CodeLayout,
  row: number,
  source: Float32Array,
  from: number,
): void {
  const { dims } = layout;
  const { codes, quant, header } = arrays;
  // Dimension i of the row: block, then its pair's column, then the row's two bytes in it.
  const base = Math.floor(row / BLOCK_ROWS) * layout.blockBytes + (row % BLOCK_ROWS) * 2;
  let max = 0;
  for (let i = 0; i < dims; i++) {
    const a = Math.abs(source[from + i]!);
    if (a > max) max = a;
  }
  const scale = Math.fround(max / 127);
  const inverse = scale === 0 ? 0 : 1 / scale;
  let residual2 = 0;
  let residualMax = 0;
  let norm2 = 0;
  for (let i = 0; i < dims; i++) {
    const x = source[from + i]!;
    // Any code within ±127 is correct (the bounds below are of the code chosen); rounding keeps them small.
    const r = Math.round(x * inverse);
    const c = r > 127 ? 127 : r < -127 ? -127 : r;
    codes[base + (i >> 1) * PAIR_BYTES + (i & 1)] = c;
    const back = scale * c;
    const d = Math.abs(x - back);
    residual2 += d * d;
    if (d > residualMax) residualMax = d;
    norm2 += back * back;
  }
  if (dims % 2 === 1) codes[base + (dims >> 1) * PAIR_BYTES + 1] = 0;
  const at = row * QUANT_FLOATS;
  quant[at] = scale;
  quant[at + 1] = up(Math.sqrt(residual2));
  quant[at + 2] = up(residualMax);
  quant[at + 3] = up(Math.sqrt(norm2));
  for (let i = 0; i < 3; i++) if (quant[at + 1 + i]! > header[i]!) header[i] = quant[at + 1 + i]!;
}

/** A query's codes (written into a scratch slot as the kernel's pair list) and what its part of the bound needs. */
export interface QueryCodes {
  /** Byte offset of the pair list in the memory, and its entries (pairs with a non-zero value). */
  pairs: number;
  count: number;
  scale: number;
  norm2: number;
  norm1: number;
  /** ‖q − t·ĉ‖₂. */
  residual: number;
}

/**
 * Quantises the query into `slot`. Its codes use at most ±32767, less for long rows so that the
 * products of a row (127 × that, two a pair) fit the kernel's int32 sums.
 */
export function quantizeQuery(view: CodeView, slot: number, query: Float32Array): QueryCodes {
  const { layout } = view;
  const { dims } = layout;
  const offset = HEADER_BYTES + slot * layout.slotBytes;
  const entries = new Int32Array(view.memory.buffer, offset, layout.pairs * 2);
  const limit = Math.min(32767, Math.floor((2 ** 31 - 1) / (127 * 2 * layout.pairs)));
  let max = 0;
  let norm2 = 0;
  let norm1 = 0;
  for (let i = 0; i < dims; i++) {
    const x = query[i]!;
    max = Math.max(max, Math.abs(x));
    norm2 += x * x;
    norm1 += Math.abs(x);
  }
  const scale = max / limit;
  const codes = Array.from({ length: layout.pairs * 2 }, (_, i) =>
    i >= dims || scale === 0 ? 0 : Math.round(query[i]! / scale),
  );
  let residual = 0;
  for (let i = 0; i < dims; i++) {
    const d = query[i]! - scale * codes[i]!;
    residual += d * d;
  }
  let count = 0;
  for (let p = 0; p < layout.pairs; p++) {
    const c0 = codes[2 * p]!;
    const c1 = codes[2 * p + 1]!;
    if (c0 === 0 && c1 === 0) continue;
    entries[count * 2] = p * PAIR_BYTES;
    // Two int16 lanes, the pair's first dimension in the low half (little-endian, as the kernel reads it).
    entries[count * 2 + 1] = (c0 & 0xffff) | (c1 << 16);
    count++;
  }
  return {
    pairs: offset,
    count,
    scale,
    norm2: up(Math.sqrt(norm2)),
    norm1: up(norm1),
    residual: up(Math.sqrt(residual)),
  };
}

/** The slot's output area: the kernel's int32 dot products of one block. */
export function slotOutput(layout: CodeLayout, slot: number): number {
  return HEADER_BYTES + slot * layout.slotBytes + layout.pairs * 8;
}

/** The bound on |q·v − a| of a row from its stored floats (scale, ‖r‖₂, max|r|, ‖s·c‖₂ at `at`). */
export function errorBound(q: QueryCodes, quant: Float32Array, at: number): number {
  return Math.min(q.norm2 * quant[at + 1]!, q.norm1 * quant[at + 2]!) + q.residual * quant[at + 3]! + SLACK;
}

/** A bound on |q·v − a| valid for every row of the memory (from the header). */
export function maxErrorBound(view: CodeView, q: QueryCodes): number {
  const header = new Float32Array(view.memory.buffer, 0, 3);
  return Math.min(q.norm2 * header[0]!, q.norm1 * header[1]!) + q.residual * header[2]! + SLACK;
}
