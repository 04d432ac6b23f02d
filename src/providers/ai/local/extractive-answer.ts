import type { Answer, ChatTurn, Entities, Passage } from '../ai-provider.ts';
import { type AnswerType, analyzeQuestion, factEvidence, termCoverage, weightByRarity } from '../question.ts';
import { type Segment, segmentText } from '../segmentation.ts';
import { contentStems } from '../text.ts';

/** What the local provider says when the passages do not answer the question. */
export const NOT_FOUND_ANSWER = 'I could not find this in the document.';

/** People, organisations and places of a text (the entity extractor, loaded only for who/where questions). */
export type NameFinder = (text: string) => Pick<Entities, 'people' | 'organizations' | 'places'>;

/** An answer and the pieces it streams in. */
export interface ComposedAnswer extends Answer {
  parts: string[];
}

/** Below this share of the question's words, a segment does not answer it. */
const MIN_COVERAGE = 0.25;
/** A segment holding a fact of the asked kind answers with a little less of the question's words. */
const MIN_COVERAGE_TYPED = 0.12;
/** Longer answers are cut to the part around the fact. */
const MAX_WORDS = 40;
/** A cut answer keeps at least this many words, so it reads as a sentence. */
const MIN_FOCUS_WORDS = 12;

/** How much a kind of segment is worth as an answer: a heading names a topic but answers nothing. */
const KIND_WEIGHT: Partial<Record<Segment['kind'], number>> = { heading: 0.4, signature: 0.6, header_field: 0.9 };

interface Candidate {
  passage: number;
  segment: Segment;
  /** Index of the segment in its passage. */
  order: number;
  stems: Set<string>;
  /** Stems of the heading above the segment. */
  context: Set<string>;
  typed: number;
  /** What its kind is worth as an answer (`KIND_WEIGHT`). */
  weight: number;
  coverage: number;
  score: number;
}

/** Whether answering needs people, organisations or places (so the caller loads the entity extractor). */
export function needsNames(question: string, history: ChatTurn[] = []): boolean {
  const { type } = analyzeQuestion(question, history);
  return type === 'party' || type === 'place';
}

/**
 * Extractive answer: the segment (sentence, clause, table row, field) of the passages that holds a
 * fact of the kind the question asks for (when → a date, how much → an amount, who → a person or
 * organisation, where → a place, how long → a duration) together with the question's words, quoted
 * with a [n] marker of its passage (and its page). When no segment holds enough of the question,
 * says so instead of guessing.
 */
export function extractiveAnswer(question: string, passages: Passage[], history: ChatTurn[] = [], names?: NameFinder): ComposedAnswer {
  const analysis = analyzeQuestion(question, history);
  if (analysis.terms.size === 0) return notFound();
  const candidates = collectCandidates(passages, analysis.type, names, analysis.deadline);
  const terms = weightByRarity(analysis.terms, candidates.map((c) => c.stems));
  for (const c of candidates) {
    c.coverage = termCoverage(terms, c.stems, c.context);
    const base = analysis.type === 'text' ? c.coverage : 0.65 * c.coverage + 0.35 * c.typed;
    // The retrieval score only breaks ties.
    c.score = base * c.weight + 0.01 * clamp01(passages[c.passage]!.score);
  }
  candidates.sort((a, b) => b.score - a.score || a.passage - b.passage || a.order - b.order);
  const best = candidates[0];
  if (!best || !(best.coverage >= MIN_COVERAGE || (best.typed >= 1 && best.coverage >= MIN_COVERAGE_TYPED))) return notFound();

  const chosen = [best];
  // "Total due:" with its value on the next line, or a lead-in whose fact follows it.
  const next = candidates.find((c) => c.passage === best.passage && c.order === best.order + 1);
  const leadIn = /:$/.test(best.segment.text) || best.segment.kind === 'heading' || (analysis.type !== 'text' && best.typed === 0);
  if (next && leadIn && (analysis.type === 'text' || next.typed > 0)) chosen.push(next);
  // A name in a signature reads better with the title line under it.
  else if (next && best.segment.kind === 'signature' && next.segment.kind === 'signature' && best.typed > 0) chosen.push(next);

  const passage = passages[best.passage]!;
  const quote = chosen.map((c) => focus(c.segment.text, terms, analysis.type)).join(chosen[1]?.segment.kind === 'signature' ? ', ' : ' ');
  const page = passage.page != null ? ` (page ${passage.page})` : '';
  const text = `"${quote}" [${best.passage + 1}]${page}`;
  return { text, used: [best.passage], parts: streamPieces(text) };
}

function notFound(): ComposedAnswer {
  return { text: NOT_FOUND_ANSWER, used: [], parts: [NOT_FOUND_ANSWER] };
}

function collectCandidates(passages: Passage[], type: AnswerType, names: NameFinder | undefined, deadline: boolean): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  passages.forEach((passage, index) => {
    const found = names && (type === 'party' || type === 'place') ? names(passage.text) : null;
    // A venue ("Millbrook Library") answers "where" too, less surely than a city.
    const wanted = found ? (type === 'party' ? { sure: [...found.people, ...found.organizations], likely: [] } : { sure: found.places, likely: found.organizations }) : NO_NAMES;
    let heading = new Set<string>();
    segmentText(passage.text).forEach((segment, order) => {
      const stems = segmentStems(segment);
      const context = segment.kind === 'heading' ? new Set<string>() : heading;
      if (segment.kind === 'heading') heading = stems;
      // Passages overlap: the same sentence seen twice counts once, in the better-ranked passage.
      if (seen.has(segment.text)) return;
      seen.add(segment.text);
      const weight = segment.kind === 'signature' && type === 'party' ? 1 : (KIND_WEIGHT[segment.kind] ?? 1);
      let typed = typeEvidence(type, segment, wanted);
      // "By when must it be paid?": a date given as a limit ("by 14 March 2026", "no later than").
      if (deadline && type === 'date' && typed > 0 && DEADLINE_CUE.test(segment.text)) typed += 0.5;
      out.push({ passage: index, segment, order, stems, context, typed, weight, coverage: 0, score: 0 });
    });
  });
  return out;
}

const NO_NAMES = { sure: [], likely: [] };
const DEADLINE_CUE = /\b(?:by|until|before|no later than|on or before|due(?: on| by)?|latest|deadline)\s+(?:the\s+)?(?:\p{Lu}|\d)/u;

/** Words that say what a signature or an e-mail header line is, as questions ask for it. */
const IMPLIED_WORDS: Record<string, string[]> = {
  signature: ['sign', 'signatur', 'writ', 'write', 'author', 'sender', 'letter'],
  from: ['send', 'sent', 'sender', 'author', 'writ', 'write', 'email', 'e-mail', 'mail'],
  to: ['recipient', 'address', 'send', 'sent', 'receiv'],
  date: ['date', 'send', 'sent', 'email', 'mail'],
  sent: ['date', 'send', 'sent', 'email', 'mail'],
  subject: ['subject', 'topic', 'about', 'email', 'mail'],
};

// The segment's stems, with what its kind or label says without writing it ("No. 4711" is a number).
function segmentStems(segment: Segment): Set<string> {
  const stems = new Set(contentStems(segment.text));
  // "No. 4711", "#4711", "Invoice 2025-117", "PO-44817": a reference number.
  if (/\b(?:No|Nr|Num)\.?\s*[\d#A-Z]|#\s?\d|\b(?:[A-Z]{1,5}[-/]?\d{3,}|\d{2,}[-/]\d{2,})\b/.test(segment.text)) stems.add('number');
  const implied = segment.kind === 'signature' ? IMPLIED_WORDS.signature : segment.kind === 'header_field' ? IMPLIED_WORDS[(segment.label ?? '').toLowerCase()] : undefined;
  for (const word of implied ?? []) stems.add(word);
  return stems;
}

/** How surely (0..1) a segment holds a fact of the asked kind. */
function typeEvidence(type: AnswerType, segment: Segment, wantedNames: { sure: string[]; likely: string[] }): number {
  const text = segment.text;
  if (type === 'party' || type === 'place') {
    if (wantedNames.sure.some((name) => text.includes(name))) return 1;
    if (wantedNames.likely.some((name) => text.includes(name))) return 0.7;
    if (type === 'place') return /\b\d+\s+\p{Lu}\p{L}+\s+(?:Street|St|Road|Rd|Avenue|Ave|Lane|Square|Way|Drive|Boulevard|Place|Straße|Strasse)\b/u.test(text) ? 0.8 : 0;
    return /\p{Ll}[^.!?]*\b\p{Lu}\p{Ll}+\s+\p{Lu}\p{Ll}+/u.test(text) ? 0.4 : 0;
  }
  const evidence = factEvidence(type, text);
  // A figure under a column or label that names the currency ("Annual cost (USD): 184000").
  if (type === 'amount' && evidence < 0.8 && /\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD)\b/.test(segment.header?.join(' ') ?? segment.label ?? '') && /\d/.test(text)) return 0.8;
  return evidence;
}

/**
 * A long segment cut to the stretch around the question's words and the asked fact: pieces
 * between commas and semicolons, grown from the best one while the stretch stays short.
 */
function focus(text: string, terms: Map<string, number>, type: AnswerType): string {
  if (text.split(/\s+/).length <= MAX_WORDS) return text;
  // Not at the comma of "March 3, 2026" or "1,500".
  const pieces = text.split(/(?<=[,;:])\s+(?!\d)/);
  const worth = pieces.map((piece) => {
    const stems = new Set(contentStems(piece));
    let value = 0;
    for (const [term, weight] of terms) if (stems.has(term)) value += weight;
    const typed = type !== 'text' && typeEvidence(type, { kind: 'sentence', text: piece, start: 0, end: 0, page: null }, NO_NAMES) > 0.5;
    return value + (typed ? 2 : 0);
  });
  let from = worth.indexOf(Math.max(...worth));
  let to = from;
  const words = (i: number, j: number) => pieces.slice(i, j + 1).join(' ').split(/\s+/).length;
  // Grow towards pieces that hold something, or while the stretch is too short to read alone.
  for (;;) {
    const short = words(from, to) < MIN_FOCUS_WORDS;
    const left = from > 0 && words(from - 1, to) <= MAX_WORDS && (short || worth[from - 1]! > 0) ? worth[from - 1]! + 0.1 : -1;
    const right = to < pieces.length - 1 && words(from, to + 1) <= MAX_WORDS && (short || worth[to + 1]! > 0) ? worth[to + 1]! + 0.2 : -1;
    if (left < 0 && right < 0) break;
    if (right >= left) to++;
    else from--;
  }
  const body = pieces.slice(from, to + 1).join(' ').replace(/[,;:]$/, '');
  return `${from > 0 ? '… ' : ''}${body}${to < pieces.length - 1 ? ' …' : ''}`;
}

/** The answer in a few pieces, as a model would stream it. */
function streamPieces(text: string): string[] {
  return text.match(/\S+(?:\s+\S+){0,5}\s*/g) ?? [text];
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
