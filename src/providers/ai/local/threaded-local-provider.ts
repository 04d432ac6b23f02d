import { Worker } from 'node:worker_threads';
import type { AiProvider, Answer, ChatTurn, EnrichOptions, Enrichment, Entities, Passage } from '../ai-provider.ts';
import type { LocalAiRequest, LocalAiResponse } from './local-ai-thread.ts';
import type { ComposedAnswer } from './extractive-answer.ts';
import { LocalAiProvider, streamComposedAnswer } from './local-provider.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A thread with nothing to do for this long exits; the next call starts another. */
const IDLE_MS = 30_000;

/**
 * The local provider with its document-sized work (summary, tags, entities, embeddings) in a
 * worker thread: tens of milliseconds of CPU per document would otherwise stall every request
 * the process serves while documents are processed. A chat answer is composed there too (the
 * entity word lists it may need live there) and streamed from here.
 */
export class ThreadedLocalAiProvider implements AiProvider {
  readonly name = 'local' as const;
  readonly #inline = new LocalAiProvider();
  readonly embeddingModel = this.#inline.embeddingModel;
  readonly embeddingDimensions = this.#inline.embeddingDimensions;
  readonly canTranscribe = false;
  #worker: Worker | null = null;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  #nextId = 1;
  #idle: NodeJS.Timeout | null = null;

  summarize(text: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
    return this.#call({ op: 'summarize', text }, opts.signal) as Promise<string>;
  }

  enrich(text: string, opts: EnrichOptions = {}): Promise<Enrichment> {
    const { signal, referenceDate, ...rest } = opts;
    return this.#call(
      { op: 'enrich', text, referenceDate: referenceDate?.getTime(), ...rest },
      signal,
    ) as Promise<Enrichment>;
  }

  extractTags(
    text: string,
    opts: { limit?: number; documentFrequency?: (term: string) => number; signal?: AbortSignal } = {},
  ): Promise<string[]> {
    // A corpus weighting callback cannot cross into the thread: such calls run here.
    if (opts.documentFrequency) return this.#inline.extractTags(text, opts);
    return this.#call({ op: 'extractTags', text, limit: opts.limit }, opts.signal) as Promise<string[]>;
  }

  extractEntities(text: string, opts: { signal?: AbortSignal; referenceDate?: Date } = {}): Promise<Entities> {
    return this.#call(
      { op: 'extractEntities', text, referenceDate: opts.referenceDate?.getTime() },
      opts.signal,
    ) as Promise<Entities>;
  }

  embed(texts: string[], opts: { signal?: AbortSignal; purpose?: 'document' | 'query' } = {}): Promise<Float32Array[]> {
    // One short query is cheaper here than a round trip to the thread.
    if (texts.length === 1 && texts[0]!.length < 2_000) return this.#inline.embed(texts, opts);
    return this.#call({ op: 'embed', texts }, opts.signal) as Promise<Float32Array[]>;
  }

  transcribe(): Promise<string | null> {
    return Promise.resolve(null);
  }

  async answer(
    question: string,
    passages: Passage[],
    opts: { signal?: AbortSignal; onDelta?: (text: string) => void; history?: ChatTurn[] } = {},
  ): Promise<Answer> {
    const composed = (await this.#call(
      { op: 'answer', question, passages, history: opts.history ?? [] },
      opts.signal,
    )) as ComposedAnswer;
    return streamComposedAnswer(composed, opts);
  }

  /** Stops the thread (process shutdown). */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#failAll(new Error('the AI thread was closed'));
    await worker?.terminate();
  }

  #call(request: DistributiveOmit<LocalAiRequest, 'id'>, signal?: AbortSignal): Promise<unknown> {
    signal?.throwIfAborted();
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#busy();
      worker.postMessage({ ...request, id });
    });
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./local-ai-thread.ts', import.meta.url));
    worker.on('message', (response: LocalAiResponse) => {
      const pending = this.#pending.get(response.id);
      if (!pending) return;
      this.#pending.delete(response.id);
      this.#busy();
      if (response.ok) pending.resolve(response.value);
      else pending.reject(new Error(response.message));
    });
    worker.on('error', (error) => this.#failAll(error));
    worker.on('exit', () => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      this.#failAll(new Error('the AI thread exited'));
    });
    this.#worker = worker;
    return worker;
  }

  /** Keeps the process alive only while calls wait; an idle thread exits. */
  #busy(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
    if (!this.#worker) return;
    if (this.#pending.size > 0) {
      this.#worker.ref();
      return;
    }
    this.#worker.unref();
    this.#idle = setTimeout(() => void this.close(), IDLE_MS);
    this.#idle.unref();
  }

  #failAll(error: Error): void {
    for (const [id, pending] of this.#pending) {
      pending.reject(error);
      this.#pending.delete(id);
    }
    this.#busy();
  }
}
