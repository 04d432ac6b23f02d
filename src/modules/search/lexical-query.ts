import type { WordVectors } from '../../providers/ai/local/word-vectors.ts';
import type { Concept, LexicalIndex, WeightedTerm } from './lexical-index.ts';
import { type Clause, fold, STOP_WORDS } from './query-syntax.ts';
import { termOf } from './search-terms.ts';

/** Soft term matching: a query word also counts its near neighbours in the word vectors (docs/search.md). */
export interface SoftMatching {
  vectors: WordVectors;
  /** Neighbours need at least this cosine to the query word. */
  threshold: number;
  /** A neighbour's occurrence counts cosine^power. */
  power: number;
  /** At most this many neighbours per query word. */
  neighbours: number;
}

/**
 * A query's clauses as the keyword index scores them. A word: its stem (weight 1) and, with soft
 * matching, the stems of its neighbours present in the tenant's index (weight cos^power, the best
 * when two neighbours share a stem). A prefix: every indexed stem starting with it. A phrase: its
 * words together (their least frequency), in the documents the database verified (`phrases`, by
 * clause position).
 */
export function conceptsOf(
  index: LexicalIndex,
  clauses: Clause[],
  soft: SoftMatching | null,
  phrases: Map<number, Uint8Array>,
): Concept[] {
  const dictionary = index.dictionary;
  return clauses.map((clause, position): Concept => {
    if (clause.kind === 'prefix') {
      const ids = new Set(index.termsStartingWith(fold(clause.text)));
      const own = dictionary.find(termOf(clause.text));
      if (own !== undefined) ids.add(own);
      return { terms: [...ids].map((id) => ({ id, weight: 1 })) };
    }
    if (clause.kind === 'phrase') {
      const ids: number[] = [];
      for (const word of clause.words) {
        if (STOP_WORDS.has(word)) continue;
        const id = dictionary.find(termOf(word));
        // A phrase word no document holds: the phrase matches nothing.
        if (id === undefined) return { terms: [] };
        ids.push(id);
      }
      return {
        terms: ids.map((id) => ({ id, weight: 1 })),
        conjunctive: true,
        only: phrases.get(position) ?? new Uint8Array(0),
      };
    }
    const weights = new Map<number, number>();
    const own = dictionary.find(termOf(clause.text));
    if (own !== undefined) weights.set(own, 1);
    if (soft) {
      for (const n of soft.vectors.neighbours(clause.text, soft.threshold, soft.neighbours)) {
        if (STOP_WORDS.has(n.word)) continue;
        const id = dictionary.find(termOf(n.word));
        if (id === undefined || id === own) continue;
        const weight = n.cosine ** soft.power;
        if (weight > (weights.get(id) ?? 0)) weights.set(id, weight);
      }
    }
    const terms: WeightedTerm[] = [...weights].map(([id, weight]) => ({ id, weight }));
    return { terms };
  });
}
