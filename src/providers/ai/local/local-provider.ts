import {
  type AiProvider,
  type Answer,
  type ChatTurn,
  type Enrichment,
  type EnrichOptions,
  type Entities,
  type Passage,
  plainEntities,
} from '../ai-provider.ts';
import { type ComposedAnswer, extractiveAnswer, type NameFinder, needsNames } from './extractive-answer.ts';
import { localEmbeddingModel } from './local-embedding.ts';
import { loadWordVectors } from './word-vectors.ts';

/**
 * The default provider: classical NLP in-process, no network and no model weights. Deterministic
 * (same text, same output) and fast: a five-page document is summarised, tagged, mined for
 * entities and embedded in a few tens of milliseconds. Cannot transcribe.
 */
type Nlp = typeof import('./enrich.ts');
let nlpModule: Promise<Nlp> | null = null;
/** The word lists behind entities and key phrases (~40 MB) load on first use, not with the process. */
function nlp(): Promise<Nlp> {
  nlpModule ??= import('./enrich.ts');
  return nlpModule;
}

export class LocalAiProvider implements AiProvider {
  readonly name = 'local' as const;
  readonly #embedding = localEmbeddingModel();
  readonly embeddingModel = this.#embedding.model;
  readonly embeddingDimensions = this.#embedding.dimensions;
  readonly canTranscribe = false;

  async summarize(text: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
    opts.signal?.throwIfAborted();
    return (await this.#enrich(text, {})).summary.value;
  }

  async enrich(
    text: string,
    opts: EnrichOptions & { documentFrequency?: (term: string) => number } = {},
  ): Promise<Enrichment> {
    opts.signal?.throwIfAborted();
    return structuredClone(await this.#enrich(text, opts));
  }

  async extractTags(
    text: string,
    opts: { limit?: number; documentFrequency?: (term: string) => number; signal?: AbortSignal } = {},
  ): Promise<string[]> {
    opts.signal?.throwIfAborted();
    const tags = (await this.#enrich(text, { tagLimit: opts.limit, documentFrequency: opts.documentFrequency })).tags;
    return tags.map((t) => t.name);
  }

  async extractEntities(text: string, opts: { signal?: AbortSignal; referenceDate?: Date } = {}): Promise<Entities> {
    opts.signal?.throwIfAborted();
    return plainEntities((await this.#enrich(text, { referenceDate: opts.referenceDate })).entities);
  }

  // The summary, tags and entities of one document are asked for one after the other: keep the
  // last enrichment, and answer from it while the text and the options that matter are the same.
  #last: { text: string; key: string; reference: number | null; enrichment: Enrichment } | null = null;
  async #enrich(
    text: string,
    opts: EnrichOptions & { documentFrequency?: (term: string) => number },
  ): Promise<Enrichment> {
    const key = JSON.stringify([opts.tagLimit ?? 8, opts.knownTags ?? []]);
    const reference = opts.referenceDate?.getTime() ?? null;
    const last = this.#last;
    // A call without a reference date takes whatever the last one of the same text resolved with.
    const sameReference = opts.referenceDate === undefined || last?.reference === reference;
    if (last && last.text === text && last.key === key && sameReference && !opts.documentFrequency)
      return last.enrichment;
    const { enrichLocal } = await nlp();
    const enrichment = enrichLocal(text, opts);
    if (!opts.documentFrequency) this.#last = { text, key, reference, enrichment };
    return enrichment;
  }

  /** The same vector for either purpose (the features are symmetric); the first call reads the word vectors (~0.2 s). */
  async embed(
    texts: string[],
    opts: { signal?: AbortSignal; purpose?: 'document' | 'query' } = {},
  ): Promise<Float32Array[]> {
    const embedder = await this.#embedding.embedder(true);
    const out: Float32Array[] = [];
    for (const text of texts) {
      opts.signal?.throwIfAborted();
      out.push(embedder ? embedder(text) : new Float32Array(this.embeddingDimensions));
    }
    return out;
  }

  async transcribe(_audioPath: string, opts: { signal?: AbortSignal } = {}): Promise<string | null> {
    opts.signal?.throwIfAborted();
    return null;
  }

  async answer(
    question: string,
    passages: Passage[],
    opts: { signal?: AbortSignal; onDelta?: (text: string) => void; history?: ChatTurn[] } = {},
  ): Promise<Answer> {
    opts.signal?.throwIfAborted();
    return streamComposedAnswer(await this.composeAnswer(question, passages, opts.history), opts);
  }

  /** The extractive answer, whole (the threaded provider composes it in its thread and streams it). */
  async composeAnswer(question: string, passages: Passage[], history: ChatTurn[] = []): Promise<ComposedAnswer> {
    const names = needsNames(question, history) ? await this.#nameFinder() : undefined;
    // Question words matched to the document's other words for the same thing (soft-terms.ts).
    return extractiveAnswer(question, passages, history, names, await loadWordVectors());
  }

  async #nameFinder(): Promise<NameFinder> {
    const { extractEntitiesLocal } = await nlp();
    return (text) => extractEntitiesLocal(text);
  }
}

/** Streams a composed answer through `onDelta`, piece by piece, stopping when `signal` aborts. */
export async function streamComposedAnswer(
  composed: ComposedAnswer,
  opts: { signal?: AbortSignal; onDelta?: (text: string) => void },
): Promise<Answer> {
  for (const part of composed.parts) {
    // Yield between parts so that an abort from the caller (a closed connection) lands.
    await new Promise<void>((resolve) => setImmediate(resolve));
    opts.signal?.throwIfAborted();
    opts.onDelta?.(part);
  }
  opts.signal?.throwIfAborted();
  return { text: composed.text, used: composed.used };
}
