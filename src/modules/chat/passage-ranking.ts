import { dot } from '../../lib/vectors.ts';
import {
  factEvidence,
  passageStems,
  type QuestionAnalysis,
  termCoverage,
  weightByRarity,
} from '../../providers/ai/question.ts';
import { segmentText } from '../../providers/ai/segmentation.ts';

/** Passages handed to the model; enough to answer, few enough to stay on topic. */
export const CHAT_TOP_PASSAGES = 5;
/** Below this a passage shares too little with the question to count as evidence. */
export const CHAT_MIN_PASSAGE_SCORE = 0.08;

/** A passage and how well it answers the question, in [0, 1]. */
export interface RankedPassage {
  /** The passage's document, when passages of several documents are ranked together (folder and tenant chat). */
  documentId?: string;
  index: number;
  page: number | null;
  text: string;
  score: number;
}

/**
 * Ranks passages for a question: cosine of the embeddings (meaning, when the model captures it)
 * blended with the share of the question's words the passage holds (stems and related words,
 * weighted by rarity: exact names and numbers, which hashed or small embeddings blur), and whether
 * it holds a fact of the kind asked (a date for "when", money for "how much"). A passage's words
 * include what its segments say without writing them (`passageStems`, the answerer's reading): a
 * letter's closing answers "who signed", "No. 4711" a "number". Passages below
 * `minScore` are left out.
 */
export function rankPassages(
  question: { analysis: QuestionAnalysis; vector: Float32Array | null },
  passages: {
    documentId?: string;
    index: number;
    page: number | null;
    text: string;
    vector: Float32Array | null;
    /** In (0, 1]: how well search ranked the passage's document, against the best (folder and tenant chat). */
    weight?: number;
  }[],
  options: { top: number; minScore: number },
): RankedPassage[] {
  const { analysis } = question;
  const stems = passages.map((p) => passageStems(p.text));
  const terms = weightByRarity(analysis.terms, stems);
  const ranked = passages.map((p, i) => {
    const lexical = analysis.terms.size > 0 ? termCoverage(terms, stems[i]!) : 0;
    // A fact of the asked kind only helps a passage that is about the question at all.
    const typed = lexical > 0 ? factEvidence(analysis.type, p.text) : 0;
    const cosine = question.vector && p.vector ? Math.max(0, dot(question.vector, p.vector)) : null;
    const own = cosine === null ? 0.85 * lexical + 0.15 * typed : 0.5 * cosine + 0.4 * lexical + 0.1 * typed;
    // A passage alone may fit a question about another document of the same kind ("the notice period"):
    // the document's rank, which reads it whole (names, parties, summary), decides between them. Steep
    // (power 8): a document scored 0.9 of the best keeps 0.43 of its passages' scores, one at 0.95
    // keeps 0.66, so a close second can still answer (chosen on the corpus's tune split, docs/chat-and-agents.md).
    const score = p.weight === undefined ? own : own * p.weight ** 8;
    return {
      ...(p.documentId !== undefined ? { documentId: p.documentId } : {}),
      index: p.index,
      page: p.page,
      text: p.text,
      score: Math.min(1, score),
    };
  });
  const best = ranked
    .filter((p) => p.score >= options.minScore)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, options.top);
  // A list the best passage leaves open ("Quantara will deliver the following:" and two of four
  // items) goes on in the next chunk, whose items need not share a word with the question.
  const top = best[0];
  const next = top && ranked.find((p) => p.documentId === top.documentId && p.index === top.index + 1);
  if (next && !best.includes(next) && endsInList(top.text)) best.push(next);
  return best;
}

/** Whether a passage ends in a list item or a lead-in to one: the list may go on past it. */
function endsInList(text: string): boolean {
  const last = segmentText(text).at(-1);
  return last !== undefined && (last.kind === 'list_item' || /:$/.test(last.text));
}
