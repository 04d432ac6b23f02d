import { dot } from '../../lib/vectors.ts';

/** A passage and how well it answers the question, in [0, 1]. */
export interface RankedPassage {
  index: number;
  page: number | null;
  text: string;
  score: number;
}

const STOP = new Set(
  'a an and are as at be by can do does for from has have how i in is it its of on or the this that to was what when where which who why will with you your'.split(' '),
);

/** Lower-case content words of a text (3+ letters, no stop words), with a crude plural fold. */
export function contentTerms(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (raw.length < 3 || STOP.has(raw)) continue;
    out.add(raw.length > 4 && raw.endsWith('s') ? raw.slice(0, -1) : raw);
  }
  return out;
}

/**
 * Ranks passages for a question: cosine of the embeddings (meaning, when the model captures it)
 * blended with the share of the question's content words the passage holds (exact terms, names and
 * numbers, which hashed or small embeddings blur). Passages below `minScore` are left out.
 */
export function rankPassages(
  question: { terms: Set<string>; vector: Float32Array | null },
  passages: { index: number; page: number | null; text: string; vector: Float32Array | null }[],
  options: { top: number; minScore: number },
): RankedPassage[] {
  const ranked = passages.map((p) => {
    const cosine = question.vector && p.vector ? Math.max(0, dot(question.vector, p.vector)) : 0;
    let lexical = 0;
    if (question.terms.size > 0) {
      const have = contentTerms(p.text);
      let hits = 0;
      for (const t of question.terms) if (have.has(t)) hits += 1;
      lexical = hits / question.terms.size;
    }
    const score = question.vector && p.vector ? 0.6 * cosine + 0.4 * lexical : lexical;
    return { index: p.index, page: p.page, text: p.text, score: Math.min(1, score) };
  });
  return ranked
    .filter((p) => p.score >= options.minScore)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, options.top);
}
