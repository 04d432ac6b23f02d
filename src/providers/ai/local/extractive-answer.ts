import type { Answer, ChatTurn, Entities, Passage } from '../ai-provider.ts';
import {
  type AnswerType,
  analyzeQuestion,
  type DateRole,
  factEvidence,
  namesDocumentKind,
  RELATIVE_TIME_EVIDENCE,
  type QuestionAnalysis,
  type SoftTerms,
  segmentStems,
  termCoverage,
  termMatch,
  weightByRarity,
} from '../question.ts';
import { type Segment, segmentText } from '../segmentation.ts';
import { contentStems, stem } from '../text.ts';
import { askedPeriod, derivedSum, givesPeriod, type Period } from './amount-periods.ts';
import { CURRENCY_CODES } from './amounts.ts';
import { type Candidate, NO_NAMES, type WantedNames } from './answer-candidate.ts';
import { definingSegment, followingTexts, headedList, listAnswer, listGoesOn, PROSE } from './answer-lists.ts';
import { ANSWER_BUDGET, MIN_SECOND_WORDS, runnerUp, trimAround, wordCount } from './second-sentence.ts';
import { softTerms, strongTerms } from './soft-terms.ts';
import type { WordVectors } from './word-vectors.ts';

/** What the local provider says when the passages do not answer the question. */
export const NOT_FOUND_ANSWER = 'I could not find this in the document.';

/** People, organisations and places of a text (the entity extractor, loaded only for who/where questions). */
export type NameFinder = (text: string) => Pick<Entities, 'people' | 'organizations' | 'places'>;

/** An answer and the pieces it streams in. */
export interface ComposedAnswer extends Answer {
  parts: string[];
}

/**
 * Below this share of the question's words, a segment does not answer it. Low: questions say in
 * their own words what documents write otherwise ("promise" for "shall make available"); whether
 * the documents speak of what is asked at all is the question's nouns' test (`unsupported`).
 */
const MIN_COVERAGE = 0.15;
/** A segment holding a fact of the asked kind answers with a little less of the question's words. */
const MIN_COVERAGE_TYPED = 0.08;
/** Longer answers are cut to the part around the fact. */
const MAX_WORDS = 40;
/** A cut answer keeps at least this many words, so it reads as a sentence. */
const MIN_FOCUS_WORDS = 12;

/** A sentence that opens on a word pointing back at the one before it. */
const ANAPHORIC =
  /^(?:It|This|That|These|Those|They|Such|Both|Neither|Either|He|She)\b(?!\s+(?:is|was)\s+(?:important|essential|necessary)\b)/;
/** The longest such sentence added to an answer. */
const MAX_FOLLOW_ON_WORDS = 20;

/** "Subject:", "Re:": the title of a message or memo, worth what a heading is to a question asking for a fact. */
const TITLE_LABEL = /^(?:subject|re|betreff)$/i;

/** How much a kind of segment is worth as an answer: a heading names a topic but answers nothing. */
const KIND_WEIGHT: Partial<Record<Segment['kind'], number>> = { heading: 0.4, signature: 0.6, header_field: 0.9 };

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
export function extractiveAnswer(
  question: string,
  passages: Passage[],
  history: ChatTurn[] = [],
  names?: NameFinder,
  vectors: WordVectors | null = null,
): ComposedAnswer {
  const analysis = analyzeQuestion(question, history);
  if (analysis.terms.size === 0) return notFound();
  // The passages' own words near the question's count as well as the vocabulary's nearest (soft-terms.ts).
  const soft = softTerms(
    question,
    analysis,
    vectors,
    passages.map((p) => p.text),
  );
  // "Who signed for Bramhall?" of a contract that calls Bramhall "the Client" after its first line.
  // Only for one party named: naming both ("between X and Y") asks about neither's role.
  const roles = definedRoles(question, passages);
  if (roles.length === 1 && !analysis.terms.has(roles[0]!)) analysis.terms.set(roles[0]!, 1);
  // "What does it cost a year?": a sum given for that period, or one worked out from a monthly one.
  const period = analysis.type === 'amount' ? askedPeriod(question) : null;
  const { candidates, terms } = scoreCandidates(analysis, passages, names, soft, {
    prefer: preferred(question, analysis, period),
    nameShape: analysis.type === 'party' ? askedNameShape(question) : undefined,
    shareAsked: analysis.type === 'amount' && SHARE_ASKED.test(question),
  });
  const best = typedFirst(analysis, candidates.filter(eligible));
  if (!best) return notFound();
  if (unsupported(analysis, candidates, terms, strongTerms(soft))) return notFound();

  // "What are the deliverables?", "what are the action items?": the list under the heading naming them.
  const headed = headedList(question, candidates);
  const list = headed?.list ?? listAnswer(question, best, candidates);
  if (list.length > 0) return quoted(passages, headed?.heading ?? best, listGoesOn(passages, list).join(' '));
  const chosen = [best];
  // "Total due:" with its value on the next line, or a lead-in whose fact follows it.
  const next = candidates.find((c) => c.passage === best.passage && c.order === best.order + 1);
  const leadIn =
    /:$/.test(best.segment.text) || best.segment.kind === 'heading' || (analysis.type !== 'text' && best.typed === 0);
  // "Training will be delivered by …" for "when are the sessions?": the date is a sentence or two
  // further on in the same paragraph ("Each session lasts 90 minutes. Sessions run on 15 July …"),
  // maybe past the end of the passage.
  const further =
    analysis.type !== 'text' && best.typed === 0 && !(next && next.typed > 0) && PROSE.has(best.segment.kind)
      ? followingTexts(passages, best.passage, best.order, 2)
          .map((text) => candidates.find((c) => c.segment.text === text))
          .find((c) => c !== undefined && c.typed > 0 && PROSE.has(c.segment.kind))
      : undefined;
  if (next && leadIn && (analysis.type === 'text' || next.typed > 0)) chosen.push(next);
  else if (further) chosen.push(further);
  // A name in a signature reads better with the title line under it.
  else if (next && best.segment.kind === 'signature' && next.segment.kind === 'signature' && best.typed > 0)
    chosen.push(next);
  // "The grant may only be used for the Project": what the Project is, where the document defines it.
  else if (analysis.type === 'purpose') {
    const definition = definingSegment(best, candidates);
    if (definition) chosen.push(definition);
  }
  // "… a home-working allowance of £26 a month. It is taxable.": a short sentence that goes on about
  // the same thing ("it", "this", "they") often decides a yes/no or why question.
  if (chosen.length === 1 && (analysis.type === 'text' || analysis.type === 'reason') && PROSE.has(best.segment.kind)) {
    const [after] = followingTexts(passages, best.passage, best.order, 1);
    if (after && ANAPHORIC.test(after) && after.split(/\s+/).length <= MAX_FOLLOW_ON_WORDS) {
      const follow = candidates.find((c) => c.segment.text === after);
      if (follow && PROSE.has(follow.segment.kind)) chosen.push(follow);
    }
  }

  const quote = chosen
    .map((c) => focus(c.segment.text, terms, analysis.type, c.names))
    .join(chosen[1]?.segment.kind === 'signature' ? ', ' : ' ');
  const derived = period ? chosen.map((c) => derivedSum(c.segment, period)).find(Boolean) : null;
  const lead = derived ? `${derived}: ` : '';
  // When the choice of sentence is not clear-cut, the runner-up goes with it (second-sentence.ts).
  const second = chosen.length === 1 ? runnerUp(analysis, best, candidates.filter(eligible)) : undefined;
  if (second) {
    const room = ANSWER_BUDGET - wordCount(quote);
    if (room >= MIN_SECOND_WORDS) {
      const secondQuote = trimAround(focus(second.segment.text, terms, analysis.type, second.names, room), terms, room);
      return quotedPair(passages, best, quote, second, secondQuote, lead);
    }
  }
  return quoted(passages, best, quote, lead);
}

/**
 * The best sentence and the runner-up, in document order when they share a passage (one quote, one
 * marker); else the best one first, each with the marker of its passage.
 */
function quotedPair(
  passages: Passage[],
  best: Candidate,
  quote: string,
  second: Candidate,
  secondQuote: string,
  lead: string,
): ComposedAnswer {
  if (second.passage === best.passage) {
    const joined = second.order < best.order ? `${secondQuote} ${quote}` : `${quote} ${secondQuote}`;
    return quoted(passages, best, joined, lead);
  }
  const marker = (c: Candidate) => {
    const page = passages[c.passage]!.page;
    return `[${c.passage + 1}]${page != null ? ` (page ${page})` : ''}`;
  };
  const text = `${lead}"${quote}" ${marker(best)} "${secondQuote}" ${marker(second)}`;
  return { text, used: [best.passage, second.passage], parts: streamPieces(text) };
}

/** A defined name: `Bramhall Logistics plc, of … ("the Client")`; group 1 the role word. */
const DEFINED_AS = String.raw`[^()]{0,200}?\(\s*(?:hereinafter\s+(?:called\s+|referred to as\s+)?)?["“]?(?:the\s+)?["“]?(\p{Lu}\p{Ll}+)["”]\s*\)`;

/**
 * The roles ("client", "borrower") the passages define for a name the question gives: contracts
 * name a party once and then only by its role, which the question's words should match.
 */
function definedRoles(question: string, passages: Passage[]): string[] {
  const names = (question.match(/(?<=\s)\p{Lu}[\p{L}'’-]{2,}/gu) ?? []).filter((t) => !/^(?:I|I'm|I've)$/.test(t));
  const out = new Set<string>();
  if (names.length !== 1) return [];
  for (const name of names) {
    const definition = new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b${DEFINED_AS}`, 'u');
    for (const passage of passages) {
      const role = definition.exec(passage.text)?.[1];
      if (role) out.add(stem(role));
    }
  }
  return [...out];
}

/**
 * Whether a segment holds enough of the question to answer it: a quarter of its words… (`MIN_COVERAGE`), or
 * fewer with a fact of the asked kind. A better-scored segment that does not is passed over, not the answer.
 */
function eligible(c: Candidate): boolean {
  return (
    c.coverage >= MIN_COVERAGE ||
    (c.typed >= 1 && c.coverage >= MIN_COVERAGE_TYPED) ||
    // "Due date: 05.03.2027" for "when does it have to be paid?": a field giving the fact in the
    // asked role answers whatever words the question uses for the rest.
    (c.typed >= ROLE_TYPED && FIELD_KINDS.has(c.segment.kind))
  );
}

/** What a fact said in the asked role is worth (`collectCandidates`: its evidence plus a half). */
const ROLE_TYPED = 1.5;
const FIELD_KINDS = new Set<Segment['kind']>(['field', 'header_field']);

/** How close to the best score a segment holding the asked kind of fact must come to be preferred to one without. */
const TYPED_PREFERENCE = 0.85;
/** The least share of the best segment's coverage a segment holding the fact must have to be preferred. */
const TYPED_MIN_COVERAGE_SHARE = 0.5;

/**
 * The best candidate, except that a question asking for a kind of fact (an amount, a date) is not
 * answered by a line that only repeats its words ("Rent review - Unit 3" for "what was the rent")
 * when a segment nearly as good holds a fact of that kind.
 */
function typedFirst(analysis: QuestionAnalysis, candidates: Candidate[]): Candidate | undefined {
  const best = candidates[0];
  if (!best || analysis.type === 'text' || best.typed > 0 || /:$/.test(best.segment.text)) return best;
  // A row or field holds a value of its own (a figure the type rules did not read as money): another
  // segment must then also hold at least half as much of the question, or it answers something else.
  const valued = best.segment.kind === 'table_row' || best.segment.kind === 'field';
  const typed = candidates.find(
    (c) =>
      c.typed > 0 &&
      c.coverage >= MIN_COVERAGE_TYPED &&
      (!valued || c.coverage >= TYPED_MIN_COVERAGE_SHARE * best.coverage),
  );
  return typed && typed.score >= TYPED_PREFERENCE * best.score ? typed : best;
}

/** The answer quoting `quote` from the best candidate's passage, with its [n] marker and page. */
function quoted(passages: Passage[], best: Candidate, quote: string, lead = ''): ComposedAnswer {
  const passage = passages[best.passage]!;
  const page = passage.page != null ? ` (page ${passage.page})` : '';
  const text = `${lead}"${quote}" [${best.passage + 1}]${page}`;
  return { text, used: [best.passage], parts: streamPieces(text) };
}

/**
 * Share of the question's (rarity-weighted) weight, in words that say what it asks, at which the
 * passages do not hold enough of it: words found nowhere in them, neither as written, nor as a
 * form of the same word, nor as a related word ("the cancellation fee" of an order form that never
 * mentions cancelling; "who guarantees" a loan no one guarantees).
 */
const UNSUPPORTED_SHARE = 0.5;

/** Whether the question's main words are missing from every passage: the documents do not answer it. */
function unsupported(
  analysis: QuestionAnalysis,
  candidates: Candidate[],
  terms: Map<string, number>,
  soft: SoftTerms,
): boolean {
  // A noun naming the kind of fact asked ("the premises" of "where", "the amount") is answered by the fact.
  const kindNouns = new Set(
    [...(TYPE_LABEL_WORDS[analysis.type] ?? []), ...(KIND_NOUNS[analysis.type] ?? [])].map(stem),
  );
  let total = 0;
  let missing = 0;
  for (const [term, weight] of terms) {
    total += weight;
    // Words naming the document (its parties, its kind) count in the total but are not required.
    if (
      (analysis.terms.get(term) ?? 0) < 1 ||
      !analysis.nouns.has(term) ||
      kindNouns.has(term) ||
      GENERIC_NOUNS.has(term) ||
      namesDocumentKind(term)
    )
      continue;
    if (!candidates.some((c) => termMatch(term, c.stems, soft) > 0 || termMatch(term, c.context, soft) > 0))
      missing += weight;
  }
  return total > 0 && missing / total >= UNSUPPORTED_SHARE;
}

/** Nouns that name no subject ("the action items", "the main points"): a document need not write them. */
const GENERIC_NOUNS = new Set(['item', 'items', 'point', 'points', 'thing', 'things', 'detail', 'details'].map(stem));

/** Every segment of the passages as a possible answer, best first. */
function scoreCandidates(
  analysis: QuestionAnalysis,
  passages: Passage[],
  names: NameFinder | undefined,
  soft: SoftTerms,
  asked: AskedFor,
): { candidates: Candidate[]; terms: Map<string, number> } {
  const candidates = collectCandidates(passages, analysis, names, asked);
  const terms = weightByRarity(
    analysis.terms,
    candidates.map((c) => c.stems),
  );
  const order = [...analysis.terms.keys()];
  // "How long is the lease?": its only words name the document the session is about, which every
  // segment of it is; what decides is the kind of fact (and a label naming it, "Term:").
  const aboutDocument = analysis.type !== 'text' && [...analysis.terms.values()].every((w) => w < 1);
  for (const c of candidates) {
    c.coverage = termCoverage(terms, c.stems, c.context, soft);
    if (aboutDocument) c.coverage = Math.max(c.coverage, ABOUT_DOCUMENT_COVERAGE);
    const held = aboutDocument ? ABOUT_DOCUMENT_COVERAGE : c.coverage;
    const base = analysis.type === 'text' ? held : 0.65 * held + 0.35 * c.typed;
    // A label that names what is asked ("Invoice No.:" for "the number of the invoice", "Approved
    // by:" for "who approved") and the question's words in its order ("notice period") tell which
    // of several segments with the same words answers; the retrieval score only breaks ties.
    const bonus = LABEL_BONUS * labelMatch(c.segment, analysis) + phraseBonus(order, c.segment.text);
    c.score = (base + bonus) * c.weight + 0.01 * clamp01(passages[c.passage]!.score);
  }
  candidates.sort((a, b) => b.score - a.score || a.passage - b.passage || a.order - b.order);
  return { candidates, terms };
}

/** The share of a question that only names its document that any segment of the document holds. */
const ABOUT_DOCUMENT_COVERAGE = 0.5;

/** Other nouns that name the kind of fact asked, not a subject the document must name. */
const KIND_NOUNS: Partial<Record<AnswerType, string[]>> = {
  place: ['premises', 'site', 'where', 'city', 'country', 'office'],
  date: ['time', 'when'],
  party: ['person', 'company', 'who'],
  // A period ("the quarterly charge") is answered by a sum for another one, worked out (amount-periods.ts).
  amount: ['money', 'figure', 'weekly', 'monthly', 'quarterly', 'yearly', 'annual', 'annually'],
  duration: ['time', 'long'],
  reason: ['reason', 'why'],
  // "What is the money for?" of a grant letter that never says money.
  purpose: ['purpose', 'use', 'money', 'cover'],
};

/** What a label that names the asked fact adds to a segment's score. */
const LABEL_BONUS = 0.2;
/** What each pair of the question's words found side by side adds, and the most it adds. */
const PHRASE_BONUS = 0.05;
const MAX_PHRASE_BONUS = 0.1;

/** Nouns a label uses for the kind of fact asked ("Due Date", "Total", "Address"), as stems. */
const TYPE_LABEL_WORDS: Partial<Record<AnswerType, string[]>> = {
  date: ['date', 'day', 'dated'],
  amount: ['amount', 'total', 'price', 'fee', 'cost', 'sum', 'value'],
  percent: ['rate', 'percentage'],
  party: ['name'],
  place: ['address', 'location', 'place', 'venue'],
  duration: ['period', 'term', 'duration'],
  frequency: ['frequency', 'interval'],
  law: ['law', 'jurisdiction'],
  reason: ['reason', 'cause'],
  purpose: ['purpose', 'use'],
};

/** The label of a segment: a field's, or the "Label:" its text opens with ("Rent: EUR 186,000 ..."). */
function labelOf(segment: Segment): string | null {
  if (segment.label) return segment.label;
  return /^([^:;|]{1,60}?)\s*:\s/.exec(segment.text)?.[1] ?? null;
}

/**
 * The share (0..1) of a segment's label words that name what the question asks: its words, or the
 * noun of the asked kind ("Due Date" for when). 0 unless one of them is the question's own.
 */
function labelMatch(segment: Segment, analysis: QuestionAnalysis): number {
  const label = labelOf(segment);
  if (!label) return 0;
  // Figures in a label ("VAT @ 15%") are values, not what it names.
  const stems = contentStems(label).filter((s) => !/\d/.test(s));
  if (/\b(?:No|Nr|Num)\b\.?|#/.test(label)) stems.push('number');
  if (stems.length === 0) return 0;
  const typeWords = new Set((TYPE_LABEL_WORDS[analysis.type] ?? []).map(stem));
  let asked = 0;
  let named = 0;
  for (const s of new Set(stems)) {
    const one = new Set([s]);
    const match = Math.max(0, ...[...analysis.terms.keys()].map((t) => termMatch(t, one)));
    if (match > 0) asked += match;
    else if (typeWords.has(s)) named += 1;
  }
  if (asked > 0) return Math.min(1, (asked + named) / new Set(stems).size);
  // "How long is the lease?" names only the document: a "Term:" label names what is asked, by itself;
  // a label that is only that noun ("Term", "Duration") names the document's own, more surely than a
  // part of it ("Rent-free period", "Notice period").
  const aboutDocument = [...analysis.terms.values()].every((w) => w < 1);
  if (!aboutDocument || named === 0) return 0;
  return new Set(stems).size === 1 ? 1 : (0.5 * named) / new Set(stems).size;
}

/** Pairs of the question's words (in order) that the text holds side by side, as a bonus. */
function phraseBonus(questionStems: string[], text: string): number {
  if (questionStems.length < 2) return 0;
  const seq = contentStems(text);
  const pairs = new Set(seq.slice(1).map((s, i) => `${seq[i]} ${s}`));
  let bonus = 0;
  for (let i = 1; i < questionStems.length; i++)
    if (pairs.has(`${questionStems[i - 1]} ${questionStems[i]}`)) bonus += PHRASE_BONUS;
  return Math.min(MAX_PHRASE_BONUS, bonus);
}

function notFound(): ComposedAnswer {
  return { text: NOT_FOUND_ANSWER, used: [], parts: [NOT_FOUND_ANSWER] };
}

function collectCandidates(
  passages: Passage[],
  analysis: QuestionAnalysis,
  names: NameFinder | undefined,
  { prefer, nameShape, shareAsked }: AskedFor,
): Candidate[] {
  const { type, role } = analysis;
  const seen = new Set<string>();
  const out: Candidate[] = [];
  const asked = new Set(analysis.terms.keys());
  passages.forEach((passage, index) => {
    const found = names && (type === 'party' || type === 'place') ? names(passage.text) : null;
    // A venue ("Millbrook Library") answers "where" too, less surely than a city. A name the
    // question itself gives ("who signed for Fernhill Software?") is what it is about, not its answer.
    const wanted: WantedNames = found
      ? type === 'party'
        ? {
            sure: [...notAsked(found.people, asked, false), ...notAsked(found.organizations, asked, true)],
            likely: [],
            shape: nameShape,
          }
        : { sure: notAsked(found.places, asked, false), likely: notAsked(found.organizations, asked, true) }
      : NO_NAMES;
    let heading = new Set<string>();
    // A lead-in says what the short lines under it are: "Nightly limits for a standard room:" over
    // its list items, "For Fernhill Software Limited:" or "HANAMURA MECHATRONICS CO., LTD." over
    // the By:/Name:/Title: lines of a signature block.
    let leadIn: Set<string> | null = null;
    segmentText(passage.text).forEach((segment, order) => {
      const stems = segmentStems(segment);
      const opener = segment.kind !== 'heading' && isLeadIn(segment.text);
      const follower = FOLLOWER_KINDS.has(segment.kind) && !opener;
      if (!follower) leadIn = null;
      const context =
        segment.kind === 'heading' ? new Set<string>() : leadIn ? new Set([...heading, ...leadIn]) : heading;
      if (segment.kind === 'heading') heading = stems;
      else if (opener) leadIn = stems;
      // Passages overlap: the same sentence seen twice counts once, in the better-ranked passage.
      if (seen.has(segment.text)) return;
      seen.add(segment.text);
      const weight =
        segment.kind === 'signature' && type === 'party'
          ? 1
          : type !== 'text' && TITLE_LABEL.test(segment.label ?? '')
            ? KIND_WEIGHT.heading!
            : (KIND_WEIGHT[segment.kind] ?? 1);
      let typed = typeEvidence(type, segment, wanted);
      if (shareAsked && typed < 1) typed = Math.max(typed, factEvidence('percent', segment.text));
      // "By when must it be paid?" wants the date given as a limit ("by 14 March 2026"), "when does
      // it end?" the one the term ends on: a date said in that role counts more, another less.
      // A role is said of a date ("by 14 March"): a time tied to an event ("on delivery") has none of
      // its own, and "by" before any capital ("required by the U.S. Food and Drug Administration") says none.
      if (role && typed > 0)
        typed =
          saysRole(role, segment) && !(type === 'date' && typed <= RELATIVE_TIME_EVIDENCE)
            ? typed + 0.5
            : typed * OTHER_ROLE * (role === 'revised' && SUPERSEDED.test(segment.text) ? OTHER_ROLE : 1);
      // A sum given for the asked period ("per year" for "the yearly total"), a person said to be
      // appointed for "the new treasurer": worth more, like a date in its asked role.
      if (prefer?.(segment))
        // A From: line or a closing answers "who sent it" by its place, a name the extractor knows or not.
        typed =
          typed > 0
            ? typed + 0.5
            : type === 'party' && (segment.kind === 'signature' || segment.kind === 'header_field')
              ? PREFERRED_UNNAMED
              : 0;
      out.push({ passage: index, segment, order, stems, context, typed, weight, names: wanted, coverage: 0, score: 0 });
    });
  });
  return out;
}

/** Names of a kind by a word they hold, for "which bank / insurer / hotel / carrier …". */
const NAME_SHAPES: [RegExp, RegExp][] = [
  [/\bbank\b/i, /\b(?:Bank|Banque|Banco|Banca|Bankhaus|Sparkasse|Building Society|Credit Union)\b/u],
  [
    /\b(?:insurer|insurance company|underwriter)\b/i,
    /\b(?:Insurance|Assurance|Assurances|Versicherung\p{L}*|Underwriting|Mutual)\b/u,
  ],
  [/\bhotel\b/i, /\b(?:Hotel|Hôtel)\b/u],
  [
    /\b(?:carrier|courier|haulier|shipping company|freight forwarder|forwarder)\b/i,
    /\b(?:Logistics|Logistik|Shipping|Freight|Transport|Express|Haulage|Couriers?|Lines)\b/u,
  ],
  [/\b(?:law firm|solicitors?|lawyers?)\b/i, /\b(?:LLP|Solicitors|Legal|Rechtsanwälte|Avocats)\b/u],
];

/** The shape of the names a "which <kind>" question asks for, if its kind is one that names carry. */
function askedNameShape(question: string): RegExp | undefined {
  const head =
    /^\s*(?:which|what)\s+([\p{L} ]{3,30}?)\b(?:is|was|are|were|do|does|did|will|has|have|holds?|handled|shipped|provides?)\b/iu.exec(
      question,
    )?.[1];
  return head ? NAME_SHAPES.find(([kind]) => kind.test(head))?.[1] : undefined;
}

/** Whether a segment says what the question prefers among segments holding the asked kind of fact. */
type Preference = (segment: Segment) => boolean;

/** What the question's wording adds to its type: a preference among typed segments, a shape of the names asked. */
interface AskedFor {
  prefer: Preference | null;
  nameShape: RegExp | undefined;
  /** "How much of the order value …", "the higher company rate": a share answers as well as a sum. */
  shareAsked?: boolean;
}

/** Words of a "how much" question that a percentage answers as well as a sum does. */
const SHARE_ASKED = /\bhow much of\b|\brates?\b|\bshare\b|\bportion\b|\bproportion\b|\bcontribut\w*/i;

/** "Who is the new treasurer?": a person said to be elected, appointed or replacing someone. */
const NEW_PERSON_ASKED = /\bnew\b|\breplac\w*|\btak\w* over\b|\bsucceed\w*|\bsuccessor\b/i;
const APPOINTED =
  /\b(?:elected|appointed|re-?appointed|replac(?:es|ing|ed)|succeed(?:s|ing|ed)|takes? over|took over|will take over|joins|joined|new)\b/i;

/** What a preferred segment holding no name of the asked kind is worth for a party question. */
const PREFERRED_UNNAMED = 0.8;
/** "Who sent / wrote …", "who is it from": the sender of a message or letter. */
const SENDER_ASKED = /^\s*who (?:sent|wrote|has sent|has written)\b|\bwho is (?:it|this|the \w+) from\b/i;

/** What the question prefers: a sum for its period, a person appointed for "the new …", the sender. */
function preferred(question: string, analysis: QuestionAnalysis, period: Period | null): Preference | null {
  if (period) return (segment) => givesPeriod(segment, period);
  if (analysis.type === 'party' && NEW_PERSON_ASKED.test(question)) return (segment) => APPOINTED.test(segment.text);
  // "Who sent the notice?", "who wrote the letter?": the From: line or the name under the closing.
  if (analysis.type === 'party' && SENDER_ASKED.test(question))
    return (segment) => segment.kind === 'signature' || /^from$/i.test(segment.label ?? '');
  return null;
}

/** Short units that read under the lead-in above them. */
const FOLLOWER_KINDS = new Set<Segment['kind']>(['list_item', 'table_row', 'field', 'signature', 'line']);

/** A lead-in: ends with a colon, or a short line in capitals (a party's name over its signature block). */
function isLeadIn(text: string): boolean {
  if (/:$/.test(text)) return true;
  return !/\p{Ll}/u.test(text) && /\p{Lu}/u.test(text) && text.split(/\s+/).length <= 8;
}

/**
 * The names the question does not give itself: an organisation half of whose words the question
 * holds ("the importer's coffee" → "… Coffee Importers Ltd") is its subject; a person only when
 * most of the name is there (a family name may also be a company's: "Hanamura Kenji" for Hanamura).
 */
function notAsked(found: string[], asked: ReadonlySet<string>, organisation: boolean): string[] {
  return found.filter((name) => {
    const stems = contentStems(name).filter((s) => !LEGAL_FORMS.has(s));
    if (stems.length === 0) return true;
    const share = stems.filter((s) => [...asked].some((t) => termMatch(t, new Set([s])) >= 0.8)).length / stems.length;
    return organisation ? share < 0.5 : share <= 0.5;
  });
}

const LEGAL_FORMS = new Set([
  'ltd',
  'limit',
  'limited',
  'inc',
  'llc',
  'plc',
  'gmbh',
  'co',
  'corp',
  'corporation',
  'company',
  'ag',
  'sa',
  'bv',
  'kg',
  'pty',
  'pvt',
  'dac',
  'llp',
  'kk',
]);
/** A dateline: one to four capitalised words, a comma, then (group 1) what should be a date. */
const DATELINE = /^\p{Lu}[\p{L}'’.-]*(?:\s+\p{Lu}[\p{L}'’.-]*){0,3},\s+(.{4,40})$/u;
const IN_NAMED_PLACE =
  /\b(?:in|at)\s+(?!(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Q[1-4])\b)\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)*/u;
/** What a date in another role than the asked one is worth (the contract's date for "when does it end?"). */
const OTHER_ROLE = 0.6;
/** Before a date: the word that gives it its role. */
const BEFORE_DATE = String.raw`\s+(?:on\s+)?(?:the\s+)?(?:\p{Lu}|\d)`;
/** A label of that role ("Due date:", "Expiry:"). */
const ROLE_LABEL = (words: string) => new RegExp(String.raw`\b(?:${words})\b[^.:]{0,25}:\s*\S`, 'iu');
/** "From USD 38.50 to USD 41.20", "from 5% to 7%", "from 3 July to 17 July": a figure changed to another. */
const CHANGE_FROM_TO = /\bfrom\s+(?:[\p{L}$€£¥]{1,4}\s?)?\d[^.;]{0,25}?\s+to\s+(?:[\p{L}$€£¥]{1,4}\s?)?\d/u;
const ROLE_CUES: Record<DateRole, RegExp[]> = {
  deadline: [
    new RegExp(
      String.raw`\b(?:by|until|before|no later than|on or before|due(?: on| by)?|latest|deadline|bis(?: zum)?)${BEFORE_DATE}`,
      'u',
    ),
    ROLE_LABEL('due|deadline|payable|fällig'),
  ],
  end: [
    new RegExp(String.raw`\b(?:until|till|through|ending|ends?|expir\w*|terminat\w*|conclud\w*)${BEFORE_DATE}`, 'u'),
    ROLE_LABEL('end|expiry|expiration|until'),
  ],
  start: [
    new RegExp(String.raw`\b(?:commenc\w*|start\w*|begin\w*|effective|as of|from)${BEFORE_DATE}`, 'u'),
    ROLE_LABEL('start|commencement|effective'),
  ],
  revised: [
    /\b(?:new|revised|updated|rescheduled|postponed|moves|moved|now|instead|current|including)\b/i,
    // "adjust the unit price from USD 38.50 to USD 41.20": a change gives the new figure after "to".
    CHANGE_FROM_TO,
  ],
  // "An additional £23,615.40", "increases by €35,000", "a surcharge of": a sum said as an addition.
  added: [
    /\b(?:additional|extra|increases?d? by|rises? by|(?:adds?|added)\b|plus|supplement\w*|adjustment|surcharge|top-up)\b/i,
  ],
  // "The completion date moves from 3 July to 17 July": the date (or sum) before the change.
  original: [
    /\b(?:originally|original|initially|previously|first planned|was (?:planned|scheduled|due))\b/i,
    /\bfrom\s+(?:the\s+)?\d[^.;]{0,30}\bto\b/iu,
  ],
};
/** "The parts we promised to ship on May 4": the date a change replaced, for "when will it now …". */
const SUPERSEDED =
  /\b(?:promised|original|originally|previous|previously|initial|initially|former|first planned|was (?:planned|scheduled|due))\b/i;
/** "The Tenant may end this Lease on …": an option to end, not the end. */
const OPTION = /\b(?:may|can|could|might|option to|right to)\s+(?:\S+\s+){0,2}?(?:end|terminate|cancel)\b[^.;]*/giu;

/** Whether a segment gives its date in the asked role. */
function saysRole(role: DateRole, segment: Segment): boolean {
  const text = `${segment.label ? `${segment.label}: ` : ''}${segment.text}`.replace(OPTION, '');
  return ROLE_CUES[role].some((cue) => cue.test(text));
}

/** Labels whose value is a person's name, and the shape of such a name (two to four capitalised words). */
const NAME_LABEL = /^(?:by|name|signed by|signatory|signed)$/i;
const PERSON_SHAPE = /^\p{Lu}[\p{L}'’.-]+(?:\s+\p{Lu}[\p{L}'’.-]+){1,3}$/u;

/** How surely (0..1) a segment holds a fact of the asked kind. */
function typeEvidence(type: AnswerType, segment: Segment, wantedNames: WantedNames): number {
  const text = segment.text;
  if (type === 'party' || type === 'place') {
    if (wantedNames.sure.some((name) => text.includes(name))) return 1;
    if (wantedNames.shape?.test(text)) return 0.8;
    // "By: Takemura Ryo" under a signature block: a name by its place, known to the extractor or not.
    if (type === 'party' && NAME_LABEL.test(segment.label ?? '') && PERSON_SHAPE.test(segment.value ?? '')) return 1;
    if (wantedNames.likely.some((name) => text.includes(name))) return 0.7;
    if (type === 'place') {
      if (
        /\b\d+\s+\p{Lu}\p{L}+\s+(?:Street|St|Road|Rd|Avenue|Ave|Lane|Square|Way|Drive|Boulevard|Place|Straße|Strasse)\b/u.test(
          text,
        )
      )
        return 0.8;
      // "Manchester Central, 22-23 September 2026": a dateline (a name, a comma, a date) gives the
      // place of the event or letter it stands under.
      const dateline = DATELINE.exec(text);
      if (dateline && factEvidence('date', dateline[1]!) >= 0.8) return 1;
      // "an industrial building in Kwai Chung": a name after "in" or "at" the extractor did not know.
      return IN_NAMED_PLACE.test(text) ? 0.5 : 0;
    }
    return /\p{Ll}[^.!?]*\b\p{Lu}\p{Ll}+\s+\p{Lu}\p{Ll}+/u.test(text) ? 0.4 : 0;
  }
  const evidence = factEvidence(type, text);
  // A figure under a column or label that names the currency ("Annual cost (USD): 184000").
  if (
    type === 'amount' &&
    evidence < 0.8 &&
    namesCurrency(segment.header?.join(' ') ?? segment.label ?? '') &&
    /\d/.test(text)
  )
    return 0.8;
  return evidence;
}

/** Whether a column title or label names a currency by its ISO code ("Amount (KES)", "Annual price (SEK)"). */
function namesCurrency(title: string): boolean {
  return (title.match(/\b[A-Z]{3}\b/g) ?? []).some((code) => CURRENCY_CODES.has(code));
}

/**
 * A long segment cut to the stretch around the question's words and the asked fact: pieces
 * between commas and semicolons, grown from the best one while the stretch stays short.
 */
function focus(
  text: string,
  terms: Map<string, number>,
  type: AnswerType,
  names: WantedNames = NO_NAMES,
  maxWords = MAX_WORDS,
): string {
  if (text.split(/\s+/).length <= maxWords) return text;
  // Not at the comma of "March 3, 2026" or "1,500".
  const pieces = text.split(/(?<=[,;:])\s+(?!\d)/);
  const typed = pieces.map(
    (piece) =>
      type !== 'text' &&
      typeEvidence(type, { kind: 'sentence', text: piece, start: 0, end: 0, page: null }, names) > 0.5,
  );
  const worth = pieces.map((piece, i) => {
    const stems = new Set(contentStems(piece));
    let value = 0;
    for (const [term, weight] of terms) if (stems.has(term)) value += weight;
    return value + (typed[i] ? 2 : 0);
  });
  // The stretch holds the asked fact: it grows from the best piece that has one, if any does.
  const start = worth.map((w, i) => (typed[i] || !typed.includes(true) ? w : -Infinity));
  let from = start.indexOf(Math.max(...start));
  let to = from;
  const words = (i: number, j: number) =>
    pieces
      .slice(i, j + 1)
      .join(' ')
      .split(/\s+/).length;
  // Grow towards pieces that hold something, or while the stretch is too short to read alone.
  for (;;) {
    const short = words(from, to) < MIN_FOCUS_WORDS;
    const left =
      from > 0 && words(from - 1, to) <= maxWords && (short || worth[from - 1]! > 0) ? worth[from - 1]! + 0.1 : -1;
    const right =
      to < pieces.length - 1 && words(from, to + 1) <= maxWords && (short || worth[to + 1]! > 0)
        ? worth[to + 1]! + 0.2
        : -1;
    if (left < 0 && right < 0) break;
    if (right >= left) to++;
    else from--;
  }
  const body = pieces
    .slice(from, to + 1)
    .join(' ')
    .replace(/[,;:]$/, '');
  return `${from > 0 ? '… ' : ''}${body}${to < pieces.length - 1 ? ' …' : ''}`;
}

/** The answer in a few pieces, as a model would stream it. */
function streamPieces(text: string): string[] {
  return text.match(/\S+(?:\s+\S+){0,5}\s*/g) ?? [text];
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
