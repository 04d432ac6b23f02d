import type { Database } from '../../db/database.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import type { Logger } from '../../lib/logger.ts';
import type { AiProvider } from '../../providers/ai/ai-provider.ts';
import type { ChunksRepository } from './chunks.repository.ts';
import { PROCESSING_JOBS, type ReembedPayload } from './processing.jobs.ts';

/** Documents re-embedded per job: each batch commits on its own, so search sees them move over as it goes. */
const BATCH_DOCUMENTS = 100;
/** Passages per embedding call. */
const EMBED_BATCH = 64;

/** Where a re-embedding stands in this process (for `/health`). */
export interface ReembedProgress {
  model: string;
  /** Documents still holding vectors of another model, as last counted here (null: not counted yet). */
  remaining: number | null;
  /** Documents this process re-embedded since it started. */
  done: number;
}

/**
 * Re-embeds, in the background, the passages whose vectors another embedding model made (the model
 * id is stored with each vector): after an upgrade of the local model, or a change of the OpenAI
 * embedding model or its dimensions. A recurring check starts a chain of batch jobs (two unique
 * keys taking turns, so one chain runs at a time); each batch replaces the passages of up to
 * BATCH_DOCUMENTS documents with the same texts and new vectors in one transaction. Search keeps
 * answering throughout: a document not yet re-embedded is still found by its words (and through
 * word vectors), only its passage cosine is missing until its turn.
 */
export class Reembedder {
  readonly progress: ReembedProgress;
  readonly #deps: { database: Database; jobs: JobQueue; chunks: ChunksRepository; ai: AiProvider; logger: Logger };
  readonly #model: string;

  constructor(deps: { database: Database; jobs: JobQueue; chunks: ChunksRepository; ai: AiProvider; logger: Logger }) {
    this.#deps = deps;
    this.#model = `${deps.ai.embeddingModel}:${deps.ai.embeddingDimensions}`;
    this.progress = { model: this.#model, remaining: null, done: 0 };
  }

  /** The recurring check: counts what is left and starts the chain when there is any. */
  async check(): Promise<void> {
    const { database, chunks, jobs } = this.#deps;
    const remaining = await chunks.countStale(database.db, this.#model);
    this.progress.remaining = remaining;
    if (remaining > 0)
      await jobs.enqueue(
        database.db,
        PROCESSING_JOBS.reembed,
        { model: this.#model, turn: 0 },
        { uniqueKey: chainKey(this.#model, 0) },
      );
  }

  /** One batch: re-embeds up to BATCH_DOCUMENTS documents, then hands over to the next turn when more are left. */
  async batch(job: RunningJob<ReembedPayload>): Promise<void> {
    const { database, chunks, jobs, ai, logger } = this.#deps;
    // A job queued by a process running another model is not ours to do: this model's check starts its own.
    if (job.payload.model !== this.#model) {
      await database.db.transaction().execute((trx) => job.completeIn(trx));
      return;
    }
    const stale = await chunks.staleDocuments(database.db, this.#model, BATCH_DOCUMENTS);
    const redone: {
      tenantId: string;
      documentId: string;
      passages: Awaited<ReturnType<ChunksRepository['forDocument']>>;
      vectors: Float32Array[];
    }[] = [];
    for (const { tenantId, documentId } of stale) {
      const passages = await chunks.forDocument(database.db, tenantId, documentId, this.#model);
      const vectors: Float32Array[] = [];
      for (let i = 0; i < passages.length; i += EMBED_BATCH) {
        vectors.push(
          ...(await ai.embed(
            passages.slice(i, i + EMBED_BATCH).map((p) => p.text),
            { signal: job.signal, purpose: 'document' },
          )),
        );
      }
      redone.push({ tenantId, documentId, passages, vectors });
    }
    const now = Date.now();
    let done = 0;
    await database.db.transaction().execute(async (trx) => {
      await job.completeIn(trx);
      for (const r of redone) {
        // Reprocessed meanwhile (other texts, or already this model's vectors): leave what is there.
        if (
          !(await chunks.sameTexts(
            trx,
            r.tenantId,
            r.documentId,
            r.passages.map((p) => p.text),
          ))
        )
          continue;
        const rows = r.passages.map((p, i) => ({
          index: p.index,
          page: p.page,
          text: p.text,
          embedding: r.vectors[i] ?? null,
        }));
        await chunks.replace(trx, r.tenantId, r.documentId, rows, this.#model, now);
        done++;
      }
      if (stale.length === BATCH_DOCUMENTS) {
        const turn = 1 - job.payload.turn;
        await jobs.enqueue(
          trx,
          PROCESSING_JOBS.reembed,
          { model: this.#model, turn },
          { uniqueKey: chainKey(this.#model, turn) },
        );
      }
    });
    this.progress.done += done;
    const remaining = await chunks.countStale(database.db, this.#model);
    this.progress.remaining = remaining;
    if (done > 0)
      logger.info({ model: this.#model, reembedded: done, remaining }, 'passages re-embedded with the current model');
  }
}

function chainKey(model: string, turn: number): string {
  return `${PROCESSING_JOBS.reembed}:${model}:${turn}`;
}
