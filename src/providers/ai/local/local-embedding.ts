import {
  HASH_EMBEDDING_DIMENSIONS,
  HASH_EMBEDDING_MODEL,
  hashAndWordVectorEmbedding,
  hashEmbedding,
  WORD_VECTOR_DIMENSIONS,
  WORD_VECTOR_EMBEDDING_MODEL,
} from './hash-embedding.ts';
import { loadWordVectors, WORD_VECTORS_ID, wordVectorsAvailable, wordVectorsNow } from './word-vectors.ts';

/**
 * Which local embedding this installation makes: hashed features and word vectors when the word
 * vectors are installed (the model id names both, so installing or changing them re-embeds), else
 * hashed features alone, as before. Decided once, at start, from what is on disk.
 */
export function localEmbeddingModel(): {
  model: string;
  dimensions: number;
  /** The embedding function; `wait`: load the word vectors first (else null while they are not loaded). */
  embedder(wait: boolean): Promise<((text: string) => Float32Array) | null>;
} {
  if (!wordVectorsAvailable()) {
    return {
      model: HASH_EMBEDDING_MODEL,
      dimensions: HASH_EMBEDDING_DIMENSIONS,
      embedder: async () => (text) => hashEmbedding(text),
    };
  }
  return {
    model: `${WORD_VECTOR_EMBEDDING_MODEL}-${WORD_VECTORS_ID}`,
    dimensions: HASH_EMBEDDING_DIMENSIONS + WORD_VECTOR_DIMENSIONS,
    async embedder(wait) {
      const vectors = wait ? await loadWordVectors() : wordVectorsNow();
      // Documents embedded while the vectors cannot be read at all keep the hashed part (the same model id, the word part zero).
      if (!vectors && !wait) return null;
      return (text) => hashAndWordVectorEmbedding(text, vectors);
    },
  };
}
