/**
 * A WebAssembly SIMD kernel for the first pass of the semantic scan: exact integer dot products of a
 * query (int16) with a block of int8 rows. WebAssembly because JavaScript has no SIMD: the plain
 * Float32Array loop took 148 ms per 376k × 384 on one core, this kernel ~20 ms with every dimension
 * and a few ms for a query of few non-zero dimensions (docs/search.md).
 *
 * Codes are stored by column pairs (vector-codes.ts): in a block of BLOCK_ROWS rows, dimensions
 * 2p and 2p + 1 of every row lie side by side, `2 × BLOCK_ROWS` bytes a pair. Widened to int16 they
 * meet the query's two values of that pair in one `i32x4.dot_i16x8_s`, four rows at a time, and a
 * pair the query does not use is not read at all: the local provider's hashed query vectors use
 * ~20 of 384 dimensions, so a scan reads ~10 % of the codes.
 *
 * The module is a few hundred bytes, written out below instead of shipped as a binary so it needs no
 * build step and can be read: each instruction is named. It imports one shared memory (the vector
 * set's code memory, so every scan thread reads the same rows without a copy) and exports
 * `dots(block, pairs, count, out)`: `out` (BLOCK_ROWS int32) receives, for each row of the block at
 * `block`, the sum over the `count` entries at `pairs` — each two int32: the pair's byte offset in
 * the block and its two int16 query values — of the pair's dot product.
 */

/** Rows of a block: the unit of the code layout and of one kernel call. */
export const BLOCK_ROWS = 1024;

export type DotsFunction = (block: number, pairs: number, count: number, out: number) => void;

// --- a minimal WebAssembly binary encoder (https://webassembly.github.io/spec/core/binary/) ---
const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  i32Load: (offset: number) => [0x28, 2, ...uleb(offset)],
  loop: [0x03, 0x40],
  end: [0x0b],
  brIf: (depth: number) => [0x0d, depth],
  get: (local: number) => [0x20, ...uleb(local)],
  set: (local: number) => [0x21, ...uleb(local)],
  tee: (local: number) => [0x22, ...uleb(local)],
  i32Const: (n: number) => [0x41, ...sleb(n)],
  i32Eqz: [0x45],
  i32Shl: [0x74],
  i32LtU: [0x49],
  i32Add: [0x6a],
};
const simd = (code: number, ...immediates: number[]) => [0xfd, ...uleb(code), ...immediates];
const v128 = {
  load: (offset: number) => simd(0x00, 4, ...uleb(offset)),
  store: (offset: number) => simd(0x0b, 4, ...uleb(offset)),
  zero: simd(0x0c, ...new Array<number>(16).fill(0)),
  i32x4Splat: simd(0x11),
  i16x8ExtendLowI8x16S: simd(0x87),
  i16x8ExtendHighI8x16S: simd(0x88),
  i32x4Add: simd(0xae),
  i32x4DotI16x8S: simd(0xba),
};

/** Bytes of a pair's column read per inner iteration (unrolled: independent loads and sums). */
const STEP = 64;

function dotsBody(): number[] {
  // Parameters 0–3: block, pairs, count, out. Locals: 4 cursor in the column, 5 its end, 6 cursor in out, 7 entry end; 8 query pair (v128), 9 codes (v128).
  const [block, pairs, count, out, cursor, end, acc, last, query, codes] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const inner: number[] = [];
  for (let k = 0; k < STEP / 16; k++) {
    // 16 bytes = 8 rows × the pair; widened halves are 4 rows each, summed pairwise into 4 int32 lanes.
    inner.push(...op.get(cursor), ...v128.load(k * 16), ...op.set(codes));
    for (const [half, extend] of [
      [0, v128.i16x8ExtendLowI8x16S],
      [1, v128.i16x8ExtendHighI8x16S],
    ] as const) {
      const at = k * 32 + half * 16;
      inner.push(
        ...op.get(acc),
        ...op.get(acc),
        ...v128.load(at),
        ...op.get(codes),
        ...extend,
        ...op.get(query),
        ...v128.i32x4DotI16x8S,
        ...v128.i32x4Add,
        ...v128.store(at),
      );
    }
  }
  const locals = vec([
    [...uleb(4), I32],
    [...uleb(2), V128],
  ]);
  const code = [
    // out = 0
    ...op.get(out),
    ...op.set(acc),
    ...op.get(out),
    ...op.i32Const(BLOCK_ROWS * 4),
    ...op.i32Add,
    ...op.set(end),
    ...op.loop,
    ...op.get(acc),
    ...v128.zero,
    ...v128.store(0),
    ...op.get(acc),
    ...op.i32Const(16),
    ...op.i32Add,
    ...op.tee(acc),
    ...op.get(end),
    ...op.i32LtU,
    ...op.brIf(0),
    ...op.end,
    // each entry of `pairs`
    ...op.block,
    ...op.get(count),
    ...op.i32Eqz,
    ...op.brIf(0),
    ...op.get(pairs),
    ...op.get(count),
    ...op.i32Const(3),
    ...op.i32Shl,
    ...op.i32Add,
    ...op.set(last),
    ...op.loop,
    ...op.get(block),
    ...op.get(pairs),
    ...op.i32Load(0),
    ...op.i32Add,
    ...op.tee(cursor),
    ...op.i32Const(BLOCK_ROWS * 2),
    ...op.i32Add,
    ...op.set(end),
    ...op.get(pairs),
    ...op.i32Load(4),
    ...v128.i32x4Splat,
    ...op.set(query),
    ...op.get(out),
    ...op.set(acc),
    ...op.loop, // each STEP bytes of the pair's column
    ...inner,
    ...op.get(acc),
    ...op.i32Const(STEP * 2),
    ...op.i32Add,
    ...op.set(acc),
    ...op.get(cursor),
    ...op.i32Const(STEP),
    ...op.i32Add,
    ...op.tee(cursor),
    ...op.get(end),
    ...op.i32LtU,
    ...op.brIf(0),
    ...op.end,
    ...op.get(pairs),
    ...op.i32Const(8),
    ...op.i32Add,
    ...op.tee(pairs),
    ...op.get(last),
    ...op.i32LtU,
    ...op.brIf(0),
    ...op.end,
    ...op.end,
    ...op.end,
  ];
  return [...locals, ...code];
}

/** The module's bytes: type, import (env.memory, shared, up to 4 GiB), function, export, code. */
export function kernelBytes(): Uint8Array<ArrayBuffer> {
  const body = dotsBody();
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32]]), 0x00]])),
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x03, ...uleb(1), ...uleb(65536)]])),
    ...section(3, vec([[0x00]])),
    ...section(7, vec([[...name('dots'), 0x00, 0x00]])),
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ]);
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where WebAssembly SIMD is not available (the scan then runs in plain JavaScript). */
export function kernelModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    const bytes = kernelBytes();
    compiled = typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  }
  return compiled;
}

/** `dots` over a memory (instantiating is a few microseconds: done per scan, as each scan may bring another memory). */
export function dotsOver(memory: WebAssembly.Memory): DotsFunction | null {
  const module = kernelModule();
  if (!module) return null;
  return new WebAssembly.Instance(module, { env: { memory } }).exports['dots'] as DotsFunction;
}
