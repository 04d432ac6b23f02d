import type { Answer, ChatTurn, Passage } from '../ai-provider.ts';
import { contentStems, splitSentences } from '../text.ts';
import { dot, hashEmbedding } from './hash-embedding.ts';

/** What the local provider says when the passages do not answer the question. */
export const NOT_FOUND_ANSWER = 'I could not find this in the document.';

const MIN_OVERLAP = 0.3;
const MAX_SENTENCES = 3;
const MAX_CHARS = 700;

interface Scored {
  passage: number;
  sentence: number;
  text: string;
  score: number;
  overlap: number;
}

/**
 * Extractive answer: the passage sentences that best match the question (idf-weighted share of the
 * question's stemmed words they contain, plus hashed-vector cosine), quoted with [n] markers.
 * When no sentence holds at least ~30% of the question's weight, says so instead of guessing.
 * A short follow-up ("and when is it due?") borrows the words of the previous question.
 */
export function extractiveAnswer(question: string, passages: Passage[], history: ChatTurn[] = []): Answer & { parts: string[] } {
  const sentences: { passage: number; sentence: number; text: string; stems: Set<string> }[] = [];
  passages.forEach((p, passage) => {
    splitSentences(p.text).forEach((s, sentence) => {
      sentences.push({ passage, sentence, text: s.text, stems: new Set(contentStems(s.text)) });
    });
  });

  const weights = new Map<string, number>();
  for (const s of contentStems(question)) weights.set(s, 1);
  const previousQuestion = [...history].reverse().find((t) => t.role === 'user');
  if (weights.size < 3 && previousQuestion) {
    for (const s of contentStems(previousQuestion.content)) if (!weights.has(s)) weights.set(s, 0.5);
  }
  if (weights.size === 0 || sentences.length === 0) return { text: NOT_FOUND_ANSWER, used: [], parts: [NOT_FOUND_ANSWER] };

  // Rare words of the passages matter more than words every sentence has; unseen words count fully.
  const n = sentences.length;
  for (const [term, weight] of weights) {
    const df = sentences.reduce((acc, s) => acc + (s.stems.has(term) ? 1 : 0), 0);
    weights.set(term, weight * Math.log(1 + n / Math.max(1, df)));
  }
  const total = [...weights.values()].reduce((a, b) => a + b, 0);
  const questionVector = hashEmbedding(question);

  const scored: Scored[] = sentences.map((s) => {
    let matched = 0;
    for (const [term, weight] of weights) if (s.stems.has(term)) matched += weight;
    const overlap = total > 0 ? matched / total : 0;
    const cosine = Math.max(0, dot(questionVector, hashEmbedding(s.text)));
    const retrieval = passages[s.passage]!.score;
    // A heading ("Governing Law") matches the question's words but answers nothing.
    const brevity = s.text.split(/\s+/).length < 5 ? 0.5 : 1;
    const score = (0.75 * overlap + 0.25 * cosine + 0.01 * clamp01(retrieval)) * brevity;
    return { passage: s.passage, sentence: s.sentence, text: s.text, overlap, score };
  });
  scored.sort((a, b) => b.score - a.score || a.passage - b.passage || a.sentence - b.sentence);
  const best = scored[0]!;
  if (best.overlap < MIN_OVERLAP) return { text: NOT_FOUND_ANSWER, used: [], parts: [NOT_FOUND_ANSWER] };

  const chosen: Scored[] = [];
  let length = 0;
  for (const s of scored) {
    if (chosen.length >= MAX_SENTENCES || s.score < best.score * 0.6 || s.overlap < MIN_OVERLAP) break;
    if (chosen.some((c) => c.text === s.text)) continue;
    if (chosen.length > 0 && length + s.text.length > MAX_CHARS) continue;
    chosen.push(s);
    length += s.text.length;
  }
  chosen.sort((a, b) => a.passage - b.passage || a.sentence - b.sentence);
  const parts = chosen.map((c, i) => `${i > 0 ? ' ' : ''}"${c.text}" [${c.passage + 1}]`);
  return { text: parts.join(''), used: [...new Set(chosen.map((c) => c.passage))].sort((a, b) => a - b), parts };
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
