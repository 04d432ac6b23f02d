import { fnv1a, STOP_WORDS, stem, words } from '../text.ts';
import { foldWord, type WordVectors } from './word-vectors.ts';

/** Name stored with local vectors; bump it whenever features or weights change. */
export const HASH_EMBEDDING_MODEL = 'local-hash-v1';
export const HASH_EMBEDDING_DIMENSIONS = 384;

const UNIGRAM_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.6;
const TRIGRAM_WEIGHT = 0.25;

/**
 * A bag-of-features vector by signed feature hashing: stemmed word unigrams, bigrams of adjacent
 * content words, and character trigrams of each word (which catch spelling variants and shared
 * stems: "invoice"/"invoicing"). Sub-linear term frequency, L2-normalised. It matches shared
 * vocabulary only: synonyms ("car"/"automobile") and paraphrases do not meet unless a trigram does.
 */
export function hashEmbedding(text: string, dimensions = HASH_EMBEDDING_DIMENSIONS): Float32Array {
  const counts = new Map<string, number>();
  const add = (feature: string) => counts.set(feature, (counts.get(feature) ?? 0) + 1);
  let previous: string | null = null;
  for (const token of words(text)) {
    if (STOP_WORDS.has(token.lower) || token.lower.length < 2) {
      previous = null;
      continue;
    }
    const s = stem(token.lower);
    add(`u:${s}`);
    if (previous) add(`b:${previous} ${s}`);
    previous = s;
    if (!/\d/.test(s)) {
      const padded = `<${s}>`;
      for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`);
    }
  }

  const vector = new Float32Array(dimensions);
  for (const [feature, count] of counts) {
    const kind = feature.charCodeAt(0);
    const weight = kind === 117 /* u */ ? UNIGRAM_WEIGHT : kind === 98 /* b */ ? BIGRAM_WEIGHT : TRIGRAM_WEIGHT;
    const hash = fnv1a(feature);
    const sign = fnv1a(feature, 0x9747b28c) & 1 ? 1 : -1;
    vector[hash % dimensions]! += sign * weight * (1 + Math.log(count));
  }
  return normalize(vector);
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  return vector;
}

/** Dot product; the cosine similarity for unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * The local provider's passage embedding when word vectors are installed: the hashed features
 * above (exact words, stems, spelling) and the SIF-weighted mean of the text's word vectors
 * (meaning: "lease" near "rent"), each part unit length, weighted so that the cosine of two such
 * vectors is `(1 − share) · hashed cosine + share · word-vector cosine`. Exact terms therefore keep
 * their weight in a semantic score. Changing either part or the share changes the model id.
 */
export const WORD_VECTOR_EMBEDDING_MODEL = 'local-hash-glove-v2';
/** The word-vector part's share of the cosine. */
const WORD_VECTOR_SHARE = 0.5;

/** `hashEmbedding` and `sifEmbedding` side by side (the word-vector part zero when none of the words has a vector). */
export function hashAndWordVectorEmbedding(text: string, vectors: WordVectors | null): Float32Array {
  const hashed = hashEmbedding(text);
  const dims = vectors?.dims ?? WORD_VECTOR_DIMENSIONS;
  const out = new Float32Array(HASH_EMBEDDING_DIMENSIONS + dims);
  const meaning = vectors ? sifEmbedding(text, vectors) : null;
  const hashWeight = meaning ? Math.sqrt(1 - WORD_VECTOR_SHARE) : 1;
  for (let i = 0; i < HASH_EMBEDDING_DIMENSIONS; i++) out[i] = hashed[i]! * hashWeight;
  if (meaning) {
    const w = Math.sqrt(WORD_VECTOR_SHARE);
    for (let i = 0; i < dims; i++) out[HASH_EMBEDDING_DIMENSIONS + i] = meaning[i]! * w;
  }
  return normalize(out);
}

/** The dimensions of the word vectors the local model is built for (GloVe 100d). */
export const WORD_VECTOR_DIMENSIONS = 100;

/**
 * Smooth inverse frequency (Arora et al., 2017): the mean of the words' unit vectors, each weighted
 * a / (a + p(w)), p(w) the word's frequency estimated from its rank in the vectors (frequency
 * order, Zipf), so "the" and "report" weigh little and rare words much; stop words left out.
 * Null when no word has a vector.
 */
export function sifEmbedding(text: string, vectors: WordVectors): Float32Array | null {
  const out = new Float32Array(vectors.dims);
  const harmonic = Math.log(1.78 * vectors.size);
  let any = false;
  for (const token of words(text)) {
    const word = foldWord(token.lower);
    if (STOP_WORDS.has(word) || word.length < 2) continue;
    const rank = vectors.rank(word);
    if (rank < 0) continue;
    const p = 1 / ((rank + 1) * harmonic);
    any = vectors.addTo(out, word, SIF_A / (SIF_A + p)) || any;
  }
  if (!any) return null;
  return normalize(out);
}

/** SIF's smoothing constant. */
const SIF_A = 1e-3;
