import { fnv1a, STOP_WORDS, stem, words } from '../text.ts';

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
