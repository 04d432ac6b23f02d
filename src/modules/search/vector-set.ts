import type { PassageVector } from '../processing/index.ts';
import { kernelModule } from './int8-dot-kernel.ts';
import {
  type CodeArrays,
  type CodeView,
  codeArrays,
  codeLayout,
  codeMemory,
  copyRows,
  quantizeRow,
} from './vector-codes.ts';
import type { ScanTarget } from './vector-scan-pool.ts';

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Below this many passages a set keeps no int8 codes: its exact scan takes ~2 ms, and small tenants are the many. */
const QUANTIZE_FROM_ROWS = 4096;

/**
 * A tenant's passage vectors of one embedding model, in memory: a row-major float32 matrix in
 * shared memory (scan threads read it without copies), each row tagged with its document's slot.
 * A document's rows are contiguous; replacing a document marks its old rows dead and appends the
 * new ones; dead rows are compacted away once they are a quarter of the matrix. From
 * QUANTIZE_FROM_ROWS rows on, each row also has int8 codes (vector-codes.ts) for the scan's first pass.
 */
export class VectorSet {
  readonly dims: number;
  /** The tenant's passage version this set reflects (search_state.version). */
  version = 0;
  #capacity = 0;
  #rows = 0;
  #dead = 0;
  #matrix = new SharedArrayBuffer(0);
  #rowDoc = new SharedArrayBuffer(0);
  #rowChunk = new Int32Array(0);
  #codes: CodeView | null = null;
  #codeArrays: CodeArrays | null = null;
  /** Codes could not be had (no WebAssembly SIMD, or more than a 4 GiB memory): scans stay exact-only. */
  #exactOnly = false;
  readonly #quantizeFrom: number;
  readonly #slotOf = new Map<string, { slot: number; start: number; count: number }>();
  #slotDoc: string[] = [];

  constructor(dims: number, options: { quantizeFrom?: number } = {}) {
    this.dims = dims;
    this.#quantizeFrom = options.quantizeFrom ?? QUANTIZE_FROM_ROWS;
  }

  get documents(): number {
    return this.#slotOf.size;
  }

  /** Rows held (removed ones included until the next compaction). */
  get rows(): number {
    return this.#rows;
  }

  get bytes(): number {
    return this.#matrix.byteLength + (this.#codes?.memory.buffer.byteLength ?? 0);
  }

  /**
   * What a scan reads, and how to read its answer: the current buffers and slot names. A later
   * compaction swaps them for new ones, so a scan in flight keeps a consistent view.
   */
  snapshot(): { target: ScanTarget; documentOf(slot: number): string | undefined; chunkOf(row: number): number } {
    const slotDoc = this.#slotDoc;
    const rowChunk = this.#rowChunk;
    return {
      target: { matrix: this.#matrix, rowDoc: this.#rowDoc, dims: this.dims, rows: this.#rows, codes: this.#codes },
      documentOf: (slot) => slotDoc[slot],
      chunkOf: (row) => rowChunk[row] ?? 0,
    };
  }

  /** Sets a document's vectors (none: removes it). */
  put(documentId: string, vectors: PassageVector[]): void {
    this.remove(documentId);
    const usable = vectors.filter((v) => v.bytes.byteLength === this.dims * 4);
    if (usable.length === 0) return;
    this.#reserve(this.#rows + usable.length);
    const slot = this.#slotDoc.length;
    this.#slotDoc.push(documentId);
    const start = this.#rows;
    const bytes = new Uint8Array(this.#matrix);
    const rowDoc = new Int32Array(this.#rowDoc);
    for (const v of usable) {
      // A byte copy into the matrix: no per-float decoding, and no alignment requirement on the source.
      if (LITTLE_ENDIAN) bytes.set(v.bytes, this.#rows * this.dims * 4);
      else this.#setSwapped(v.bytes, this.#rows);
      rowDoc[this.#rows] = slot;
      this.#rowChunk[this.#rows] = v.chunkIndex;
      if (this.#codes)
        quantizeRow(
          this.#codeArrays!,
          this.#codes.layout,
          this.#rows,
          new Float32Array(this.#matrix),
          this.#rows * this.dims,
        );
      this.#rows++;
    }
    this.#slotOf.set(documentId, { slot, start, count: usable.length });
    if (!this.#codes && !this.#exactOnly && this.#rows >= this.#quantizeFrom) this.#setCodes(this.#capacity, []);
  }

  remove(documentId: string): void {
    const entry = this.#slotOf.get(documentId);
    if (!entry) return;
    const rowDoc = new Int32Array(this.#rowDoc);
    for (let r = entry.start; r < entry.start + entry.count; r++) rowDoc[r] = -1;
    this.#dead += entry.count;
    this.#slotOf.delete(documentId);
    if (this.#dead > 1024 && this.#dead * 4 > this.#rows) this.#compact();
  }

  /** The slot mask of the allowed documents (those not in the set are ignored). */
  mask(documentIds: Iterable<string>): Uint8Array {
    const mask = new Uint8Array(this.#slotDoc.length);
    for (const id of documentIds) {
      const entry = this.#slotOf.get(id);
      if (entry) mask[entry.slot] = 1;
    }
    return mask;
  }

  /** The mean of a document's passage vectors, normalised (its "topic"), or null when absent. */
  centroid(documentId: string): Float32Array | null {
    const entry = this.#slotOf.get(documentId);
    if (!entry) return null;
    const matrix = new Float32Array(this.#matrix);
    const out = new Float32Array(this.dims);
    for (let r = entry.start; r < entry.start + entry.count; r++) {
      for (let i = 0; i < this.dims; i++) out[i]! += matrix[r * this.dims + i]!;
    }
    let norm = 0;
    for (let i = 0; i < this.dims; i++) norm += out[i]! * out[i]!;
    if (norm === 0) return null;
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < this.dims; i++) out[i]! *= scale;
    return out;
  }

  /** The best cosine of a document's passages against a query, or null when the document has none. */
  bestCosine(documentId: string, query: Float32Array): { score: number; chunkIndex: number } | null {
    const entry = this.#slotOf.get(documentId);
    if (!entry) return null;
    const matrix = new Float32Array(this.#matrix);
    let best: { score: number; chunkIndex: number } | null = null;
    for (let r = entry.start; r < entry.start + entry.count; r++) {
      let s = 0;
      for (let i = 0; i < this.dims; i++) s += matrix[r * this.dims + i]! * query[i]!;
      if (!best || s > best.score) best = { score: s, chunkIndex: this.#rowChunk[r]! };
    }
    return best;
  }

  #reserve(rows: number): void {
    if (rows <= this.#capacity) return;
    const capacity = Math.max(1024, this.#capacity * 2, rows);
    this.#resize(capacity, this.#rows);
  }

  #resize(capacity: number, keepRows: number): void {
    const matrix = new SharedArrayBuffer(capacity * this.dims * 4);
    new Uint8Array(matrix).set(new Uint8Array(this.#matrix, 0, keepRows * this.dims * 4));
    const rowDoc = new SharedArrayBuffer(capacity * 4);
    new Int32Array(rowDoc).set(new Int32Array(this.#rowDoc, 0, keepRows));
    const rowChunk = new Int32Array(capacity);
    rowChunk.set(this.#rowChunk.subarray(0, keepRows));
    this.#matrix = matrix;
    this.#rowDoc = rowDoc;
    this.#rowChunk = rowChunk;
    this.#capacity = capacity;
    if (this.#codes) this.#setCodes(capacity, [{ from: 0, to: 0, count: keepRows }]);
  }

  // Rewrites the live rows into fresh buffers (scans in flight keep reading the old ones).
  #compact(): void {
    const live = [...this.#slotOf.entries()];
    const oldMatrix = new Uint8Array(this.#matrix);
    const oldChunk = this.#rowChunk;
    const rows = this.#rows - this.#dead;
    const capacity = Math.max(1024, rows * 2);
    const matrix = new SharedArrayBuffer(capacity * this.dims * 4);
    const bytes = new Uint8Array(matrix);
    const rowDocBuffer = new SharedArrayBuffer(capacity * 4);
    const rowDoc = new Int32Array(rowDocBuffer);
    const rowChunk = new Int32Array(capacity);
    const slotDoc: string[] = [];
    const moved: { from: number; to: number; count: number }[] = [];
    let at = 0;
    for (const [id, entry] of live) {
      const slot = slotDoc.length;
      slotDoc.push(id);
      const rowBytes = this.dims * 4;
      bytes.set(oldMatrix.subarray(entry.start * rowBytes, (entry.start + entry.count) * rowBytes), at * rowBytes);
      for (let i = 0; i < entry.count; i++) {
        rowDoc[at + i] = slot;
        rowChunk[at + i] = oldChunk[entry.start + i]!;
      }
      moved.push({ from: entry.start, to: at, count: entry.count });
      this.#slotOf.set(id, { slot, start: at, count: entry.count });
      at += entry.count;
    }
    this.#matrix = matrix;
    this.#rowDoc = rowDocBuffer;
    this.#rowChunk = rowChunk;
    this.#slotDoc = slotDoc;
    this.#capacity = capacity;
    this.#rows = at;
    this.#dead = 0;
    if (this.#codes) this.#setCodes(capacity, moved);
  }

  /**
   * A new code memory for `capacity` rows, holding the current codes of the `moved` spans (old row →
   * new row) and new codes for the rows of the current matrix past them: a fresh memory, as scans
   * in flight keep reading the old one. None (scans stay exact-only) without WebAssembly SIMD or
   * beyond a 4 GiB memory.
   */
  #setCodes(capacity: number, moved: { from: number; to: number; count: number }[]): void {
    const layout = kernelModule() ? codeLayout(this.dims, capacity) : null;
    this.#exactOnly = layout === null;
    if (!layout) {
      this.#codes = null;
      this.#codeArrays = null;
      return;
    }
    const view = { memory: codeMemory(layout), layout };
    const arrays = codeArrays(view);
    let copied = 0;
    if (this.#codeArrays) {
      for (const m of moved) {
        copyRows(this.#codeArrays, arrays, layout, m.from, m.to, m.count);
        copied = Math.max(copied, m.to + m.count);
      }
    }
    const matrix = new Float32Array(this.#matrix);
    for (let row = copied; row < this.#rows; row++) quantizeRow(arrays, layout, row, matrix, row * this.dims);
    this.#codes = view;
    this.#codeArrays = arrays;
  }

  #setSwapped(source: Uint8Array, row: number): void {
    const view = new DataView(source.buffer, source.byteOffset, source.byteLength);
    const matrix = new Float32Array(this.#matrix);
    for (let i = 0; i < this.dims; i++) matrix[row * this.dims + i] = view.getFloat32(i * 4, true);
  }
}
