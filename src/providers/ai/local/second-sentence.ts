import type { QuestionAnalysis } from '../question.ts';
import { contentStems } from '../text.ts';
import type { Candidate } from './answer-candidate.ts';

// The runner-up sentence of a chat answer. Answers quote one sentence of about 20 words against a
// budget of 45; a quote that pinpoints the wrong sentence loses the fact. Per-question-type rules
// written for seen failures did not carry over to documents nobody studied (docs/chat-and-agents.md,
// "Eleventh pass"), so this rule is general: when the choice of sentence is not clear-cut, the answer
// also quotes the next-best one.

/** A runner-up scoring at least this share of the best one is about as likely to be the answer. */
export const CLOSE_SHARE = 0.7;
/**
 * Yes/no, why and what-for questions have no kind of fact that marks the answer: the sentence that
 * decides them often scores a little under one that repeats the question's words.
 */
export const OPEN_CLOSE_SHARE = 0.5;
/** The most words the quotes of an answer hold together. */
export const ANSWER_BUDGET = 40;
/** A second quote shorter than this says too little to be worth its words. */
export const MIN_SECOND_WORDS = 8;

/** Questions that name no kind of fact: yes/no (type `text`), why, what-for. */
const OPEN_TYPES = new Set<QuestionAnalysis['type']>(['text', 'reason', 'purpose']);
const NAMED_TYPES = new Set<QuestionAnalysis['type']>(['party', 'place']);

export const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * The segment to quote after the best one, if the choice is not clear-cut: the next-best eligible
 * candidate (another segment, not a heading) when it scores close to the best, when the question
 * asks for a kind of fact the best one does not hold and the runner-up does, or, for yes/no, why and
 * what-for questions, when it scores within a wider margin. Not when the question asks for a kind
 * of fact the best one holds and the runner-up does not. `candidates` are eligible, best first.
 */
export function runnerUp(
  analysis: Pick<QuestionAnalysis, 'type'>,
  best: Candidate,
  candidates: Candidate[],
): Candidate | undefined {
  const runner = candidates.find(
    (c) =>
      c !== best &&
      c.segment.text !== best.segment.text &&
      c.segment.kind !== 'heading' &&
      !(c.passage === best.passage && c.order === best.order),
  );
  if (!runner || best.score <= 0) return undefined;
  const open = OPEN_TYPES.has(analysis.type);
  // A winner holding the asked kind of fact over a runner-up without one is a clear choice.
  if (!open && best.typed > 0 && runner.typed <= 0) return undefined;
  // A who or where question answered by a sentence naming a person or place: a runner-up naming
  // another is more often the question's own subject ("the importer" of "which carrier ships the
  // importer's tea?") than a second answer.
  if (NAMED_TYPES.has(analysis.type) && best.typed >= 1) return undefined;
  const share = runner.score / best.score;
  if (share >= CLOSE_SHARE) return runner;
  if (!open && best.typed <= 0 && runner.typed > 0) return runner;
  if (open && share >= OPEN_CLOSE_SHARE) return runner;
  return undefined;
}

/**
 * `text` cut to at most `maxWords` words around the stretch that holds most of the question's
 * words and figures (a number often is the asked fact), with "…" where it was cut.
 */
export function trimAround(text: string, terms: Map<string, number>, maxWords: number): string {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length <= maxWords) return text;
  const worth = words.map((w) => {
    const stems = contentStems(w);
    let value = /\d/.test(w) ? 0.5 : 0;
    for (const s of stems) value += terms.get(s) ?? 0;
    return value;
  });
  let bestFrom = 0;
  let bestValue = -1;
  let value = 0;
  for (let i = 0; i < words.length; i++) {
    value += worth[i]!;
    if (i >= maxWords) value -= worth[i - maxWords]!;
    if (i >= maxWords - 1 && value > bestValue) {
      bestValue = value;
      bestFrom = i - maxWords + 1;
    }
  }
  // Centre the window on the words that matched, so a figure after the last one is kept.
  const matched = worth
    .map((w, i) => (w > 0 && i >= bestFrom && i < bestFrom + maxWords ? i : -1))
    .filter((i) => i >= 0);
  if (matched.length > 0) {
    const middle = (matched[0]! + matched.at(-1)! + 1) / 2;
    bestFrom = Math.min(words.length - maxWords, Math.max(0, Math.round(middle - maxWords / 2)));
  }
  const cut = words.slice(bestFrom, bestFrom + maxWords).join(' ');
  const open = bestFrom > 0 && !text.startsWith('…') ? '… ' : '';
  const close = bestFrom + maxWords < words.length ? ' …' : '';
  return `${open}${cut}${close}`;
}
