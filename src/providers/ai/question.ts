import type { ChatTurn } from './ai-provider.ts';
import { findAmounts } from './local/amounts.ts';
import { findDates } from './local/dates.ts';
import { findDurations } from './local/durations.ts';
import { type Segment, segmentText } from './segmentation.ts';
import { contentStems, stem } from './text.ts';

// What a question asks for, read the same way by passage ranking (modules/chat) and by the local
// provider's extractive answer: the kind of fact it wants and its weighted words.

/** What a date question asks the date of (`QuestionAnalysis.role`). */
export type DateRole = 'deadline' | 'revised' | 'original' | 'added' | 'end' | 'start';

/** A what/which question whose phrase ends on a noun of a kind of fact ("… the original finish date?"). */
const HEAD_NOUNS: [AnswerType, RegExp][] = [
  ['date', /^\s*(?:what|which)\b[^?]*\b(?:date|day|deadline)\s*\??\s*$/],
  ['place', /^\s*(?:what|which)\b[^?]*\b(?:address|location|venue)\s*\??\s*$/],
  ['place', /^\s*(?:what|which) (?:port|city|town|country|airport|station)\b/],
  // "Which bank is the rent paid into?": a party, whatever money its other words name.
  [
    'party',
    /^\s*(?:what|which) (?:company|companies|organi[sz]ation|firm|supplier|vendor|customer|client|person|bank|insurer|contractor|subcontractor|agency|employer|landlord|carrier|courier|haulier|auditor|lender|broker|law firm|solicitors?)\b/,
  ],
  [
    'amount',
    /^\s*(?:what|which)\b[^?]*\b(?:sum|amount|price|cost|fee|total|value|pay|salary|wage|rent|deposit|premium|balance)(?:\s+(?:now|today|currently|then|(?:this|per|a|each|every) \w+))?\s*\??\s*$/,
  ],
];

/** The kind of fact a question asks for. */
export type AnswerType =
  | 'date'
  | 'amount'
  | 'percent'
  | 'party'
  | 'place'
  | 'duration'
  | 'frequency'
  | 'number'
  | 'law'
  /** "Why …?": a sentence that gives a reason ("because of flood damage", "Reason for credit: …"). */
  | 'reason'
  /** "What is the grant for?", "what does the service charge cover?": what money or a thing is for ("to cover …"). */
  | 'purpose'
  | 'text';

/** A question as the ranking and the answerer read it. */
export interface QuestionAnalysis {
  type: AnswerType;
  /** "By when", "until when", "deadline": the date wanted is a limit ("by 14 March", "no later than"). */
  deadline: boolean;
  /**
   * Which date of several a date question wants: a limit (`deadline`), the end of a term ("when
   * does it end / expire"), its start, or the date as changed ("now", "new", "rescheduled").
   */
  role: DateRole | null;
  /** Stemmed content words and their weights (a follow-up's borrowed words weigh less). */
  terms: Map<string, number>;
  /**
   * Stems of the question's words used as nouns ("the cancellation fee", "a company car"): what it
   * asks about, which a document that answers it names. Its verbs ("apply", "dispute", "stored")
   * are paraphrased freely and say less whether the document holds the answer.
   */
  nouns: Set<string>;
}

/**
 * A question asking what something is for: a what-question ending on "for" ("what is the deposit
 * for?"), on a verb of spending or using and its preposition ("what will it pay for", "be spent
 * on"), or on "cover"; or one naming a purpose ("meant to cover", "the purpose of").
 */
const PURPOSE_QUESTION =
  /\bwhat\b[^?]*\s(?:for|towards?)\s*\??\s*$|\bwhat\b[^?]*\b(?:use[ds]?|spen[dt]|put|go(?:es|ing)?|pay|paid|using|spending)\s+(?:it\s+|them\s+|(?:the|this|that|our|my|your|their)\s+(?:[a-z-]+\s+){1,3})?(?:on|for|to|towards?)\s*\??\s*$|\bbe (?:used|spent) (?:for|on|to)\b|\bwhat\b[^?]*\bcover(?:s|ed)?\s*\??\s*$|\b(?:meant|intended|supposed|designed) (?:to cover|for)\b|\b(?:purpose|use) of (?:the|this|that|our|my)\b/;

/** "How much" of a thing measured in units (energy, fuel, water, data, space), or of anything used up or produced. */
const MEASURED_QUANTITY =
  /\bhow much (?:electricity|energy|power|gas|water|fuel|diesel|petrol|heat|heating|data|storage|bandwidth|space|floor ?space|waste|material|weight|cargo|steel|concrete|timber|paper)\b|\bhow much\b[^?]{0,40}\b(?:use|used|consume|consumed|burn|burned|burnt|produce|produced|generate|generated|collect|collected|recycle|recycled)\b/;

// First match wins: "how much notice" is a duration before "how much" is an amount, "when" is a
// date before "term" is a duration.
const TYPE_CUES: [AnswerType, RegExp][] = [
  ['reason', /^\s*(?:and\s+)?why\b|\bwhat (?:is|was|were|are) the reasons?\b|\bhow come\b|\bwhat caused\b/],
  // "What is the money for?", "what can the grant be spent on?", "what does the charge cover?":
  // before money, whose words ("money", "fee", "grant") these questions hold.
  ['purpose', PURPOSE_QUESTION],
  // "How often is rent paid?": a frequency ("quarterly", "every second Friday", "once a year").
  ['frequency', /\bhow (?:often|frequently)\b|\bhow many times\b|\bat what (?:interval|frequency)\b/],
  // "By how much can the price rise?": the change, a percentage or a sum.
  ['percent', /\bby how much\b/],
  // "How fast / how quickly must they respond?": a span of time.
  ['duration', /\bhow (?:fast|quickly|promptly)\b/],
  // "What's my last day?", "the first day of work": a date.
  ['date', /\b(?:last|first|final|closing|opening|start(?:ing)?|end(?:ing)?) (?:working )?(?:day|date)\b/],
  // "How heavy", "how big", "what size": a figure with a unit.
  ['number', /\bhow (?:heavy|big|large|tall|wide|far|deep)\b|\bwhat (?:size|weight|area|volume|capacity|distance)\b/],
  [
    'duration',
    /\bhow long\b|\bhow many (?:business |working |calendar )?(?:days|weeks|months|years|hours)\b|\bhow much (?:notice|time)\b|\bnotice period\b|\bwithin (?:what|how)\b|\bhow soon\b|\bduration\b|\blead time\b/,
  ],
  // "How much electricity did we use?", "how much waste was collected": a quantity with its unit, not money.
  ['number', MEASURED_QUANTITY],
  [
    'date',
    /\bwhen\b|\bwann\b|\bbis wann\b|\ban welchem tag\b|\bwhat (?:date|day|year)\b|\bwhich (?:date|day|year)\b|\bby what date\b|\bdeadline\b|\bdue date\b|\bdate of\b|\bexpiry date\b|\bstart date\b|\bend date\b|\bon what (?:date|day)\b/,
  ],
  // "VAT rate", "interest rate", "what percentage": a share, not money ("room rate" stays money).
  [
    'percent',
    /\b(?:vat|tax|gst|interest|discount|commission|growth|inflation|occupancy|vacancy|withholding|margin)\s+rate\b|\bpercentage\b|\bwhat percent\b|\bhow many per ?cent\b|\bwelcher prozentsatz\b/,
  ],
  [
    'amount',
    /\bhow much\b|\btotal\b|\bvat\b|\btax(?:es)?\b|\bgst\b|\blimits?\b|\ballowance\b|\bcap\b|\bspent\b|\bspend(?:ing)?\b|\bwie (?:hoch|viel)\b|\bbetrag\b|\bsumme\b|\bkosten\b|\bpreis\b|\bfees?\b|\bprices?\b|\bcosts?\b|\brates?\b|\bamount\b|\bsalary\b|\brent\b|\bbudget\b|\bdeposit\b|\bbalance\b|\bcharged?\b|\bpremium\b|\bvalue of\b|\binvoiced?\b.*\bfor\b|\bretainer\b|\bwage\b|\bowed?\b/,
  ],
  // "Where did the price / index end (close) in May?": a level, not a place.
  [
    'amount',
    /\bwhere (?:did|does|do|will|is|are)\b.{0,40}\b(?:price|prices|index|shares?|stocks?|futures|yields?|currency|exchange rate)\b.{0,20}\b(?:end|close|closed|finish|settle|settled|stand|trade|level)\b/,
  ],
  // "Which law governs …", "which courts": the governing-law clause.
  [
    'law',
    /\b(?:which|what) (?:law|laws|jurisdiction|courts?)\b|\bgoverning law\b|\bgoverns?\b|\bgoverned\b|\bwelches recht\b/,
  ],
  [
    'party',
    /\bwho\b|\bwer\b|\bwem\b|\bwhom\b|\bwhose\b|\b(?:which|what) (?:company|companies|organi[sz]ation|firm|supplier|vendor|customer|client|person|party|bank|insurer|contractor|agency|employer|landlord|tenant|buyer|seller|carrier|auditor)\b|\bname of\b/,
  ],
  [
    'place',
    /\bwhere\b|\bwo\b|\b(?:which|what) (?:city|country|town|address|location|venue|place|region|office|site|warehouse)\b/,
  ],
  ['number', /\bhow many\b|\bwhat share\b|\bhow high\b/],
  ['duration', /\bterm\b|\bnotice\b|\bwithin\b|\bperiod\b/],
];

/** Words of questions that say nothing about the document's content. */
const META = new Set(
  [
    'document',
    'say',
    'state',
    'mention',
    'tell',
    'according',
    'file',
    'text',
    'does',
    'exactly',
    'everything',
    'anything',
    'something',
    'actually',
  ].map(stem),
);

/** Words that only say what kind of fact is asked ("how long", "how soon"): the type carries them. */
const CUE_WORDS = new Set(
  ['long', 'soon', 'fast', 'quickly', 'promptly', 'often', 'frequently', 'heavy', 'big', 'large'].map(stem),
);
const DATE_NOUNS = new Set(['date', 'day'].map(stem));
/**
 * Verbs that only frame where or when something is ("where is the summit held?", "where is the
 * firm based?", "when does the meeting take place?"): the place or date answers them, whether or
 * not the document repeats the verb.
 */
const SETTING_VERBS = ['held', 'hold', 'located', 'situated', 'based', 'hosted', 'host'].map(stem);
const DATE_CUES = new Set([...DATE_NOUNS, ...SETTING_VERBS]);
const PLACE_CUES = new Set(SETTING_VERBS);
/** "Which company will carry out the audit?": the noun says a party is asked, as "who" does; any company named answers it. */
const PARTY_CUES = new Set(['company', 'firm', 'organisation', 'organization', 'business', 'person'].map(stem));
/** "What is the money for?": the money the document is about, whatever it calls it (a grant, an award, the loan). */
const MONEY_WORDS = new Set(['money', 'cash', 'funds', 'it'].map(stem));
/**
 * Verbs that only frame a purpose question ("what will it pay for", "be spent on", "what does it
 * cover"): the purpose answers them; the document's "the money will be paid in two parts" does not.
 */
const PURPOSE_CUES = new Set(
  [
    'pay',
    'paid',
    'spend',
    'spent',
    'use',
    'used',
    'cover',
    'covers',
    'go',
    'goes',
    'going',
    'put',
    'meant',
    'intended',
    'purpose',
  ].map(stem),
);

/**
 * Words that name a kind of document ("the services agreement with Corvid"): like its
 * parties' names they say which document is asked about (the whole of it uses them), not what.
 */
const DOCUMENT_NOUNS = new Set(
  'agreement contract lease nda nondisclosure invoice bill payslip receipt letter memo memorandum report email e-mail quote quotation minutes cv resume rechnung vertrag'
    .split(' ')
    .map(stem),
);
const VERB_BEFORE = /^(?:i|we|you|they|he|she|will|would|should|must|shall|can|could|to|do|does|did)$/i;
/** Whether a stem names a kind of document ("quote", "lease"): the session's document, which need not write it. */
export const namesDocumentKind = (s: string) => DOCUMENT_NOUNS.has(s);
/** The weight of a word that names the document rather than the asked fact. */
const NAMING_WEIGHT = 0.3;
/**
 * "The first instalment", "the second payment": documents give an order by listing ("paid in two
 * instalments: £12,000 … and £6,000 …") more often than by the word, so it counts half.
 */
const ORDINALS = new Set(['first', 'second', 'third', 'fourth', 'final', '1st', '2nd', '3rd'].map(stem));
const ORDINAL_WEIGHT = 0.5;

/**
 * Stems of the question's words that name its document: a document noun ending its phrase ("the
 * lease with …", "the renewal quote?"), and one before such a noun ("nondisclosure agreement").
 * Not one that says something of another noun ("the leased premises").
 */
function documentNaming(question: string): Set<string> {
  const out = new Set<string>();
  const tokens = question.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*|[^\s\p{L}\p{N}]/gu) ?? [];
  let nextNames = false;
  let nextIsContent = false;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const stems = contentStems(tokens[i]!);
    // "Who will I report to?", "we must quote": after a pronoun or an auxiliary the word is a verb.
    const verb = VERB_BEFORE.test(tokens[i - 1] ?? '');
    const noun = stems.length === 1 && DOCUMENT_NOUNS.has(stems[0]!) && !verb;
    // "nondisclosure" before "agreement" names the kind of document as well.
    const names: boolean = noun && (!nextIsContent || nextNames);
    if (names) for (const s of stems) out.add(s);
    nextNames = names;
    nextIsContent = stems.length > 0;
  }
  return out;
}

/**
 * German function and question words (the stop list is English): "Wie hoch ist der zu zahlende
 * Betrag" asks about "zahlende Betrag", not "wie", "ist", "der".
 */
const FOREIGN_FUNCTION_WORDS = new Set(
  'wie wo wer wem wen was wann welche welcher welches ist sind war wurde wird der die das den dem des ein eine einer eines einem zu zum zur und oder von vom für mit auf im in an am bei bis nach aus hoch viel'
    .split(' ')
    .map(stem),
);

/** Words a document uses for what a question asks in other words ("end" → "until", "expires"). */
const RELATED_GROUPS = [
  'end ends ending expire expires expiry expiration until terminate terminates termination conclude concludes',
  'begin begins start starts commence commences commencement effective',
  'pay pays payment payable paid settle transfer remit',
  'cost price fee fees charge amount total sum rate',
  'deliver delivery delivered ship shipment shipped dispatch',
  // "When was the NDA signed?": agreements say when they were entered into or dated.
  'sign signed signature execute executed entered dated',
  'notice notify notification',
  'renew renewal extend extension',
  'rent rental rentals lease tenancy',
  // "Who attended?" of minutes that list who was "Present:"; "who couldn't come" (read as absent): "Apologies:".
  'attend attended attendee attendees attendance present participant participants',
  'absent absence apologies apology',
  'hurt injured injury injuries harmed',
  'job jobs employ employs employed employment staff headcount',
  // Abbreviations of tables and totals ("Total (incl. VAT)").
  'include included including incl inclusive',
  'exclude excluded excluding excl exclusive',
  // Value added tax by its names in other countries' documents.
  'vat iva mwst ust tva btw moms',
  'cancel cancellation',
  'salary compensation wage remuneration',
  'due deadline',
  // "Who do I call about this invoice?", "who is our contact?": the "Contact:" line, or who "can be reached".
  'contact call phone telephone reach reached ring email',
  // "Who owns the flat?": a letting document names its landlord.
  'own owns owner owners landlord lessor proprietor',
  'owe owed outstanding balance due payable pay',
  'hold held venue',
  'employ employee employment hire hired',
  'buyer purchaser customer client',
  'seller supplier vendor provider contractor',
  'landlord lessor',
  'tenant lessee',
  'spend spent spending unspent expenditure expense',
  'overdue outstanding unpaid arrears',
  'due total payable',
  'yearly annual annually annum year',
  'monthly month',
  'weekly week',
  'quarterly quarter',
  'run runs continue continues last lasts term duration survive survives',
  'study studied education university college school degree bachelor master graduate graduated',
  'approve approved approval authorise authorised authorize authorized',
  'number no ref reference',
  'now new revised updated current latest',
  'govern governed governing jurisdiction',
  // Everyday words for what contracts, bills and notices write more formally.
  'repay repaid repayment repayable',
  'uptime availability available',
  'down unavailable outage offline',
  'raise increase rise',
  'heavy weight weigh weighs',
  'send sender sending shipper consignor dispatch',
  'cover covered insurance insured',
  'quit leave resign resignation',
  'fire dismiss dismissal',
  'allowed permitted permit allow',
  'banned prohibited forbidden',
  'refund refunded refundable repay',
  'bonus incentive',
  'money funds sum amount',
  // A tenancy's deposit is its "rental guarantee", "security" or "bond".
  'deposit guarantee security bond',
  'grant grants award awarded funding funded fund',
  'finish complete completion',
  'job role position',
  'boss manager supervisor',
  'taken take collect collected debit debited',
  'circulate distribute',
  // "Where is the office?" of a lease that calls it the Premises; "the quote" of a Quotation.
  'premises office offices site property',
  'quote quotation estimate proposal',
  'extra additional further supplementary',
  'fit accommodate capacity seated standing',
  'finish finished completion completed complete',
  'reason cause caused',
  'worth valued value valuation',
  'charge charged bill billed invoice invoiced',
  'stop cease discontinue',
  'sold sell sale sales',
  'bought buy purchase purchased',
  // A question in English about a German document (and back): the words of invoices and contracts.
  'pay payment zahlung zahlen zahlbar zahlbetrag',
  'discount skonto rabatt',
  'invoice rechnung',
  'total gesamt gesamtbetrag summe betrag',
  'deliver delivery lieferung liefertermin lieferdatum',
  'due fällig',
  'contract agreement vertrag',
  'notice kündigung kündigungsfrist',
  'rent miete',
  'tenant mieter',
  'landlord vermieter',
  'salary gehalt',
  'order auftrag bestellung',
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
export function analyzeQuestion(asked: string, history: ChatTurn[] = []): QuestionAnalysis {
  const question = asked
    .replace(SO_FAR, 'to date')
    .replace(PAY_BACK, 'repay')
    .replace(MONEY_BACK, 'refund')
    .replace(RUN_OUT, 'end')
    .replace(CREDIT_LINE, 'credit facility')
    .replace(TAKE_HOME, 'net')
    .replace(FIT_IN, 'capacity')
    .replace(SEND_ROUND, 'circulate')
    .replace(IN_FORCE, 'in effect')
    .replace(NOT_THERE, 'was absent')
    .replace(TAKE_PLACE, 'held')
    .replace(GOING_UP, 'increase')
    .replace(QUARTER_WORDS, (_, ordinal: string) => quarterOf(ordinal).toUpperCase());
  const terms = new Map<string, number>();
  const identifiers = identifyingStems(question);
  // Names and numbers of the question mostly say which document it is about (the session's own);
  // the other words say what it asks.
  let type = classifyQuestion(question);
  // "By what date", "on which day": the noun of the asked kind, said by the type.
  // "Where is it held", "when does it take place": the verb of the setting, said by the type.
  const cue =
    type === 'date'
      ? DATE_CUES
      : type === 'place'
        ? PLACE_CUES
        : type === 'purpose'
          ? PURPOSE_CUES
          : type === 'party' && /^\s*(?:which|what)\s/i.test(question)
            ? PARTY_CUES
            : null;
  const naming = documentNaming(question);
  for (const s of contentStems(question))
    if (isAsked(s) && !cue?.has(s))
      terms.set(
        s,
        identifiers.has(s) || naming.has(s) || (type === 'purpose' && MONEY_WORDS.has(s))
          ? NAMING_WEIGHT
          : ORDINALS.has(s)
            ? ORDINAL_WEIGHT
            : 1,
      );
  // "What was the NPS?": an abbreviation, found as written or as the initials of the words it stands for.
  for (const m of question.matchAll(ABBREVIATION)) {
    const s = stem(m[1]!);
    const weight = terms.get(s);
    if (weight === undefined) continue;
    terms.delete(s);
    terms.set(INITIALS + m[1]!.toLowerCase(), weight);
  }
  // "How heavy": the document gives a weight ("Gross weight: 18,420 kg"); the cue word says which.
  for (const [cue, noun] of DIMENSIONS) if (cue.test(question) && !terms.has(stem(noun))) terms.set(stem(noun), 1);
  // "Shipped to?", "sent from?": the end of a journey; documents label it ("Port of discharge", "Destination").
  // (Not "who will I report to?": a person, not a place.)
  if (type !== 'party' && /\b(?:to|towards)\s*\??\s*$/i.test(question))
    for (const w of DESTINATION_WORDS) terms.set(stem(w), 0.5);
  if (/\bfrom\s*\??\s*$/i.test(question)) for (const w of ORIGIN_WORDS) terms.set(stem(w), 0.5);
  // "Why …?": documents give the reason ("Reason for credit: …", "caused by …").
  if (/^\s*why\b/i.test(question)) terms.set(stem('reason'), 1);
  // The stop list drops "may": "in May" names a month the answer should be in.
  if (MAY_ASKED.test(question)) terms.set(MONTH_MAY, NAMING_WEIGHT);
  const previous = [...history].reverse().find((t) => t.role === 'user');
  if (previous && terms.size < 3) {
    // "And the weekend?" / "and when is it due?": the words (and maybe the kind) of the last question.
    for (const s of contentStems(previous.content)) if (!terms.has(s) && isAsked(s)) terms.set(s, 0.5);
    if (type === 'text') type = classifyQuestion(previous.content);
  }
  const deadline =
    /\bby when\b|\buntil when\b|\bby what date\b|\bdeadline\b|\bdue\b|\bno later than\b|\blatest\b|\bmust\b.*\bby\b|\bbis wann\b/i.test(
      question,
    ) || OBLIGED_WHEN.test(question);
  // A date in the asked role; an amount too may be asked as it is now or as it was ("the contract sum now").
  const askedRole = ROLE_QUESTIONS.find(([, cue]) => cue.test(question))?.[0] ?? null;
  const role =
    type === 'date'
      ? deadline
        ? 'deadline'
        : askedRole
      : type === 'amount' && (askedRole === 'revised' || askedRole === 'original' || askedRole === 'added')
        ? askedRole
        : null;
  const nouns = nounStems(question);
  for (const term of terms.keys())
    if (term.startsWith(INITIALS) && nouns.has(stem(term.slice(INITIALS.length)))) nouns.add(term);
  return { type, deadline, role, terms, nouns };
}

/**
 * "When does the invoice have to be paid?", "when must we send it back?": what must be done by a
 * date asks for the limit ("Due date:", "by 17 October"), not any date the subject has.
 */
const OBLIGED_WHEN = /\bwhen\b[^?]*\b(?:(?:have|has|need|needs) to|must|should|got to)\b/i;

/** Words after which the next words are a noun phrase. */
const DETERMINERS = new Set(
  'the a an any my our your their its his her this that these those there of for on about with without per each every some no'.split(
    ' ',
  ),
);
const PREPOSITIONS = new Set('in on at to by from into since until after before during against under over'.split(' '));
const AUXILIARIES = /\b(?:do|does|did|will|would|can|could|must|should|shall|may)\b/i;

/**
 * Stems of the words of a question in noun position: after a determiner, a possessive or a
 * preposition, with the words that follow them in the same phrase ("the late payment interest
 * rate"). Not words ending in -ed or -ing (participles: "stored", "guaranteeing"), and not the
 * last word of a phrase that follows an auxiliary: "does the new rent apply" ends on its verb.
 */
export function nounStems(question: string): Set<string> {
  const out = new Set<string>();
  const tokens = (question.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*|[^\s\p{L}\p{N}]/gu) ?? []).map((t) => t.toLowerCase());
  let inPhrase = false;
  let afterAuxiliary = false;
  tokens.forEach((token, i) => {
    if (!/^[\p{L}\p{N}]/u.test(token)) {
      inPhrase = false;
      return;
    }
    if (DETERMINERS.has(token) || /['’]s$/.test(token)) {
      inPhrase = true;
      if (/['’]s$/.test(token)) for (const s of contentStems(token)) out.add(s);
      return;
    }
    if (AUXILIARIES.test(token)) {
      afterAuxiliary = true;
      inPhrase = false;
      return;
    }
    const stems = contentStems(token);
    // "the new rent": a word the stop list drops stays inside the phrase.
    if (stems.length === 0) return;
    const next = tokens[i + 1];
    const last = next === undefined || !/^[\p{L}\p{N}]/u.test(next) || PREPOSITIONS.has(next) || DETERMINERS.has(next);
    if (!inPhrase || /(?:ed|ing)$/.test(token) || (last && afterAuxiliary)) return;
    for (const s of stems) out.add(s);
  });
  return out;
}

/** First match wins: "when will it now end" asks the changed date. */
const ROLE_QUESTIONS: [DateRole, RegExp][] = [
  ['original', /\b(?:original|originally|initial|initially|previous|previously|old|former|first planned)\b/i],
  // "How much extra will this change cost?": the sum added, not the total it makes.
  ['added', /\b(?:extra|additional|added|on top|how much more)\b/i],
  ['revised', /\b(?:now|new|revised|updated|rescheduled|postponed|moved|current|currently)\b/i],
  [
    'end',
    /\b(?:end|ends|ending|expire|expires|expiry|expiration|terminate|terminates|finish|finishes|conclude|concludes|run out|runs out)\b/i,
  ],
  ['start', /\b(?:start|starts|begin|begins|commence|commences|take effect|takes effect|effective)\b/i],
];

/** The month May, which the stop list drops as a word: asked "in May", written "30 May" or "May 2025". */
const MAY_ASKED = /\b(?:in|of|for|during|since|until|by|end of|early|late|mid) May\b/;
const MAY_WRITTEN = /\b\d{1,2}(?:st|nd|rd|th)?\s+May\b|\bMay\s+\d/;
const MONTH_MAY = 'may';

/** What documents call the end and the start of a journey. */
const DESTINATION_WORDS = ['destination', 'discharge', 'delivery', 'recipient'];
const ORIGIN_WORDS = ['origin', 'loading', 'departure', 'sender'];

/** Phrasal verbs documents write as one word: "pay (it) back" → repay, "run out" → end. */
const MONEY_BACK = /\b(?:money|cash|deposit|it) back\b|\b(?:get|gets|getting|receive|receives) back\b/gi;
const PAY_BACK = /\bpa(?:y|id)\s+(?:(?:it|them|this|that|everything|all|the \w+)\s+)?back\b/gi;
const RUN_OUT = /\b(?:runs?|ran) out\b/gi;
/** "Take-home pay": what a payslip calls net pay. */
const TAKE_HOME = /\btake[- ]?home\b/gi;
/** "How many can we fit in / can it hold / does it seat": documents state a capacity. */
const FIT_IN = /\b(?:fit(?:s)? in|fit|hold|accommodate|seat)\b(?=\s*\??\s*$)/gi;
/** "How long is it in force?": documents write "in effect" (or "remains in effect for"). */
const IN_FORCE = /\bin force\b/gi;
/** "Send round", "send around", "send out" (minutes, a plan): documents write circulate. */
const SEND_ROUND = /\bsen[dt]s?\s+(?:(?:it|them|this|that|the \w+(?: \w+)?)\s+)?(?:a)?round\b/gi;
/** "Who couldn't come?", "who missed the meeting?", "who sent apologies?": minutes list them as absent ("Apologies:"). */
const NOT_THERE =
  /\b(?:could ?n[o'’]t|could not|did ?n[o'’]t|did not|was ?n[o'’]t able to|were ?n[o'’]t able to|unable to|failed to) (?:come|attend|make it|be there|join)\b|\bmissed the (?:meeting|call|session)\b|\bsent (?:their )?apologies\b|\bwas(?:n['’]t| not) there\b/gi;
/** "Why is the rent going up?": documents write of an increase or a rise. */
const GOING_UP = /\b(?:go(?:es|ing)?|went|gone) up\b/gi;
/** "When does the congress take place?": the setting verb "held" (the date answers it), not the noun "place". */
const TAKE_PLACE = /\b(?:takes?|taking|took|taken) place\b/gi;
/** "Credit line", "line of credit": what a bank's letter calls a credit facility. */
const CREDIT_LINE = /\bcredit line\b|\bline of credit\b/gi;

/** What a "how heavy / big / far …" question asks the measure of. */
const DIMENSIONS: [RegExp, string][] = [
  [/\bhow heavy\b/i, 'weight'],
  [/\bhow (?:big|large)\b/i, 'size'],
  [/\bhow far\b/i, 'distance'],
  [/\bhow tall\b/i, 'height'],
];

/** "So far", "until now": documents write "to date" ("Spending to date is …"). */
const SO_FAR = /\b(?:so far|thus far|until now|up to now|as of now)\b/gi;

/** Whether a stem of the question says what it asks (not "document", "how long", "wie"). */
const isAsked = (s: string) => !META.has(s) && !CUE_WORDS.has(s) && !FOREIGN_FUNCTION_WORDS.has(s);

// Stems of the question's capitalised words (not its first) and of its codes and numbers. A short
// acronym ("VAT", "ERP", "GST") names a topic, not the document's parties: it stays a full word.
function identifyingStems(question: string): Set<string> {
  const out = new Set<string>();
  const tokens = question.match(/[\p{L}\p{N}][\p{L}\p{N}&'’-]*/gu) ?? [];
  tokens.forEach((token, i) => {
    const acronym = /^\p{Lu}{2,4}$/u.test(token);
    if ((i > 0 && /^\p{Lu}/u.test(token) && !acronym) || /\d/.test(token))
      for (const s of contentStems(token)) out.add(s);
  });
  return out;
}

/**
 * A question answered yes or no ("Is the deposit refundable?", "Can we sublet part?", "Do I pay tax
 * on it?"): it opens with an auxiliary verb. Its answer is the sentence that decides it, whatever
 * kind of fact the sentence holds, so its words ("tax", "term", "fee") do not make it a money or
 * duration question. One that also asks a wh- question ("Is there a fee, and how much?") is not one.
 */
const YES_NO =
  /^\s*(?:do|does|did|is|are|was|were|can|could|will|would|has|have|had|must|should|may|shall|am|isn't|aren't|doesn't|don't|won't|can't)\b(?![^?]*\b(?:how|what|when|where|who|which)\b)/i;

export function isYesNo(question: string): boolean {
  return YES_NO.test(question);
}

/** The kind of fact a question asks for ('text' when it asks for no particular kind). */
export function classifyQuestion(question: string): AnswerType {
  if (isYesNo(question)) return 'text';
  const q = question.toLowerCase();
  // "What's the new go-live date?", "which address …": the noun the asked phrase ends on says the kind.
  for (const [type, cue] of HEAD_NOUNS) if (cue.test(q)) return type;
  // "Who has to send round the revised budget?": a question opening with who asks for a person,
  // whatever money or dates its other words name.
  if (/^\s*(?:and\s+)?(?:who|whom|whose)\b/.test(q)) return 'party';
  for (const [type, cue] of TYPE_CUES) if (cue.test(q)) return type;
  return 'text';
}

/**
 * Near neighbours of a question's words in the word vectors (`local/soft-terms.ts`): per question
 * stem, the stems a document may write for it ("ship" → "vessel", "quit" → "resign") and what a
 * match is worth (below a related word's 0.6).
 */
export type SoftTerms = ReadonlyMap<string, ReadonlyMap<string, number>>;

/**
 * How well a text's stems hold one question word: 1 the word itself, 0.8 a form of it, 0.6 a
 * related word, less a near neighbour in the word vectors (`soft`), else 0.
 */
export function termMatch(term: string, stems: ReadonlySet<string>, soft?: SoftTerms): number {
  if (stems.has(term)) return 1;
  // An abbreviation asked: as written (and its related words) too, not only as initials.
  if (term.startsWith(INITIALS)) return termMatch(term.slice(INITIALS.length), stems, soft);
  // The stemmer leaves "acceptanc" beside "accept", "cancellation" beside "cancell": one word.
  if (term.length >= MIN_SHARED_PREFIX && !/\d/.test(term)) for (const s of stems) if (sameWord(term, s)) return 0.8;
  // "tax" / "taxable", "pay" / "payable": a short word and its derivation by a suffix.
  if (term.length >= 3 && !/\d/.test(term)) {
    const suffix = term.length > 3 ? DERIVATION : SHORT_DERIVATION;
    for (const s of stems) if (s.startsWith(term) && suffix.test(s.slice(term.length))) return 0.8;
  }
  // "add" / "added" (stemmed "ad"): a short verb whose doubled consonant the stemmer undoubles.
  if (term.length === 3 && DOUBLED.test(term) && stems.has(term.slice(0, -1))) return 0.8;
  if (term.length === 2 && stems.has(term + term.at(-1)) && /[b-df-hj-np-tv-z]$/.test(term)) return 0.8;
  for (const related of RELATED.get(term) ?? []) if (stems.has(related)) return 0.6;
  let near = 0;
  for (const [s, weight] of soft?.get(term) ?? []) if (weight > near && stems.has(s)) near = weight;
  return near;
}

const DOUBLED = /([b-df-hj-np-tv-z])\1$/;
/** Suffixes that make another word of the same sense ("taxable", "payment", "owner", "renewal"). */
const DERIVATION = /^(?:abl|ibl|ment|er|or|al|ation|ion|ship|ly|able|ible)$/;
/** After a three-letter stem only the longer suffixes: "lat" + "er" is "later", not a kind of late. */
const SHORT_DERIVATION = /^(?:abl|ibl|ment|ation|able|ible)$/;

/** Stems this long that begin another are its derivations ("deliver" → "delivery"); shorter ones are not ("art" → "article"). */
const MIN_SHARED_PREFIX = 5;

function sameWord(a: string, b: string): boolean {
  if (b.length < MIN_SHARED_PREFIX || /\d/.test(b)) return false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (long.startsWith(short) && long.length - short.length <= 6) return true;
  // "respond" / "response", "guarantee" / "guarantor": one word whose ending the stemmer left apart.
  let shared = 0;
  while (shared < short.length && short[shared] === long[shared]) shared++;
  return shared >= 6 && shared >= 0.8 * short.length;
}

/**
 * The share (0..1) of the question's weight a text holds (`termMatch` per word); a word found only
 * in `context` (the heading above the text) counts half.
 */
export function termCoverage(
  terms: Map<string, number>,
  stems: ReadonlySet<string>,
  context?: ReadonlySet<string>,
  soft?: SoftTerms,
): number {
  let total = 0;
  let held = 0;
  for (const [term, weight] of terms) {
    total += weight;
    held += weight * Math.max(termMatch(term, stems, soft), context ? 0.5 * termMatch(term, context, soft) : 0);
  }
  return total > 0 ? held / total : 0;
}

/**
 * The question's weights times the rarity of each word among `texts` (their stem sets): a word
 * every segment has ("customer" in a contract) tells less than one few have ("signed").
 */
export function weightByRarity(
  terms: Map<string, number>,
  texts: ReadonlySet<string>[],
  soft?: SoftTerms,
): Map<string, number> {
  const n = texts.length;
  const out = new Map<string, number>();
  for (const [term, weight] of terms) {
    const df = texts.reduce((count, stems) => count + (termMatch(term, stems, soft) > 0 ? 1 : 0), 0);
    out.set(term, weight * Math.log(1 + n / Math.max(1, df)));
  }
  return out;
}

const MONTH_NAMES =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const DAY_MONTH = new RegExp(
  `\\b(?:(?:${MONTH_NAMES})\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?\\b(?![.,:]?\\d)|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:${MONTH_NAMES})\\b)`,
  'i',
);
const PERCENT = /\d\s?%|\bper ?cent\b|\bprozent\b/i;
/** How often: "quarterly", "every second Friday", "once in any twelve-month period", "each month". */
const FREQUENCY =
  /\b(?:daily|weekly|fortnightly|monthly|quarterly|annually|yearly|biannually|hourly|every|each|once|twice|three times|per (?:day|week|month|quarter|year|annum)|a (?:day|week|month|quarter|year))\b/i;
const MONTH_YEAR =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{4}\b|\bQ[1-4]\s+\d{4}\b/i;

/**
 * How surely (0..1) a text holds a fact of the asked kind, by pattern: a calendar date, money, a
 * span of time, a number. Names (who, where) need the entity extractor: 0 here.
 */
// A credit line's minus ("-34,800.00") is no hyphen of a code ("INV-12.50").
const MONEY_SHAPED = /(?<![\d.,/])(?<!\w-)\d{1,3}(?:,\d{3})*\.\d{2}(?![\d.,/%-])/;

export function factEvidence(type: AnswerType, text: string): number {
  switch (type) {
    case 'date':
      if (findDates(text).length > 0) return 1;
      // "May 2026", or a day and month without the year ("until October 8", "on 12 May").
      if (MONTH_YEAR.test(text) || DAY_MONTH.test(text)) return 0.7;
      // "Released at practical completion", "within 21 days of certification", "30 days from the
      // bill of lading date", "between 22:00 and 06:00": a time said by an event or an hour, less surely.
      return RELATIVE_TIME.test(text) || HOUR.test(text) ? RELATIVE_TIME_EVIDENCE : 0;
    case 'amount':
      if (findAmounts(text).length > 0) return 1;
      if (PERCENT.test(text)) return 0.4;
      // "NET PAY | 2,716.77": a figure with cents, the currency said once for the whole page.
      return MONEY_SHAPED.test(text) ? 0.5 : 0;
    case 'percent':
      if (PERCENT.test(text)) return 1;
      return findAmounts(text).length > 0 ? 0.3 : 0;
    case 'duration':
      return findDurations(text).length > 0 ? 1 : 0;
    case 'frequency':
      return FREQUENCY.test(text) ? 1 : 0;
    case 'number': {
      // Dates and times of day are no counts or measures ("guests from 18:00" for "how many guests").
      const figures = findDates(text)
        .reduceRight((t, d) => t.slice(0, d.start) + t.slice(d.end), text)
        .replace(TIME_OF_DAY, ' ');
      return /\d/.test(figures) ? 1 : 0;
    }
    case 'reason':
      return REASON_SAID.test(text) ? 1 : 0;
    case 'purpose':
      return PURPOSE_SAID.test(text) ? 1 : 0;
    case 'law':
      // "Governed by the laws of England" says it (a "Governing Law." heading names no law);
      // "organised under the laws of Japan" (a party's) less.
      if (GOVERNING_LAW.test(text)) return 1;
      return LAWS_OF.test(text) ? 0.4 : 0;
    default:
      return 0;
  }
}

/** What a unit measures, as the words a question asks it with ("how much electricity" → kWh). */
const UNIT_MEANS: [RegExp, string[]][] = [
  [/\d\s*(?:k|m|g)wh\b/i, ['electricity', 'energy', 'power', 'consumption', 'usage']],
  [/\d\s*(?:m³|m3|litres?|liters?)\b/i, ['water', 'gas', 'fuel', 'volume', 'consumption', 'usage']],
  [/\d\s*(?:kgs?|tonnes?|tons?|lbs?)\b/i, ['weight', 'heavy']],
  [/\d\s*(?:m²|m2|sq\.? ?(?:ft|m)|square (?:feet|foot|metres?|meters?))/i, ['area', 'size', 'space', 'big', 'large']],
  [/\d\s*(?:gb|tb)\b/i, ['data', 'storage']],
];
/** What a time said by an event or an hour is worth as the answer to "when" (a date is 1). */
export const RELATIVE_TIME_EVIDENCE = 0.5;
/** A span counted from an event ("14 days of notice", "30 days from …"), or an event a time is tied to ("on signature"). */
const RELATIVE_TIME =
  /\b\d+\s+(?:working |business |calendar |clear )?(?:days?|weeks?|months?|years?)['’]?\s+(?:of|from|after|before|following|prior to)\b|\b(?:at|on|upon|after|before|following|until)\s+(?:the\s+)?(?:practical\s+|final\s+|substantial\s+)?(?:completion|signature|signing|delivery|receipt|termination|expiry|handover|acceptance|installation|arrival|departure|shipment|closing|commissioning|certification|registration)\b|\bat the end of\b/i;
/** "18:00", "7.30 pm", "9am": a time of day (a decimal such as "12.50 t" is none). */
const TIME_OF_DAY = /\b\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?(?!\d)|\b\d{1,2}(?:\.\d{2})?\s*[ap]\.?m\b\.?/gi;
/** One time of day (`TIME_OF_DAY` without its global flag, whose `test` would keep a position). */
const HOUR = new RegExp(TIME_OF_DAY.source, 'i');
const GOVERNING_LAW =
  /\b(?:governed by|governing law|construed in accordance with|subject to the (?:exclusive )?jurisdiction|exclusive jurisdiction|gerichtsstand|unterliegt dem)\b[^.;]*?\p{Lu}/iu;
const LAWS_OF = /\blaws? of (?:the )?\p{Lu}/u;

/** Words that say what a signature or an e-mail header line is, as questions ask for it. */
const IMPLIED_WORDS: Record<string, string[]> = {
  signature: ['sign', 'signatur', 'writ', 'write', 'author', 'sender', 'letter', 'sent'],
  from: ['send', 'sent', 'sender', 'author', 'writ', 'write', 'email', 'e-mail', 'mail'],
  to: ['recipient', 'address', 'send', 'sent', 'receiv'],
  date: ['date', 'send', 'sent', 'email', 'mail'],
  // "By: Hanamura Kenji" under a contract: the signatory.
  by: ['sign', 'signatur', 'signatory'],
  sent: ['date', 'send', 'sent', 'email', 'mail'],
  subject: ['subject', 'topic', 'about', 'email', 'mail'],
};

/** "No. 4711", "#4711", "Invoice 2025-117", "PO-44817": a reference number. */
const REFERENCE_NUMBER = /\b(?:No|Nr|Num)\.?\s*[\d#A-Z]|#\s?\d|\b(?:[A-Z]{1,5}[-/]?\d{3,}|\d{2,}[-/]\d{2,})\b/;

/** "Third quarter", "3rd quarter": the quarter as "Q3" writes it (a question may write either). */
const QUARTER_WORDS = /\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b/gi;
const QUARTER_NUMBER: Record<string, string> = { first: '1', second: '2', third: '3', fourth: '4' };
const quarterOf = (ordinal: string) => `q${QUARTER_NUMBER[ordinal.toLowerCase()] ?? ordinal[0]}`;
/** Marks the initials of a run of words ("net promoter score" → "~nps"), which only an abbreviation asked matches. */
const INITIALS = '~';
/** An abbreviation in capitals ("NPS", "SLAs"); group 1 without a plural s. */
const ABBREVIATION = /\b(\p{Lu}{2,5})s?\b/gu;

/**
 * Forms of a text's words that a question may write otherwise: its quarters as "q3", and the
 * initials of every run of two to four words (so "NPS" finds "net promoter score", "SLA" "service
 * level agreement"), kept apart from words by a mark.
 */
function otherForms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(QUARTER_WORDS)) out.push(quarterOf(m[1]!));
  for (const m of text.matchAll(ABBREVIATION)) out.push(INITIALS + m[1]!.toLowerCase());
  const tokens = text.match(/\p{L}[\p{L}'’]*/gu) ?? [];
  for (let i = 0; i < tokens.length; i++)
    for (let n = 2; n <= 4 && i + n <= tokens.length; n++)
      out.push(
        INITIALS +
          tokens
            .slice(i, i + n)
            .map((t) => t[0]!.toLowerCase())
            .join(''),
      );
  return out;
}

/** A segment's stems, with what its kind or label says without writing it ("No. 4711" is a number). */
export function segmentStems(segment: Segment): Set<string> {
  const stems = new Set(contentStems(segment.text));
  for (const form of otherForms(segment.text)) stems.add(form);
  for (const word of saidWithoutTheWord(segment.text)) stems.add(word);
  if (MAY_WRITTEN.test(segment.text)) stems.add(MONTH_MAY);
  if (REFERENCE_NUMBER.test(segment.text)) stems.add('number');
  for (const word of impliedWords(segment)) stems.add(word);
  for (const word of unitMeaning(segment.text)) stems.add(word);
  return stems;
}

/** "Because of flood damage" gives a reason; "from 08:00 to 18:00" gives hours: what "why" and "what hours" ask. */
const REASON_SAID =
  /\b(?:because|due to|owing to|as a result of|caused by|on account of|reasons? (?:for|is|was|being)|since the|so that|in order to|reflects?|reflecting|to reflect|following (?:the|a|an|our|your|their)|in (?:light|view) of|given the|resulting from|(?:driven|prompted|triggered) by)\b/i;
/**
 * What a text says something is for: "to cover", "in respect of", "towards the purchase of", "may
 * only be used for", "is for the salary of", "to help with".
 */
const PURPOSE_SAID =
  /\b(?:to cover|covers?|covering|in respect of|towards?(?: the)? (?:cost|costs|purchase|salary|salaries|fees?|hire|running)|to (?:fund|finance|pay for|buy|purchase)|(?:pays?|paying) for|(?:used|spent|applied|earmarked|allocated|ring-?fenced)\s+(?:solely |only |exclusively |entirely )?(?:for|on|to|towards?)|(?:is|are|will be|shall be|must be) (?:only |solely |exclusively )?(?:for|towards?) (?:the|a|an|our|your|their)|for the (?:purchase|cost|costs|salary|salaries|hire|repair|replacement|acquisition|installation|provision|development|construction|refurbishment|running|funding) of|to help (?:with|towards?|pay)|purpose|in order to|intended (?:for|to)|meant (?:for|to)|(?:budget|grant|sum|allowance|funding|fund|provision) of [^.;]{1,25}? for (?:the |a |an )?\p{L})/iu;
/** A company's legal form ("Ltd", "B.V.", "GmbH"): the text names a company, as "signed for the company" asks. */
const LEGAL_FORM =
  /\b(?:Ltd|Limited|plc|PLC|LLC|LLP|Inc|Corp|GmbH|AG|KG|B\.V\.|BV|N\.V\.|NV|S\.A\.|SA|S\.L\.|SARL|S\.r\.l\.|S\.p\.A\.|AB|AS|A\/S|Oy|Sp\. z o\.o\.|Pty|Pvt|K\.K\.|Co\.)(?![\p{L}])/u;
const SAID_WITHOUT: [RegExp, string[]][] = [
  [PURPOSE_SAID, ['purpose']],
  [LEGAL_FORM, ['company']],
  [REASON_SAID, ['reason']],
  [/\b\d{1,2}[:.]\d{2}\s*(?:[ap]\.?m\.?\s*)?(?:to|until|till|-|–)\s*\d{1,2}[:.]\d{2}/i, ['hour', 'time', 'open']],
];
function saidWithoutTheWord(text: string): string[] {
  return SAID_WITHOUT.filter(([cue]) => cue.test(text)).flatMap(([, words]) => words.map(stem));
}

/** The stems of what a text's units measure: "1,284 kWh" is electricity used, whether or not the line says so. */
function unitMeaning(text: string): string[] {
  return UNIT_MEANS.filter(([unit]) => unit.test(text)).flatMap(([, words]) => words.map(stem));
}

function impliedWords(segment: Segment): string[] {
  if (segment.kind === 'signature') return IMPLIED_WORDS.signature!;
  if (segment.kind === 'header_field' || segment.kind === 'field')
    return IMPLIED_WORDS[(segment.label ?? '').toLowerCase()] ?? [];
  return [];
}

/** A line that may be a signature's closing or a labelled line whose label implies words (only those texts are segmented). */
const MAY_IMPLY =
  /^[ \t>]*(?:(?:from|to|date|sent|subject|by)\s*:|(?:sincerely|yours|kind|best|warm|regards|cheers|thanks|thank you|many thanks|respectfully|with best|mit freundlichen))/im;

/**
 * A passage's stems read as the answerer reads its segments (`segmentStems`), for retrieval: its
 * words, "number" for a reference number, and what its signatures and labelled lines imply. Only
 * a passage that may hold such a line is segmented (segmenting every passage of a long document
 * for every question costs several times the rest of the ranking).
 */
export function passageStems(text: string): Set<string> {
  const stems = new Set(contentStems(text));
  for (const form of otherForms(text)) stems.add(form);
  if (MAY_WRITTEN.test(text)) stems.add(MONTH_MAY);
  if (REFERENCE_NUMBER.test(text)) stems.add('number');
  for (const word of unitMeaning(text)) stems.add(word);
  for (const word of saidWithoutTheWord(text)) stems.add(word);
  if (MAY_IMPLY.test(text))
    for (const segment of segmentText(text)) for (const word of impliedWords(segment)) stems.add(word);
  return stems;
}
