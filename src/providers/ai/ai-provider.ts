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
  /** `referenceDate` (the upload date, say) resolves dates written without a year. */
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
