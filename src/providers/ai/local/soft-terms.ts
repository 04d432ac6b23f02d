import type { QuestionAnalysis, SoftTerms } from '../question.ts';
import { contentStems, words } from '../text.ts';
import { foldWord, type WordVectors } from './word-vectors.ts';

/**
 * Soft matching of a question's words for the extractive answer, with the word vectors search's
 * soft-BM25 uses (docs/search.md): a question word also matches the document's words whose cosine
 * to it is at least `SOFT_THRESHOLD` ("ship" → "vessel", "voyage" → "journey"), worth
 * `SOFT_SCALE × cos²` — well under a related word of the hand-made groups (0.6), so that it
 * separates segments that hold none of the question's words and an exact word still decides
 * between two that do. GloVe places words by the company they keep: its neighbours are often
 * related rather than the same ("insurance" → "pension", "arrive" → "depart"), so only the nearest
 * (`STRONG_COSINE`, `strongTerms`) tell whether a document speaks of what is asked at all.
 */
const SOFT_THRESHOLD = 0.6;
const SOFT_SCALE = 0.5;
const STRONG_COSINE = 0.8;
/** At most this many neighbours per word: the nearest carry the sense, the tail drifts. */
const SOFT_NEIGHBOURS = 15;
/**
 * Only words rarer than the most frequent ones have neighbours here: GloVe places words by the
 * company they keep, so a common word's nearest are its opposites and its context ("late" → "early",
 * "next" → "last", "giving" → "without"); a rarer noun's are mostly the same thing ("ship" → "vessel").
 */
const MIN_RANK = 1000;

/**
 * Per noun of the question of full weight (not a name or number of the question, which say which
 * document it is about; not a verb, whose neighbours drift further), the stems of its near
 * neighbours and their weights. Empty without vectors.
 */
export function softTerms(
  question: string,
  analysis: Pick<QuestionAnalysis, 'terms' | 'nouns'>,
  vectors: WordVectors | null,
): SoftTerms {
  const out = new Map<string, Map<string, number>>();
  if (!vectors) return out;
  for (const token of words(question)) {
    const [term] = contentStems(token.lower);
    const folded = foldWord(token.lower);
    if (term === undefined || (analysis.terms.get(term) ?? 0) < 1 || !analysis.nouns.has(term) || out.has(term))
      continue;
    if (vectors.rank(folded) < MIN_RANK) continue;
    const near = new Map<string, number>();
    for (const { word, cosine } of vectors.neighbours(folded, SOFT_THRESHOLD, SOFT_NEIGHBOURS)) {
      const weight = SOFT_SCALE * cosine * cosine;
      for (const s of contentStems(word)) if (s !== term && (near.get(s) ?? 0) < weight) near.set(s, weight);
    }
    out.set(term, near);
  }
  return out;
}

/** The neighbours near enough to stand for the question's word itself ("ship" → "vessel", "insurance" → "insurer"). */
export function strongTerms(soft: SoftTerms): SoftTerms {
  const floor = SOFT_SCALE * STRONG_COSINE * STRONG_COSINE;
  return new Map([...soft].map(([term, near]) => [term, new Map([...near].filter(([, weight]) => weight >= floor))]));
}
