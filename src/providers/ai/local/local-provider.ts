import type { AiProvider, Answer, ChatTurn, Entities, Passage } from '../ai-provider.ts';
import { type ComposedAnswer, extractiveAnswer, type NameFinder, needsNames } from './extractive-answer.ts';
import { localEmbeddingModel } from './local-embedding.ts';
import { summarizeText } from './summarize.ts';

/**
 * The default provider: classical NLP in-process, no network and no model weights. Deterministic
 * (same text, same output) and fast: a five-page document is summarised, tagged, mined for
 * entities and embedded in a few tens of milliseconds. Cannot transcribe.
 */
type Nlp = [typeof import('./entities.ts'), typeof import('./keywords.ts')];
let nlpModules: Promise<Nlp> | null = null;
/** The word lists behind entities and key phrases (~40 MB) load on first use, not with the process. */
function nlp(): Promise<Nlp> {
  nlpModules ??= Promise.all([import('./entities.ts'), import('./keywords.ts')]);
  return nlpModules;
}

export class LocalAiProvider implements AiProvider {
  readonly name = 'local' as const;
  readonly #embedding = localEmbeddingModel();
  readonly embeddingModel = this.#embedding.model;
  readonly embeddingDimensions = this.#embedding.dimensions;
  readonly canTranscribe = false;

  async summarize(text: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
    opts.signal?.throwIfAborted();
    return summarizeText(text);
  }

  async extractTags(
    text: string,
    opts: { limit?: number; documentFrequency?: (term: string) => number; signal?: AbortSignal } = {},
  ): Promise<string[]> {
    opts.signal?.throwIfAborted();
    const people = (await this.#entities(text)).people;
    const [, { extractKeyPhrases }] = await nlp();
    return extractKeyPhrases(text, { limit: opts.limit, documentFrequency: opts.documentFrequency, people });
  }

  async extractEntities(text: string, opts: { signal?: AbortSignal; referenceDate?: Date } = {}): Promise<Entities> {
    opts.signal?.throwIfAborted();
    return structuredClone(await this.#entities(text, opts.referenceDate));
  }

  // Tags and entities of one document are asked for one after the other: keep the last result.
  #last: { text: string; reference: number | null; entities: Entities } | null = null;
  async #entities(text: string, referenceDate?: Date): Promise<Entities> {
    const reference = referenceDate?.getTime() ?? null;
    if (this.#last && this.#last.text === text && (referenceDate === undefined || this.#last.reference === reference)) return this.#last.entities;
    const [{ extractEntitiesLocal }] = await nlp();
    const entities = extractEntitiesLocal(text, { referenceDate });
    this.#last = { text, reference, entities };
    return entities;
  }

  /** The same vector for either purpose (the features are symmetric); the first call reads the word vectors (~0.2 s). */
  async embed(texts: string[], opts: { signal?: AbortSignal; purpose?: 'document' | 'query' } = {}): Promise<Float32Array[]> {
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
    return extractiveAnswer(question, passages, history, names);
  }

  async #nameFinder(): Promise<NameFinder> {
    const [{ extractEntitiesLocal }] = await nlp();
    return (text) => extractEntitiesLocal(text);
  }
}

/** Streams a composed answer through `onDelta`, piece by piece, stopping when `signal` aborts. */
export async function streamComposedAnswer(composed: ComposedAnswer, opts: { signal?: AbortSignal; onDelta?: (text: string) => void }): Promise<Answer> {
  for (const part of composed.parts) {
    // Yield between parts so that an abort from the caller (a closed connection) lands.
    await new Promise<void>((resolve) => setImmediate(resolve));
    opts.signal?.throwIfAborted();
    opts.onDelta?.(part);
  }
  opts.signal?.throwIfAborted();
  return { text: composed.text, used: composed.used };
}
