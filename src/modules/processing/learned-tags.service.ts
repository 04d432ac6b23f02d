import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { TagSuggestion } from '../../providers/ai/ai-provider.ts';
import type { DocumentPipelineStore } from '../documents/index.ts';
import {
  type LearnedTagModel,
  MIN_TAGGED_DOCUMENTS,
  proposeTags,
  type TaggedExample,
  type Terms,
  trainTagModel,
} from './learned-tag-model.ts';
import { documentTerms, withDocumentType } from './learned-tag-terms.ts';
import type { LearnedTagsRepository } from './learned-tags.repository.ts';
import { type LearnTagsPayload, PROCESSING_JOBS } from './processing.jobs.ts';

/** A learned tag is proposed from this calibrated confidence on: more likely right than not. */
export const LEARNED_TAG_MIN_CONFIDENCE = 0.5;
/** Documents per tag a training reads (the most recently tagged): enough to learn, bounded for a large library. */
const POSITIVES_PER_TAG = 300;
/** Documents a training reads in all: the tagged ones, then recent untagged ones as counter-examples. */
const MAX_EXAMPLES = 1_500;
/** New documents that make a model worth training again, at the least. */
const MIN_GROWTH = 5;
/** Tenants whose parsed model a process keeps (a large tenant's is ~2 MB parsed). */
const CACHED_MODELS = 16;
/**
 * After a run during which the tagging changed again, the next one waits this many times as long as
 * the run took: a bulk tagging keeps a tenant's trainings to about a fifth of a core.
 */
const PAUSE_PER_TRAINING_TIME = 4;

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  repository: LearnedTagsRepository;
  store: DocumentPipelineStore;
}

/**
 * Learned tags (docs/processing.md, "Learned tags"): every enriched document's terms are kept;
 * a change of a tenant's tagging marks its model stale and queues one training job (a burst of
 * changes makes one run, and a change during a run makes one more); enrichment asks the current
 * model for the tenant's tags that fit a new document.
 */
export class LearnedTags {
  readonly #deps: Deps;
  readonly #models = new Map<string, { trainedAt: number; model: LearnedTagModel | null }>();

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  /** What the classifier reads of a document. */
  terms(text: string, documentType: string | null): Terms {
    return documentTerms(text, documentType);
  }

  /**
   * In the enrichment's transaction: keeps the document's terms for training, and queues a training
   * when the document is a new example (it carries the tenant's tags, given at upload) or when the
   * library has grown by half since the model was trained (its new documents are counter-examples
   * the model has not seen: a model trained on a few tagged documents would otherwise take every
   * new kind of document for one of them).
   */
  async enriched(
    trx: Executor,
    tenantId: string,
    documentId: string,
    terms: Terms,
    options: { tagged: boolean },
  ): Promise<void> {
    const { repository, clock } = this.#deps;
    await repository.saveTerms(trx, tenantId, documentId, terms, clock.now());
    if (options.tagged) return this.tagsChanged(trx, tenantId);
    const current = this.#models.get(tenantId);
    if (!current?.model) return;
    const enough = Math.max(MIN_GROWTH, Math.ceil(current.model.documents / 2));
    if ((await repository.enrichedSince(trx, tenantId, current.trainedAt, enough)) >= enough)
      await this.tagsChanged(trx, tenantId);
  }

  /**
   * The tenant's learned tags that fit these terms, at `LEARNED_TAG_MIN_CONFIDENCE` or above: only
   * tags the tenant still has (`existing`, any case) and the document does not carry yet (`carried`).
   */
  async propose(
    db: Executor,
    tenantId: string,
    terms: Terms,
    options: { existing: readonly string[]; carried: readonly string[] },
  ): Promise<TagSuggestion[]> {
    const model = await this.#model(db, tenantId);
    if (!model) return [];
    const existing = new Set(options.existing.map((n) => n.toLowerCase()));
    const carried = new Set(options.carried.map((n) => n.toLowerCase()));
    return proposeTags(model, terms, LEARNED_TAG_MIN_CONFIDENCE)
      .filter((t) => existing.has(t.name.toLowerCase()) && !carried.has(t.name.toLowerCase()))
      .map((t) => ({ name: t.name, confidence: t.confidence, source: 'learned' as const }));
  }

  /**
   * A person confirmed or corrected a document's type (an AI review): its stored terms take it, and
   * a document that is a training example (it carries tags) makes the model train again.
   */
  async typeConfirmed(trx: Executor, tenantId: string, documentId: string, documentType: string | null): Promise<void> {
    const { repository, store, clock } = this.#deps;
    const stored = (await repository.termsOf(trx, tenantId, [documentId])).get(documentId);
    if (!stored) return;
    await repository.saveTerms(trx, tenantId, documentId, withDocumentType(stored, documentType), clock.now());
    if ((await store.tagsOf(trx, tenantId, [documentId])).has(documentId)) await this.tagsChanged(trx, tenantId);
  }

  /** The tenant's tagging changed: mark the model stale and queue a training (one per tenant at a time). */
  async tagsChanged(db: Executor, tenantId: string): Promise<void> {
    const { repository, jobs, clock } = this.#deps;
    await repository.markChanged(db, tenantId, clock.now());
    await jobs.enqueue(db, PROCESSING_JOBS.learnTags, { tenantId } satisfies LearnTagsPayload, {
      tenantId,
      uniqueKey: `learn-tags:${tenantId}`,
    });
  }

  /** The training job: the tenant's model from its tagged documents, stored with the change it includes. */
  async train(job: RunningJob<LearnTagsPayload>): Promise<void> {
    const { database, repository, clock, jobs } = this.#deps;
    const { tenantId } = job.payload;
    const stored = await repository.findModel(database.db, tenantId);
    if (!stored) return job.completeIn(database.db);
    const started = clock.now();
    const examples = await this.#examples(tenantId);
    const model = await trainTagModel(examples, { previous: stored.model, signal: job.signal });
    await database.db.transaction().execute(async (trx) => {
      // The model row first, as enrichment takes it (marking a change) before the job's unique key: no lock cycle.
      await repository.saveModel(trx, tenantId, model, stored.changedAt, clock.now());
      await job.completeIn(trx);
      // Changes made while this run trained are not in its model: one more run takes them in.
      const now = await repository.findModel(trx, tenantId);
      if (now && now.changedAt > stored.changedAt) {
        const runAt = clock.now() + PAUSE_PER_TRAINING_TIME * (clock.now() - started);
        await jobs.enqueue(trx, PROCESSING_JOBS.learnTags, { tenantId } satisfies LearnTagsPayload, {
          tenantId,
          uniqueKey: `learn-tags:${tenantId}`,
          runAt,
        });
      }
    });
  }

  /**
   * The training set: the most recently tagged documents of every learnable tag, then recently
   * enriched ones as counter-examples, each with all of its tags (so a document is never a
   * counter-example of a tag it carries). A tagged document enriched before learned tags existed
   * (or uploaded without AI) gets its terms made from its text now.
   */
  async #examples(tenantId: string): Promise<TaggedExample[]> {
    const { database, store, repository } = this.#deps;
    const db = database.db;
    const learnable = await store.taggedDocuments(db, tenantId, MIN_TAGGED_DOCUMENTS, POSITIVES_PER_TAG);
    if (learnable.length === 0) return [];
    const ids = [...new Set(learnable.flatMap((t) => t.documentIds))].slice(0, MAX_EXAMPLES);
    const tagged = new Set(ids);
    for (const id of await repository.recentDocuments(db, tenantId, MAX_EXAMPLES)) {
      if (ids.length >= MAX_EXAMPLES) break;
      if (!tagged.has(id)) ids.push(id);
    }
    const terms = await repository.termsOf(db, tenantId, ids);
    for (const id of ids.filter((i) => tagged.has(i) && !terms.has(i))) {
      const made = await this.#termsFromText(tenantId, id);
      if (made) terms.set(id, made);
    }
    const tags = await store.tagsOf(db, tenantId, ids);
    return ids.filter((id) => terms.has(id)).map((id) => ({ terms: terms.get(id)!, tags: tags.get(id) ?? [] }));
  }

  async #termsFromText(tenantId: string, documentId: string): Promise<Terms | null> {
    const { database, store, repository } = this.#deps;
    const [doc, content] = await Promise.all([
      store.find(database.db, tenantId, documentId),
      store.findContent(database.db, tenantId, documentId),
    ]);
    if (!doc || !content || content.text.trim() === '') return null;
    const terms = documentTerms(content.text, doc.aiDocumentType);
    await repository.saveTerms(database.db, tenantId, documentId, terms, doc.updatedAt);
    return terms;
  }

  /** The tenant's current model, parsed once per training and kept for the most recently used tenants. */
  async #model(db: Executor, tenantId: string): Promise<LearnedTagModel | null> {
    const { repository } = this.#deps;
    const trainedAt = await repository.trainedAt(db, tenantId);
    if (trainedAt === null) return null;
    const cached = this.#models.get(tenantId);
    if (cached?.trainedAt === trainedAt) {
      this.#models.delete(tenantId);
      this.#models.set(tenantId, cached);
      return cached.model;
    }
    const stored = await repository.findModel(db, tenantId);
    const model = stored?.model ?? null;
    this.#models.delete(tenantId);
    this.#models.set(tenantId, { trainedAt: stored?.trainedAt ?? trainedAt, model });
    if (this.#models.size > CACHED_MODELS) this.#models.delete(this.#models.keys().next().value!);
    return model;
  }
}
