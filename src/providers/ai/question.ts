import type { ChatTurn } from './ai-provider.ts';
import { findAmounts } from './local/amounts.ts';
import { findDates } from './local/dates.ts';
import { findDurations } from './local/durations.ts';
import { contentStems, stem } from './text.ts';

// What a question asks for, read the same way by passage ranking (modules/chat) and by the local
// provider's extractive answer: the kind of fact it wants and its weighted words.

/** The kind of fact a question asks for. */
export type AnswerType = 'date' | 'amount' | 'party' | 'place' | 'duration' | 'number' | 'text';

/** A question as the ranking and the answerer read it. */
export interface QuestionAnalysis {
  type: AnswerType;
  /** "By when", "until when", "deadline": the date wanted is a limit ("by 14 March", "no later than"). */
  deadline: boolean;
  /** Stemmed content words and their weights (a follow-up's borrowed words weigh less). */
  terms: Map<string, number>;
}

// First match wins: "how much notice" is a duration before "how much" is an amount, "when" is a
// date before "term" is a duration.
const TYPE_CUES: [AnswerType, RegExp][] = [
  ['duration', /\bhow long\b|\bhow many (?:business |working |calendar )?(?:days|weeks|months|years|hours)\b|\bhow much (?:notice|time)\b|\bnotice period\b|\bwithin (?:what|how)\b|\bhow soon\b|\bduration\b|\blead time\b/],
  ['date', /\bwhen\b|\bwhat (?:date|day|year)\b|\bwhich (?:date|day|year)\b|\bby what date\b|\bdeadline\b|\bdue date\b|\bdate of\b|\bexpiry date\b|\bstart date\b|\bend date\b|\bon what (?:date|day)\b/],
  ['amount', /\bhow much\b|\btotal\b|\bfees?\b|\bprices?\b|\bcosts?\b|\brates?\b|\bamount\b|\bsalary\b|\brent\b|\bbudget\b|\bdeposit\b|\bbalance\b|\bcharged?\b|\bpremium\b|\bvalue of\b|\binvoiced?\b.*\bfor\b|\bretainer\b|\bwage\b|\bowed?\b/],
  ['party', /\bwho\b|\bwhom\b|\bwhose\b|\b(?:which|what) (?:company|companies|organi[sz]ation|firm|supplier|vendor|customer|client|person|party|bank|insurer|contractor|agency|employer|landlord|tenant|buyer|seller|carrier|auditor)\b|\bname of\b/],
  ['place', /\bwhere\b|\b(?:which|what) (?:city|country|town|address|location|venue|place|region|office|site|warehouse)\b/],
  ['number', /\bhow many\b|\bwhat percentage\b|\bwhat share\b|\bhow high\b/],
  ['duration', /\bterm\b|\bnotice\b|\bwithin\b|\bperiod\b/],
];

/** Words of questions that say nothing about the document's content. */
const META = new Set(['document', 'say', 'state', 'mention', 'tell', 'according', 'file', 'text', 'does', 'exactly'].map(stem));

/** Words a document uses for what a question asks in other words ("end" → "until", "expires"). */
const RELATED_GROUPS = [
  'end ends ending expire expires expiry expiration until terminate terminates termination conclude concludes',
  'begin begins start starts commence commences commencement effective',
  'pay pays payment payable paid settle transfer remit',
  'cost price fee fees charge amount total sum rate',
  'deliver delivery delivered ship shipment shipped dispatch',
  'sign signed signature execute executed',
  'notice notify notification',
  'renew renewal extend extension',
  'rent lease tenancy',
  'cancel cancellation',
  'salary compensation wage remuneration',
  'due deadline',
  'owe owed outstanding balance due payable',
  'hold held venue',
  'employ employee employment hire hired',
  'buyer purchaser customer client',
  'seller supplier vendor provider contractor',
  'landlord lessor',
  'tenant lessee',
];
const RELATED = new Map<string, Set<string>>();
for (const group of RELATED_GROUPS) {
  const stems = group.split(' ').map(stem);
  for (const s of stems) {
    const set = RELATED.get(s) ?? new Set<string>();
    for (const other of stems) if (other !== s) set.add(other);
    RELATED.set(s, set);
  }
}

/** Reads a question: its answer type and words, a short follow-up borrowing the previous question's. */
export function analyzeQuestion(question: string, history: ChatTurn[] = []): QuestionAnalysis {
  const terms = new Map<string, number>();
  const identifiers = identifyingStems(question);
  // Names and numbers of the question mostly say which document it is about (the session's own);
  // the other words say what it asks.
  for (const s of contentStems(question)) if (!META.has(s)) terms.set(s, identifiers.has(s) ? 0.3 : 1);
  let type = classifyQuestion(question);
  const previous = [...history].reverse().find((t) => t.role === 'user');
  if (previous && terms.size < 3) {
    // "And the weekend?" / "and when is it due?": the words (and maybe the kind) of the last question.
    for (const s of contentStems(previous.content)) if (!terms.has(s) && !META.has(s)) terms.set(s, 0.5);
    if (type === 'text') type = classifyQuestion(previous.content);
  }
  const deadline = /\bby when\b|\buntil when\b|\bby what date\b|\bdeadline\b|\bdue\b|\bno later than\b|\blatest\b|\bmust\b.*\bby\b/i.test(question);
  return { type, deadline, terms };
}

// Stems of the question's capitalised words (not its first) and of its codes and numbers.
function identifyingStems(question: string): Set<string> {
  const out = new Set<string>();
  const tokens = question.match(/[\p{L}\p{N}][\p{L}\p{N}&'’-]*/gu) ?? [];
  tokens.forEach((token, i) => {
    if ((i > 0 && /^\p{Lu}/u.test(token)) || /\d/.test(token)) for (const s of contentStems(token)) out.add(s);
  });
  return out;
}

/** The kind of fact a question asks for ('text' when it asks for no particular kind). */
export function classifyQuestion(question: string): AnswerType {
  const q = question.toLowerCase();
  for (const [type, cue] of TYPE_CUES) if (cue.test(q)) return type;
  return 'text';
}

/** How well a text's stems hold one question word: 1 the word itself, 0.6 a related word, else 0. */
export function termMatch(term: string, stems: ReadonlySet<string>): number {
  if (stems.has(term)) return 1;
  for (const related of RELATED.get(term) ?? []) if (stems.has(related)) return 0.6;
  return 0;
}

/**
 * The share (0..1) of the question's weight a text holds (`termMatch` per word); a word found only
 * in `context` (the heading above the text) counts half.
 */
export function termCoverage(terms: Map<string, number>, stems: ReadonlySet<string>, context?: ReadonlySet<string>): number {
  let total = 0;
  let held = 0;
  for (const [term, weight] of terms) {
    total += weight;
    held += weight * Math.max(termMatch(term, stems), context?.has(term) ? 0.5 : 0);
  }
  return total > 0 ? held / total : 0;
}

/**
 * The question's weights times the rarity of each word among `texts` (their stem sets): a word
 * every segment has ("customer" in a contract) tells less than one few have ("signed").
 */
export function weightByRarity(terms: Map<string, number>, texts: ReadonlySet<string>[]): Map<string, number> {
  const n = texts.length;
  const out = new Map<string, number>();
  for (const [term, weight] of terms) {
    const df = texts.reduce((count, stems) => count + (termMatch(term, stems) > 0 ? 1 : 0), 0);
    out.set(term, weight * Math.log(1 + n / Math.max(1, df)));
  }
  return out;
}

const MONTH_YEAR = /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{4}\b|\bQ[1-4]\s+\d{4}\b/i;

/**
 * How surely (0..1) a text holds a fact of the asked kind, by pattern: a calendar date, money, a
 * span of time, a number. Names (who, where) need the entity extractor: 0 here.
 */
export function factEvidence(type: AnswerType, text: string): number {
  switch (type) {
    case 'date':
      if (findDates(text).length > 0) return 1;
      return MONTH_YEAR.test(text) ? 0.7 : 0;
    case 'amount':
      if (findAmounts(text).length > 0) return 1;
      return /\d\s?%/.test(text) ? 0.6 : 0;
    case 'duration':
      return findDurations(text).length > 0 ? 1 : 0;
    case 'number': {
      const withoutDates = findDates(text).reduceRight((t, d) => t.slice(0, d.start) + t.slice(d.end), text);
      return /\d/.test(withoutDates) ? 1 : 0;
    }
    default:
      return 0;
  }
}
