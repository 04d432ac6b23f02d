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
 * neighbours and their weights; and per word of full weight that is not a participle, the words of
 * `texts` (the passages) near it. Empty without vectors.
 */
export function softTerms(
  question: string,
  analysis: Pick<QuestionAnalysis, 'terms' | 'nouns'>,
  vectors: WordVectors | null,
  texts: readonly string[] = [],
): SoftTerms {
  const out = new Map<string, Map<string, number>>();
  if (!vectors) return out;
  const vocabulary = texts.length > 0 ? documentVocabulary(texts, vectors) : [];
  for (const token of words(question)) {
    const [term] = contentStems(token.lower);
    const folded = foldWord(token.lower);
    if (term === undefined || (analysis.terms.get(term) ?? 0) < 1 || out.has(term)) continue;
    const near = new Map<string, number>();
    const add = (word: string, cosine: number) => {
      const weight = SOFT_SCALE * cosine * cosine;
      for (const s of contentStems(word)) if (s !== term && (near.get(s) ?? 0) < weight) near.set(s, weight);
    };
    if (analysis.nouns.has(term) && vectors.rank(folded) >= MIN_RANK)
      for (const { word, cosine } of vectors.neighbours(folded, SOFT_THRESHOLD, SOFT_NEIGHBOURS)) add(word, cosine);
    // The passages' own words near the question's ("information" → "data", "sea" → "ocean",
    // "deal" → "agreement"): the vocabulary's nearest fifteen miss a document's word at a cosine of
    // 0.65 ("cargo" → "shipment") and frequent question words have none above; the document's words
    // are few, so each is compared directly. Its frequent words are left out (`MIN_DOCUMENT_RANK`):
    // "late" is near "days", "taken" near "not".
    if (analysis.nouns.has(term) || !PARTICIPLE.test(token.lower))
      for (const word of vocabulary) {
        if (word === folded) continue;
        const cosine = vectors.cosine(folded, word);
        if (cosine !== null && cosine >= SOFT_THRESHOLD) add(word, cosine);
      }
    if (near.size > 0 || analysis.nouns.has(term)) out.set(term, near);
  }
  return out;
}

/**
 * Document words rarer than this rank are compared with the question's words: the most frequent
 * ones are near everything ("days", "good", "monday" are within 0.7 of "late", "performance", "told").
 */
const MIN_DOCUMENT_RANK = 300;
/** A verb's participle ("taken", "told", "inspected") drifts to its context; its stem still matches as written. */
const PARTICIPLE = /(?:ed|ing|en)$/;

/** The distinct words of the passages the vectors know, outside the most frequent. */
function documentVocabulary(texts: readonly string[], vectors: WordVectors): string[] {
  const out = new Set<string>();
  for (const text of texts)
    for (const token of words(text)) {
      if (/\d/.test(token.lower)) continue;
      const folded = foldWord(token.lower);
      if (vectors.rank(folded) >= MIN_DOCUMENT_RANK) out.add(folded);
    }
  return [...out];
}

/** The neighbours near enough to stand for the question's word itself ("ship" → "vessel", "deal" → "agreement"). */
export function strongTerms(soft: SoftTerms): SoftTerms {
  const floor = SOFT_SCALE * STRONG_COSINE * STRONG_COSINE;
  return new Map([...soft].map(([term, near]) => [term, new Map([...near].filter(([, weight]) => weight >= floor))]));
}
