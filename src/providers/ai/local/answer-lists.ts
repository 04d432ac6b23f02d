import type { Passage } from '../ai-provider.ts';
import { type Segment, segmentText } from '../segmentation.ts';
import type { Candidate } from './answer-candidate.ts';

// Answers that quote more than one segment: a list under its lead-in or heading (continued past the
// end of its passage), the sentence after the best one that holds the asked fact, and the sentence
// defining a term the best one only names.

/** A heading must hold this share of a list question's words to be the one naming the list. */
const HEADING_LIST_COVERAGE = 0.5;

/**
 * For a question wanting all of a list, the heading (or lead-in) that names it ("2. Deliverables",
 * "Action items") with the list under it, the heading holding most of the question first. A heading
 * is worth little as an answer by itself (`KIND_WEIGHT`), so the best-scored segment is often a
 * sentence that only mentions one item ("each deliverable").
 */
export function headedList(
  question: string,
  candidates: Candidate[],
): { heading: Candidate; list: Candidate[] } | null {
  if (!LIST_QUESTION.test(question)) return null;
  const headings = candidates
    .filter((c) => (c.segment.kind === 'heading' || /:$/.test(c.segment.text)) && c.coverage >= HEADING_LIST_COVERAGE)
    .sort((a, b) => b.coverage - a.coverage || a.passage - b.passage || a.order - b.order);
  for (const heading of headings) {
    const list = listAnswer(question, heading, candidates);
    if (list.length > 0) return { heading, list };
  }
  return null;
}

/**
 * The texts of a list answer, with the items that go on past the end of its passage: passages are
 * overlapping chunks, and the next one ranked holds the rest of a list a chunk boundary cut.
 */
export function listGoesOn(passages: Passage[], list: Candidate[]): string[] {
  const texts = list.map((c) => c.segment.text);
  const last = list.at(-1)!;
  const own = segmentText(passages[last.passage]!.text);
  if (last.order !== own.length - 1) return texts;
  let words = texts.join(' ').split(/\s+/).length;
  for (const [index, passage] of passages.entries()) {
    if (index === last.passage) continue;
    const segments = segmentText(passage.text);
    const at = segments.findIndex((s) => s.text.startsWith(last.segment.text));
    if (at < 0) continue;
    // The boundary may have cut the last item itself: the other passage has it whole.
    texts[texts.length - 1] = segments[at]!.text;
    for (const segment of segments.slice(at + 1)) {
      words += segment.text.split(/\s+/).length;
      if (segment.kind !== 'list_item' || words > MAX_LIST_WORDS) break;
      texts.push(segment.text);
    }
    break;
  }
  return texts;
}

/** Segments of running prose, which go on into the next one. */
export const PROSE = new Set<Segment['kind']>(['sentence', 'clause']);

/**
 * The texts of the `count` segments after one, in the document's order: in its passage, then in the
 * passage that overlaps its end (passages are overlapping chunks).
 */
export function followingTexts(passages: Passage[], passage: number, order: number, count: number): string[] {
  const own = segmentText(passages[passage]!.text);
  const out = own.slice(order + 1, order + 1 + count).map((s) => s.text);
  const last = own.at(-1)?.text;
  if (out.length >= count || last === undefined) return out;
  for (const [index, other] of passages.entries()) {
    if (index === passage) continue;
    const segments = segmentText(other.text);
    const at = segments.findIndex((s) => s.text === last);
    if (at >= 0) return [...out, ...segments.slice(at + 1, at + 1 + count - out.length).map((s) => s.text)];
  }
  return out;
}

/** "the Project", "the Premises": a capitalised term a contract defines elsewhere. */
const DEFINED_TERM = /\bthe (\p{Lu}[\p{L}-]+(?: \p{Lu}[\p{L}-]+){0,2})\b/gu;

/** The segment defining a term the answer only names ("… a refrigerated van … (the "Project")"), if any. */
export function definingSegment(best: Candidate, candidates: Candidate[]): Candidate | undefined {
  for (const [, term] of best.segment.text.matchAll(DEFINED_TERM)) {
    const defines = new RegExp(`\\((?:the\\s+)?["“']${term}["”']\\)`, 'u');
    const found = candidates.find((c) => c !== best && defines.test(c.segment.text));
    if (found) return found;
  }
  return undefined;
}

/** "What are the deliverables?", "which sub-processors", "list the …": a question wanting all of a list. */
export const LIST_QUESTION =
  /\b(?:what|which) (?:are|were)\b|\blist\b|\bwhich \p{L}+s\b|\bwhat \p{L}+s (?:are|do|does|did|will|have)\b|\ball the\b/iu;
/** The most words a list answer quotes. */
const MAX_LIST_WORDS = 70;

/**
 * The segments a list answer quotes, in order: a lead-in that ends with a colon ("Quantara will
 * deliver the following:") and the list items under it, or, for a question asking for all of a
 * list, the items beside the best one. Empty when the answer is not a list.
 */
export function listAnswer(question: string, best: Candidate, candidates: Candidate[]): Candidate[] {
  const byOrder = new Map(candidates.filter((c) => c.passage === best.passage).map((c) => [c.order, c]));
  // A heading ("2. Deliverables") over the lead-in or the list: the list under it.
  const under = best.segment.kind === 'heading' ? byOrder.get(best.order + 1) : undefined;
  const top = under && (/:$/.test(under.segment.text) || under.segment.kind === 'list_item') ? under : best;
  const leadIn = /:$/.test(top.segment.text);
  if (!leadIn && !(top.segment.kind === 'list_item' && (top !== best || LIST_QUESTION.test(question)))) return [];
  let first = top.order;
  if (!leadIn) while (byOrder.get(first - 1)?.segment.kind === 'list_item') first--;
  const items: Candidate[] = [];
  let words = leadIn ? top.segment.text.split(/\s+/).length : 0;
  for (let order = leadIn ? top.order + 1 : first; ; order++) {
    const item = byOrder.get(order);
    if (item?.segment.kind !== 'list_item') break;
    words += item.segment.text.split(/\s+/).length;
    if (words > MAX_LIST_WORDS) break;
    items.push(item);
  }
  // Fewer than two items is no list.
  if (items.length < 2 || (!leadIn && !items.includes(top))) return [];
  return leadIn ? [top, ...items] : items;
}
