import fs from 'node:fs';
import type OpenAI from 'openai';
import type { AiProvider, Answer, ChatTurn, EnrichOptions, Enrichment, Entities, Passage } from '../ai-provider.ts';
import { AiProviderError } from '../ai-provider-error.ts';
import { chunkText } from '../chunking.ts';
import { normalize } from '../local/hash-embedding.ts';
import { approxTokens } from '../text.ts';
import { mergeEnrichments, mergeEntities, mergeTags, normaliseEnrichment, normaliseEntities } from './merge-results.ts';
import {
  ANSWER_SYSTEM,
  answerPrompt,
  COMBINE_SUMMARIES_SYSTEM,
  enrichTask,
  entitiesTask,
  type StructuredTask,
  SUMMARY_TASK,
  tagsTask,
} from './prompts.ts';
import { abortReason, type RetryOptions, withRetry } from './retry.ts';
import { TokenBudget } from './token-budget.ts';

/** Settings of the OpenAI-compatible provider. */
export interface OpenAiProviderConfig {
  /** Default: OpenAI itself. Ollama: http://localhost:11434/v1. */
  baseUrl?: string;
  /** Optional for local servers that ignore it. */
  apiKey?: string;
  chatModel: string;
  embeddingModel: string;
  /** Required unless the embedding model is a known one; a smaller size is requested from text-embedding-3 models. */
  embeddingDimensions?: number;
  /** Speech-to-text model (e.g. whisper-1); without it the provider does not transcribe. */
  transcriptionModel?: string;
  /** Approximate budget (characters / 4) shared by all calls; unlimited when absent. */
  tokensPerMinute?: number;
  /** Retries of a failed call (429, 5xx, network). Default 4. */
  maxRetries?: number;
  /** Per request. Default 60 s. */
  timeoutMs?: number;
  /** Largest input of one request, in approximate tokens; longer documents are split. Default 12,000. */
  maxInputTokens?: number;
  /** First backoff step of retries. Default 500 ms. */
  retryBaseDelayMs?: number;
}

const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'nomic-embed-text': 768,
  'mxbai-embed-large': 1024,
  'all-minilm': 384,
  'bge-m3': 1024,
};
const EMBEDDING_BATCH = 64;
const STRUCTURED_OUTPUT_TOKENS = 400;
/** An enrichment answer lists fields, tags and every entity: budgeted larger. */
const ENRICH_OUTPUT_TOKENS = 2_000;

/** AI through any OpenAI-compatible endpoint, with the official SDK (loaded on first use). */
export class OpenAiProvider implements AiProvider {
  readonly name = 'openai' as const;
  readonly embeddingModel: string;
  readonly embeddingDimensions: number;
  readonly canTranscribe: boolean;
  readonly #config: OpenAiProviderConfig;
  readonly #budget: TokenBudget | null;
  readonly #requestDimensions: number | undefined;
  readonly #maxInputTokens: number;
  #client: Promise<OpenAI> | null = null;

  constructor(config: OpenAiProviderConfig) {
    const native = KNOWN_DIMENSIONS[config.embeddingModel];
    const dimensions = config.embeddingDimensions ?? native;
    if (!dimensions) {
      throw new Error(
        `embeddingDimensions is required for the embedding model ${JSON.stringify(config.embeddingModel)}`,
      );
    }
    this.#config = config;
    this.embeddingModel = config.embeddingModel;
    this.embeddingDimensions = dimensions;
    // Only text-embedding-3 models take `dimensions`; other servers may reject the parameter.
    this.#requestDimensions =
      native && dimensions !== native && config.embeddingModel.startsWith('text-embedding-3') ? dimensions : undefined;
    this.canTranscribe = Boolean(config.transcriptionModel);
    this.#budget = config.tokensPerMinute ? new TokenBudget(config.tokensPerMinute) : null;
    this.#maxInputTokens = config.maxInputTokens ?? 12_000;
  }

  async summarize(text: string, opts: { signal?: AbortSignal } = {}): Promise<string> {
    const parts = this.#split(text);
    if (parts.length === 1)
      return (await this.#structured<{ summary: string }>(SUMMARY_TASK, parts[0]!, opts.signal)).summary.trim();
    // Map-reduce: summarise each part, then the summaries (again in parts if they are still too long).
    const summaries: string[] = [];
    for (const part of parts)
      summaries.push((await this.#structured<{ summary: string }>(SUMMARY_TASK, part, opts.signal)).summary.trim());
    const joined = summaries.map((s, i) => `Part ${i + 1}: ${s}`).join('\n\n');
    if (this.#split(joined).length > 1) return this.summarize(joined, opts);
    const combine = { ...SUMMARY_TASK, system: COMBINE_SUMMARIES_SYSTEM };
    return (await this.#structured<{ summary: string }>(combine, joined, opts.signal)).summary.trim();
  }

  async enrich(text: string, opts: EnrichOptions = {}): Promise<Enrichment> {
    const tagLimit = Math.max(1, Math.min(opts.tagLimit ?? 8, 50));
    const task = enrichTask(opts.referenceDate, tagLimit, opts.knownTags ?? []);
    const parts: Enrichment[] = [];
    for (const part of this.#split(text)) {
      const raw = await this.#structured<Record<string, unknown>>(task, part, opts.signal, ENRICH_OUTPUT_TOKENS);
      parts.push(normaliseEnrichment(raw, { referenceDate: opts.referenceDate, tagLimit }));
    }
    if (parts.length === 1) return parts[0]!;
    // A long document: its parts' summaries are combined as `summarize` does.
    const joined = parts.map((p, i) => `Part ${i + 1}: ${p.summary.value}`).join('\n\n');
    const combine = { ...SUMMARY_TASK, system: COMBINE_SUMMARIES_SYSTEM };
    const summary = (await this.#structured<{ summary: string }>(combine, joined, opts.signal)).summary.trim();
    const confidence = Math.min(...parts.map((p) => p.summary.confidence));
    return mergeEnrichments(parts, { value: summary, confidence }, tagLimit);
  }

  async extractTags(
    text: string,
    opts: { limit?: number; documentFrequency?: (term: string) => number; signal?: AbortSignal } = {},
  ): Promise<string[]> {
    const limit = Math.max(1, Math.min(opts.limit ?? 8, 50));
    const lists: string[][] = [];
    // Ask for more than needed: the tenant's corpus may push common ones down.
    for (const part of this.#split(text)) {
      lists.push((await this.#structured<{ tags: string[] }>(tagsTask(limit * 2), part, opts.signal)).tags);
    }
    return mergeTags(lists, limit, opts.documentFrequency);
  }

  async extractEntities(text: string, opts: { signal?: AbortSignal; referenceDate?: Date } = {}): Promise<Entities> {
    const results: Entities[] = [];
    for (const part of this.#split(text)) {
      const raw = await this.#structured<Entities>(entitiesTask(opts.referenceDate), part, opts.signal);
      results.push(normaliseEntities(raw, opts.referenceDate));
    }
    return mergeEntities(results);
  }

  async embed(
    texts: string[],
    opts: { signal?: AbortSignal; purpose?: 'document' | 'query' } = {},
  ): Promise<Float32Array[]> {
    const out: Float32Array[] = texts.map(() => new Float32Array(this.embeddingDimensions));
    // Embedding models take about 8k tokens; callers embed chunks, so a longer text is cut, not split.
    const maxChars = Math.min(this.#maxInputTokens, 8000) * 4;
    const pending = texts
      .map((text, index) => ({ index, input: text.slice(0, maxChars) }))
      .filter((t) => t.input.trim() !== '');
    const client = await this.#sdk();
    for (let i = 0; i < pending.length; i += EMBEDDING_BATCH) {
      const batch = pending.slice(i, i + EMBEDDING_BATCH);
      const estimate = batch.reduce((sum, b) => sum + approxTokens(b.input), 0);
      await this.#budget?.take(estimate, opts.signal);
      const response = await withRetry(
        'embeddings',
        () =>
          client.embeddings.create(
            {
              model: this.embeddingModel,
              input: batch.map((b) => b.input),
              // Asked for explicitly so the SDK hands the answer over as it came: see decodeEmbedding.
              encoding_format: 'base64',
              ...(this.#requestDimensions ? { dimensions: this.#requestDimensions } : {}),
            },
            { signal: opts.signal },
          ),
        this.#retryOptions(opts.signal),
      );
      this.#budget?.settle(estimate, response.usage?.total_tokens);
      for (const item of response.data) {
        const target = batch[item.index];
        if (!target)
          throw new AiProviderError(`embeddings: answer has an unknown index ${item.index}`, { retryable: false });
        const vector = decodeEmbedding(item.embedding as unknown);
        if (vector.length !== this.embeddingDimensions) {
          throw new AiProviderError(
            `embeddings: model ${this.embeddingModel} returned ${vector.length} dimensions, configured ${this.embeddingDimensions}`,
            { retryable: false },
          );
        }
        out[target.index] = normalize(vector);
      }
    }
    return out;
  }

  async transcribe(audioPath: string, opts: { signal?: AbortSignal; language?: string } = {}): Promise<string | null> {
    const model = this.#config.transcriptionModel;
    if (!model) return null;
    const client = await this.#sdk();
    const result = await withRetry(
      'transcription',
      // A fresh stream for every attempt: a retried upload starts from the first byte.
      () =>
        client.audio.transcriptions.create(
          { file: fs.createReadStream(audioPath), model, ...(opts.language ? { language: opts.language } : {}) },
          { signal: opts.signal },
        ),
      this.#retryOptions(opts.signal),
    );
    return result.text.trim();
  }

  async answer(
    question: string,
    passages: Passage[],
    opts: { signal?: AbortSignal; onDelta?: (text: string) => void; history?: ChatTurn[] } = {},
  ): Promise<Answer> {
    const client = await this.#sdk();
    const prompt = answerPrompt(question, this.#fitPassages(passages, question));
    const history = this.#fitHistory(opts.history ?? [], this.#maxInputTokens - approxTokens(prompt));
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: ANSWER_SYSTEM },
      ...history.map((t) => ({ role: t.role, content: t.content })),
      { role: 'user', content: prompt },
    ];
    const estimate =
      approxTokens(ANSWER_SYSTEM + prompt) + history.reduce((s, t) => s + approxTokens(t.content), 0) + 500;
    await this.#budget?.take(estimate, opts.signal);
    const stream = await withRetry(
      'chat',
      () =>
        client.chat.completions.create(
          { model: this.#config.chatModel, messages, stream: true, temperature: 0.2 },
          { signal: opts.signal },
        ),
      this.#retryOptions(opts.signal),
    );
    let text = '';
    let usage: number | undefined;
    try {
      for await (const chunk of stream) {
        // Chunks already received may still come after an abort: none of them goes out.
        if (opts.signal?.aborted) break;
        const delta = chunk.choices[0]?.delta?.content;
        if (delta) {
          text += delta;
          opts.onDelta?.(delta);
        }
        if (chunk.usage) usage = chunk.usage.total_tokens;
      }
    } catch (error) {
      if (opts.signal?.aborted || (error instanceof Error && error.name === 'APIUserAbortError'))
        throw abortReason(opts.signal);
      // Deltas already went out: retrying would repeat them, so the caller decides.
      throw new AiProviderError(`chat: the answer stream broke off: ${(error as Error).message}`, {
        retryable: true,
        cause: error,
      });
    }
    opts.signal?.throwIfAborted();
    this.#budget?.settle(estimate, usage);
    const used = [...new Set([...text.matchAll(/\[(\d{1,3})\]/g)].map((m) => Number(m[1]) - 1))]
      .filter((i) => i >= 0 && i < passages.length)
      .sort((a, b) => a - b);
    return { text: text.trim(), used };
  }

  /** One chat completion with strict JSON output, parsed. */
  async #structured<T>(
    task: StructuredTask,
    text: string,
    signal: AbortSignal | undefined,
    outputTokens = STRUCTURED_OUTPUT_TOKENS,
  ): Promise<T> {
    const client = await this.#sdk();
    const estimate = approxTokens(task.system + text) + outputTokens;
    await this.#budget?.take(estimate, signal);
    const completion = await withRetry(
      task.name,
      () =>
        client.chat.completions.create(
          {
            model: this.#config.chatModel,
            temperature: 0,
            messages: [
              { role: 'system', content: task.system },
              { role: 'user', content: text },
            ],
            response_format: {
              type: 'json_schema',
              json_schema: { name: task.name, strict: true, schema: task.schema },
            },
          },
          { signal },
        ),
      this.#retryOptions(signal),
    );
    this.#budget?.settle(estimate, completion.usage?.total_tokens);
    const content = completion.choices[0]?.message?.content ?? '';
    try {
      return JSON.parse(content) as T;
    } catch (error) {
      // Another attempt may well produce valid JSON: retryable, but left to the caller.
      throw new AiProviderError(`${task.name}: the model did not answer with JSON`, { retryable: true, cause: error });
    }
  }

  // The text in pieces that fit one request, cut at sentence boundaries.
  #split(text: string): string[] {
    const budget = this.#maxInputTokens - 600;
    if (approxTokens(text) <= budget) return [text];
    return chunkText(text, { targetTokens: budget, overlapTokens: 0 }).map((c) => c.text);
  }

  // Passages in order of the caller's ranking, as many as fit in half the input budget.
  #fitPassages(passages: Passage[], question: string): Passage[] {
    let room = this.#maxInputTokens / 2 - approxTokens(question);
    return passages.map((p) => {
      const allowed = Math.max(0, Math.min(approxTokens(p.text), room));
      room -= allowed;
      return allowed >= approxTokens(p.text) ? p : { ...p, text: p.text.slice(0, allowed * 4) };
    });
  }

  // The most recent turns that fit, oldest first.
  #fitHistory(history: ChatTurn[], room: number): ChatTurn[] {
    const kept: ChatTurn[] = [];
    let left = Math.min(room, this.#maxInputTokens / 4);
    for (const turn of [...history].reverse()) {
      left -= approxTokens(turn.content);
      if (left < 0) break;
      kept.unshift(turn);
    }
    return kept;
  }

  #retryOptions(signal: AbortSignal | undefined): RetryOptions {
    return {
      maxRetries: this.#config.maxRetries ?? 4,
      baseDelayMs: this.#config.retryBaseDelayMs ?? 500,
      maxDelayMs: 30_000,
      maxRetryAfterMs: 120_000,
      signal,
    };
  }

  #sdk(): Promise<OpenAI> {
    this.#client ??= import('openai').then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          baseURL: this.#config.baseUrl,
          // Local servers (Ollama, vLLM) accept any key; the SDK insists on one.
          apiKey: this.#config.apiKey ?? 'unused',
          maxRetries: 0,
          timeout: this.#config.timeoutMs ?? 60_000,
        }),
    );
    return this.#client;
  }
}

/**
 * One embedding as the endpoint sent it: base64 of little-endian float32 (what we ask for, and
 * the SDK's own default), or a plain array of numbers from servers that ignore `encoding_format`.
 */
export function decodeEmbedding(embedding: unknown): Float32Array {
  if (typeof embedding === 'string') {
    const bytes = Buffer.from(embedding, 'base64');
    if (bytes.length % 4 !== 0)
      throw new AiProviderError('embeddings: base64 vector is not whole float32 values', { retryable: false });
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out = new Float32Array(bytes.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
    return out;
  }
  if (Array.isArray(embedding) && embedding.every((x) => typeof x === 'number')) return Float32Array.from(embedding);
  throw new AiProviderError('embeddings: vector is neither base64 nor an array of numbers', { retryable: false });
}
