import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { vectorToBytes } from '../../../src/lib/vectors.ts';
import { BLOCK_ROWS, dotsOver, kernelModule } from '../../../src/modules/search/int8-dot-kernel.ts';
import {
  codeArrays,
  codeLayout,
  codeMemory,
  QUANT_FLOATS,
  quantizeRow,
} from '../../../src/modules/search/vector-codes.ts';
import { mergeResults, rowDot, type ScanResult, scanTopK } from '../../../src/modules/search/vector-scan.ts';
import { ScanPool, type ScanTarget } from '../../../src/modules/search/vector-scan-pool.ts';
import { VectorSet } from '../../../src/modules/search/vector-set.ts';

const unit = (values: number[]) => {
  const v = Float32Array.from(values);
  const n = Math.hypot(...values);
  return v.map((x) => x / n);
};

/** A seeded generator (xorshift32), so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** Sparse-ish unit vectors like the hashed embeddings: a few large components over small noise. */
function randomVector(dims: number, random: () => number): Float32Array {
  const v = new Float32Array(dims);
  for (let i = 0; i < dims; i++) v[i] = (random() - 0.5) * 0.1;
  for (let j = 0; j < 6; j++) v[Math.floor(random() * dims)]! += random() * 2 - 1;
  return unit([...v]);
}

function scan(
  target: ScanTarget,
  query: Float32Array,
  k: number,
  options: { mask?: Uint8Array | null; start?: number; end?: number; exactOnly?: boolean } = {},
): ScanResult {
  return scanTopK({
    matrix: new Float32Array(target.matrix),
    rowDoc: new Int32Array(target.rowDoc),
    dims: target.dims,
    start: options.start ?? 0,
    end: options.end ?? target.rows,
    query,
    mask: options.mask ?? null,
    k,
    codes: options.exactOnly ? null : target.codes,
    slot: 0,
  });
}

/** The answer by definition: every allowed document's best row scored exactly, best k by score then slot. */
function bruteForce(target: ScanTarget, query: Float32Array, k: number, mask: Uint8Array | null): ScanResult {
  const matrix = new Float32Array(target.matrix);
  const rowDoc = new Int32Array(target.rowDoc);
  const best = new Map<number, { row: number; score: number }>();
  for (let row = 0; row < target.rows; row++) {
    const doc = rowDoc[row]!;
    if (doc < 0 || (mask && mask[doc] !== 1)) continue;
    const score = rowDot(matrix, row, target.dims, query);
    const have = best.get(doc);
    if (!have || score > have.score) best.set(doc, { row, score });
  }
  const sorted = [...best].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, k);
  return { docs: sorted.map((e) => e[0]), rows: sorted.map((e) => e[1].row), scores: sorted.map((e) => e[1].score) };
}

/** Every live row's codes and bounds are those its vector quantises to (after growth, compaction…). */
function assertCodesFresh(target: ScanTarget, label: string): void {
  const codes = target.codes!;
  const have = codeArrays(codes);
  const fresh = codeArrays({ memory: codeMemory(codes.layout), layout: codes.layout });
  const matrix = new Float32Array(target.matrix);
  const rowDoc = new Int32Array(target.rowDoc);
  const { pairs, blockBytes } = codes.layout;
  for (let row = 0; row < target.rows; row++) {
    if (rowDoc[row]! < 0) continue;
    quantizeRow(fresh, codes.layout, row, matrix, row * target.dims);
    const at = Math.floor(row / BLOCK_ROWS) * (blockBytes / 2) + (row % BLOCK_ROWS);
    for (let p = 0; p < pairs; p++)
      assert.equal(
        have.pairCodes[at + p * BLOCK_ROWS],
        fresh.pairCodes[at + p * BLOCK_ROWS],
        `${label}: row ${row}, pair ${p}`,
      );
    for (let i = 0; i < QUANT_FLOATS; i++)
      assert.equal(
        have.quant[row * QUANT_FLOATS + i],
        fresh.quant[row * QUANT_FLOATS + i],
        `${label}: row ${row} bound ${i}`,
      );
  }
}

describe('vector scan', () => {
  it('returns the best documents with their best passage, masked before the top-k, split ranges merged', () => {
    const set = new VectorSet(3);
    set.put('a', [
      { chunkIndex: 0, bytes: vectorToBytes(unit([1, 0, 0])) },
      { chunkIndex: 1, bytes: vectorToBytes(unit([0, 1, 0])) },
    ]);
    set.put('b', [{ chunkIndex: 0, bytes: vectorToBytes(unit([0.9, 0.1, 0])) }]);
    set.put('c', [{ chunkIndex: 0, bytes: vectorToBytes(unit([0, 0, 1])) }]);
    const snap = set.snapshot();
    const q = unit([0, 1, 0]);
    const all = scan(snap.target, q, 2);
    assert.deepEqual(all.docs.map(snap.documentOf), ['a', 'b']);
    assert.equal(snap.chunkOf(all.rows[0]!), 1);
    const masked = scan(snap.target, q, 1, { mask: set.mask(['b', 'c']) });
    assert.deepEqual(masked.docs.map(snap.documentOf), ['b']);
    const merged = mergeResults([scan(snap.target, q, 2, { end: 1 }), scan(snap.target, q, 2, { start: 1 })], 2);
    assert.deepEqual(merged.docs.map(snap.documentOf), ['a', 'b']);
    set.remove('a');
    set.put('b', []);
    const after = set.snapshot();
    assert.deepEqual(scan(after.target, q, 3).docs.map(after.documentOf), ['c']);
  });

  it('the SIMD kernel computes exact int8 × int16 dot products over the pairs it is given', () => {
    assert.ok(kernelModule(), 'WebAssembly SIMD is available on the platforms we run');
    const pairs = 6;
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const block = 0;
    const codes = new Int8Array(memory.buffer, block, pairs * BLOCK_ROWS * 2);
    const random = rng(7);
    for (let i = 0; i < codes.length; i++) codes[i] = Math.round(random() * 254) - 127;
    codes[0] = 127;
    codes[1] = -127;
    // The query uses pairs 0, 2 and 5 (values at their extremes included); the others are not listed.
    const query = new Map<number, [number, number]>([
      [0, [32767, -32767]],
      [2, [-1234, 0]],
      [5, [0, 4321]],
    ]);
    const listAt = codes.byteLength;
    const list = new Int32Array(memory.buffer, listAt, query.size * 2);
    [...query].forEach(([p, [q0, q1]], e) => {
      list[e * 2] = p * BLOCK_ROWS * 2;
      list[e * 2 + 1] = (q0 & 0xffff) | (q1 << 16);
    });
    const outAt = listAt + list.byteLength;
    new Int32Array(memory.buffer, outAt, BLOCK_ROWS).fill(99);
    dotsOver(memory)!(block, listAt, query.size, outAt);
    const out = new Int32Array(memory.buffer, outAt, BLOCK_ROWS);
    for (let r = 0; r < BLOCK_ROWS; r++) {
      let expected = 0;
      for (const [p, [q0, q1]] of query)
        expected += codes[p * BLOCK_ROWS * 2 + r * 2]! * q0 + codes[p * BLOCK_ROWS * 2 + r * 2 + 1]! * q1;
      assert.equal(out[r], expected, `row ${r}`);
    }
    dotsOver(memory)!(block, listAt, 0, outAt);
    assert.ok(
      out.every((x) => x === 0),
      'no pair: every row 0',
    );
  });

  it('the int8 first pass returns exactly the exact top-k: masks, ranges, ties, k, dimensions, after replacing and compacting', () => {
    for (const dims of [384, 99]) {
      const random = rng(dims);
      const set = new VectorSet(dims, { quantizeFrom: 0 });
      const ids: string[] = [];
      for (let d = 0; d < 1500; d++) {
        const passages = 1 + Math.floor(random() * 5);
        ids.push(`doc${d}`);
        set.put(
          `doc${d}`,
          Array.from({ length: passages }, (_, i) => ({
            chunkIndex: i,
            bytes: vectorToBytes(randomVector(dims, random)),
          })),
        );
      }
      // A crowd: documents closer to one another than int8 codes can tell apart, queried at its centre below.
      const centre = randomVector(dims, random);
      for (let d = 0; d < 300; d++) {
        ids.push(`crowd${d}`);
        const near = centre.map((x) => x + (random() - 0.5) * 0.02);
        set.put(`crowd${d}`, [{ chunkIndex: 0, bytes: vectorToBytes(unit([...near])) }]);
      }
      // Exact ties: documents that are copies of others.
      for (let d = 0; d < 60; d++)
        set.put(`copy${d}`, [
          {
            chunkIndex: 0,
            bytes: vectorToBytes(new Float32Array(set.snapshot().target.matrix, d * 7 * dims * 4, dims)),
          },
        ]);
      const check = (label: string) => {
        const snap = set.snapshot();
        assert.ok(snap.target.codes, `${label}: the set has codes`);
        assertCodesFresh(snap.target, label);
        for (let q = 0; q < 30; q++) {
          // Queries at a stored vector (a clear winner), random ones, and at the crowd (a top-k decided by less than the codes' error).
          const query =
            q % 5 === 4
              ? centre
              : q % 2 === 0
                ? new Float32Array(snap.target.matrix, Math.floor(random() * snap.target.rows) * dims * 4, dims).slice()
                : randomVector(dims, random);
          const k = [1, 5, 20, 100][q % 4]!;
          const mask = q % 3 === 0 ? set.mask(ids.filter(() => random() < 0.3)) : null;
          const expected = bruteForce(snap.target, query, k, mask);
          assert.deepEqual(scan(snap.target, query, k, { mask }), expected, `${label}, query ${q}`);
          assert.deepEqual(
            scan(snap.target, query, k, { mask, exactOnly: true }),
            expected,
            `${label}, query ${q}, exact only`,
          );
          const cut = Math.floor(snap.target.rows / 2);
          assert.deepEqual(
            mergeResults(
              [scan(snap.target, query, k, { mask, end: cut }), scan(snap.target, query, k, { mask, start: cut })],
              k,
            ),
            expected,
            `${label}, query ${q}, split`,
          );
        }
      };
      check(`${dims} dims`);
      // Replacing documents appends rows; removing enough of them compacts the matrix and its codes.
      for (let d = 0; d < 200; d++)
        set.put(ids[d]!, [{ chunkIndex: 0, bytes: vectorToBytes(randomVector(dims, random)) }]);
      const rowsBefore = set.snapshot().target.rows;
      for (let d = 200; d < 900; d++) set.remove(ids[d]!);
      assert.ok(set.snapshot().target.rows < rowsBefore, 'the matrix was compacted');
      check(`${dims} dims, after replacing and compacting`);
    }
  });

  it("stays exact when every rounding error of a row points the query's way (the bound is reached)", () => {
    // Row B is exactly representable; row A has B's codes less one step, and every other component
    // half a step off towards the query. The first pass ranks B above A; exactly, A is above B.
    const dims = 64;
    const random = rng(11);
    const query = unit(Array.from({ length: dims }, () => random() * 2 - 1));
    const j = query.findIndex((x, i) => i > 0 && x > 0.1);
    const s = 2 ** -10;
    // Codes leaning towards the query, so the scores are positive and the fillers (half of b) rank below.
    const codes = Array.from({ length: dims }, (_, i) =>
      i === 0 ? 127 : Math.max(-120, Math.min(120, Math.round(query[i]! * 300 + random() * 40 - 20))),
    );
    const b = Float32Array.from(codes, (c) => c * s);
    const a = Float32Array.from(codes, (c, i) =>
      i === 0 ? c * s : (c - (i === j ? 1 : 0) + 0.49 * Math.sign(query[i]!)) * s,
    );
    const set = new VectorSet(dims, { quantizeFrom: 0 });
    // b, then lesser documents (so b's bound is in force), then a.
    set.put('b', [{ chunkIndex: 0, bytes: vectorToBytes(b) }]);
    for (let d = 0; d < 20; d++)
      set.put(`filler${d}`, [{ chunkIndex: 0, bytes: vectorToBytes(Float32Array.from(codes, (c) => (c * s) / 2)) }]);
    set.put('a', [{ chunkIndex: 0, bytes: vectorToBytes(a) }]);
    const snap = set.snapshot();
    const matrix = new Float32Array(snap.target.matrix);
    assert.ok(rowDot(matrix, 21, dims, query) > rowDot(matrix, 0, dims, query), 'exactly, a is first');
    const top = scan(snap.target, query, 1);
    assert.deepEqual(top.docs.map(snap.documentOf), ['a']);
    assert.deepEqual(top, bruteForce(snap.target, query, 1, null));
  });

  it('a set keeps int8 codes only from a size on, and scans the same either way', () => {
    const random = rng(3);
    const small = new VectorSet(16, { quantizeFrom: 50 });
    const vectors = Array.from({ length: 60 }, () => randomVector(16, random));
    for (let d = 0; d < 49; d++) small.put(`d${d}`, [{ chunkIndex: 0, bytes: vectorToBytes(vectors[d]!) }]);
    assert.equal(small.snapshot().target.codes, null);
    const before = small.bytes;
    for (let d = 49; d < 60; d++) small.put(`d${d}`, [{ chunkIndex: 0, bytes: vectorToBytes(vectors[d]!) }]);
    const snap = small.snapshot();
    assert.ok(snap.target.codes);
    assert.ok(small.bytes > before, 'the codes count in the memory budget');
    const layout = codeLayout(15, 1500)!;
    assert.equal(layout.pairs, 8);
    assert.equal(layout.capacity, 2 * BLOCK_ROWS);
    assert.ok(codeMemory(layout).buffer.byteLength >= layout.codesOffset + 2 * layout.blockBytes);
    assert.deepEqual(scan(snap.target, vectors[3]!, 5), bruteForce(snap.target, vectors[3]!, 5, null));
  });

  it('scan threads (large sets) answer as the brute-force ranking, codes and all', async () => {
    const dims = 384;
    const random = rng(5);
    const set = new VectorSet(dims);
    const ids: string[] = [];
    // Past the size a scan is split over threads at (~10k passages of 384 dimensions).
    for (let d = 0; d < 4000; d++) {
      ids.push(`doc${d}`);
      set.put(
        `doc${d}`,
        Array.from({ length: 3 }, (_, i) => ({ chunkIndex: i, bytes: vectorToBytes(randomVector(dims, random)) })),
      );
    }
    const snap = set.snapshot();
    assert.ok(snap.target.codes && snap.target.rows * dims > 4_000_000);
    const pool = new ScanPool(2);
    try {
      for (let q = 0; q < 6; q++) {
        const query =
          q % 2 === 0
            ? new Float32Array(snap.target.matrix, q * 101 * dims * 4, dims).slice()
            : randomVector(dims, random);
        const mask = q % 3 === 0 ? set.mask(ids.filter(() => random() < 0.5)) : null;
        assert.deepEqual(
          await pool.scan(snap.target, query, mask, 20),
          bruteForce(snap.target, query, 20, mask),
          `query ${q}`,
        );
      }
    } finally {
      await pool.close();
    }
  });
});
