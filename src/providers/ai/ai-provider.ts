/** Named things found in a document, each list unique and in order of first appearance. */
export interface Entities {
  people: string[];
  organizations: string[];
  /** ISO 8601 calendar dates, YYYY-MM-DD. */
  dates: string[];
  places: string[];
  /** "USD 12,500.00": ISO 4217 code, thousands separators, two decimals. */
  amounts: string[];
}

/** The kinds of document `enrich` tells apart; `other` when none fits. */
export const DOCUMENT_TYPES = [
  'invoice',
  'receipt',
  'purchase_order',
  'quote',
  'contract',
  'lease',
  'nda',
  'employment_letter',
  'policy',
  'minutes',
  'memo',
  'report',
  'letter',
  'email',
  'cv',
  'statement',
  'other',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Money as a number, its ISO 4217 code and the text it was read from ("₹4.5 crore"). */
export interface Money {
  value: number;
  currency: string;
  text: string;
}

/** Money in a key field; `period` for recurring sums (rent, salary, fees). */
export interface MoneyField extends Money {
  period?: 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';
}

/** A length of time in a key field: ISO 8601 duration (`P12M`, `P30D`, `P3Y`) and the words. */
export interface DurationField {
  value: string;
  text: string;
}

/** What a key field holds: text (a name, a number, an ISO date YYYY-MM-DD), a list of names, money or a duration. */
export type FieldValue = string | string[] | MoneyField | DurationField;

/** An AI output and how sure the provider is of it, in [0, 1]. */
export interface Scored<T> {
  value: T;
  confidence: number;
}

/** A suggested tag: `extracted` from the text (`learned` from the tenant's own tagging, later). */
export interface TagSuggestion {
  name: string;
  confidence: number;
  source: 'extracted' | 'learned';
}

/** A named entity and the provider's confidence in it. */
export interface NamedEntity {
  name: string;
  confidence: number;
}

/**
 * A calendar day. `text` is how the document wrote it; `alternatives` are the other days it could
 * be ("03/04/2025" read day-first is 3 April, month-first 4 March), present only when it is ambiguous.
 */
export interface DateEntity {
  value: string;
  text: string;
  confidence: number;
  alternatives?: string[];
}

export interface AmountEntity extends Money {
  confidence: number;
}

/** Entities with confidences: what `enrich` answers (`Entities` is the plain form). */
export interface EntityDetails {
  people: NamedEntity[];
  organizations: NamedEntity[];
  locations: NamedEntity[];
  dates: DateEntity[];
  amounts: AmountEntity[];
}

/**
 * Everything processing stores about a document, with a confidence for each output. `fields`
 * are the key fields of its type (docs/processing.md lists them), absent when not found.
 */
export interface Enrichment {
  summary: Scored<string>;
  documentType: Scored<DocumentType>;
  fields: Record<string, Scored<FieldValue>>;
  tags: TagSuggestion[];
  entities: EntityDetails;
}

/** Options of `enrich`. */
export interface EnrichOptions {
  signal?: AbortSignal;
  /** Resolves dates written without a year when the document gives no date of its own (the upload date). */
  referenceDate?: Date;
  /** At most this many tags (default 8). */
  tagLimit?: number;
  /** The tenant's existing tag names: preferred over a new spelling of the same topic. */
  knownTags?: string[];
}

/** The plain entity lists of an enrichment (what `extractEntities` answers). */
export function plainEntities(details: EntityDetails): Entities {
  return {
    people: details.people.map((e) => e.name),
    organizations: details.organizations.map((e) => e.name),
    dates: [...new Set(details.dates.map((d) => d.value))],
    places: details.locations.map((e) => e.name),
    amounts: [...new Set(details.amounts.map((a) => formatMoney(a)))],
  };
}

const MONEY_FORMAT = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** "USD 12,500.00", "USD -1,200.00": the plain form of an amount. */
export const formatMoney = (money: { value: number; currency: string }) =>
  `${money.currency} ${MONEY_FORMAT.format(money.value)}`;

/** A piece of a document offered to `answer` as evidence. */
export interface Passage {
  documentId: string;
  text: string;
  page?: number | null;
  score: number;
}

/** One turn of an earlier conversation, oldest first. */
export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** A grounded answer: the full text and the 0-based indexes of the passages it cites ([n] is passage n-1). */
export interface Answer {
  text: string;
  used: number[];
}

/**
 * Document intelligence behind one interface: `local` (classical NLP, no network, deterministic)
 * or `openai` (any OpenAI-compatible endpoint). Every method honours `signal` by rejecting with the
 * signal's reason (an AbortError unless the caller gave another reason).
 */
export interface AiProvider {
  readonly name: 'local' | 'openai';
  /** Stored with each vector so that a model change re-embeds. */
  readonly embeddingModel: string;
  readonly embeddingDimensions: number;
  readonly canTranscribe: boolean;
  summarize(text: string, opts?: { signal?: AbortSignal }): Promise<string>;
  /**
   * Key phrases for tags, best first, lower-case, 1–3 words each, at most `limit` (default 8).
   * `documentFrequency(term)` (optional) gives the share (0..1) of the tenant's documents containing
   * a term, to weight against the tenant's corpus.
   */
  extractTags(
    text: string,
    opts?: { limit?: number; documentFrequency?: (term: string) => number; signal?: AbortSignal },
  ): Promise<string[]>;
  /**
   * Summary, document type, key fields, tags and entities of one document in one call, each with a
   * confidence (what processing stores).
   */
  enrich(text: string, opts?: EnrichOptions): Promise<Enrichment>;
  /** `referenceDate` (the upload date, say) resolves dates written without a year when the document has no date of its own. */
  extractEntities(text: string, opts?: { signal?: AbortSignal; referenceDate?: Date }): Promise<Entities>;
  /** Unit-length vectors of `embeddingDimensions` (all zeros for a text with nothing to embed). */
  embed(texts: string[], opts?: { signal?: AbortSignal; purpose?: 'document' | 'query' }): Promise<Float32Array[]>;
  /** Speech to text; null when this provider cannot transcribe. */
  transcribe(audioPath: string, opts?: { signal?: AbortSignal; language?: string }): Promise<string | null>;
  /**
   * Chat answer grounded in passages, with [n] markers citing passage n (1-based). Local: the best
   * sentences of the passages, or a plain "not found" with `used: []`. OpenAI: generated from the
   * passages. Streams through `onDelta`; stops when `signal` aborts.
   */
  /** Releases threads or connections, when the provider holds any. */
  close?(): Promise<void>;
  answer(
    question: string,
    passages: Passage[],
    opts?: { signal?: AbortSignal; onDelta?: (text: string) => void; history?: ChatTurn[] },
  ): Promise<Answer>;
}
