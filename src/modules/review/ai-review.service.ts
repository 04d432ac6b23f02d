import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { AiEnrichment, Document } from '../documents/index.ts';
import type { EnrichmentReviewer } from '../processing/index.ts';
import type { NewTask, Task, TaskAccess, TaskOutcome, TaskSource } from '../workflows/index.ts';
import type { AiReviewRepository } from './ai-review.repository.ts';
import { confirm, type HeldResults, pendingNames, planReview, readDecision, taskContent } from './review-items.ts';

/** The name AI review tasks are registered under in the task inbox. */
export const AI_REVIEW_SOURCE = 'ai_review';

const DAY_MS = 86_400_000;
/** A review waits this long, then expires (its results stay unapplied; a reprocess asks again). */
const REVIEW_DAYS = 30;

interface Deps {
  clock: Clock;
  repository: AiReviewRepository;
  tasks: Pick<ModuleServices['humanTasks'], 'createFor' | 'withdraw'>;
  library: Pick<ModuleServices['documentPipeline'], 'find' | 'update'>;
  documents: Pick<ModuleServices['documents'], 'annotate'>;
  access: Pick<ModuleServices['documentAccess'], 'mayEdit' | 'editableCondition'>;
  tenants: Pick<ModuleServices['tenants'], 'aiReviewThreshold'>;
  enrichment: Pick<ModuleServices['enrichmentReview'], 'typeConfirmed'>;
}

/**
 * The AI review queue (docs/processing.md, "Review"). As the enrichment's reviewer, it lays the
 * values people confirmed over the AI's, and, when the tenant has an `ai_review_threshold`, holds
 * the type, fields and tags below it back in one review task per document (replacing a task a
 * previous run left pending). As the inbox's `ai_review` source, it applies the decision in the
 * transaction that completes the task: approved and corrected values are confirmed (accepted tags
 * become the document's tags, which the learned tags then train on), rejected ones never come back.
 * Only people who may edit the document see or decide its task.
 */
export class AiReview implements EnrichmentReviewer, TaskSource {
  readonly #deps: Deps;
  readonly access: TaskAccess;

  constructor(deps: Deps) {
    this.#deps = deps;
    this.access = {
      reaches: (db: Executor, auth: AuthContext, task: Task) =>
        task.sourceRef ? deps.access.mayEdit(db, auth, task.sourceRef) : Promise.resolve(false),
      condition: (auth: AuthContext) => deps.access.editableCondition(auth),
    };
  }

  async review(trx: Executor, doc: Document, enrichment: AiEnrichment): Promise<AiEnrichment> {
    const { repository, tenants, tasks, clock } = this.#deps;
    const [current, threshold] = await Promise.all([
      repository.find(trx, doc.tenantId, doc.id),
      tenants.aiReviewThreshold(trx, doc.tenantId),
    ]);
    const plan = planReview(enrichment, current.confirmations, threshold);
    // A task an earlier run left is about results this run replaced: it leaves the inbox.
    if (current.taskId) await tasks.withdraw(trx, doc.tenantId, AI_REVIEW_SOURCE, [current.taskId]);
    if (!plan.held || threshold === null) {
      if (current.taskId) await repository.setTask(trx, doc.tenantId, doc.id, null, clock.now());
      return plan.shown;
    }
    const task = await tasks.createFor(
      trx,
      { tenantId: doc.tenantId, source: AI_REVIEW_SOURCE, sourceRef: doc.id, label: 'AI review' },
      reviewTask(doc, plan.held, threshold, clock.now()),
    );
    await repository.setTask(trx, doc.tenantId, doc.id, task.id, clock.now());
    return { ...plan.shown, review: { taskId: task.id, pending: pendingNames(plan.held) } };
  }

  async settle(trx: Executor, task: Task, outcome: TaskOutcome): Promise<void> {
    const { repository, library, documents, enrichment, clock } = this.#deps;
    if (!task.sourceRef) return;
    const current = await repository.find(trx, task.tenantId, task.sourceRef);
    const doc = await library.find(trx, task.tenantId, task.sourceRef);
    // A task a reprocess replaced is withdrawn before anyone can decide it; a deleted document has nothing to apply to.
    if (current.taskId !== task.id || !doc) return;
    const now = clock.now();
    if (outcome.decision === 'expired') {
      await repository.setTask(trx, task.tenantId, doc.id, null, now);
      return this.#show(trx, doc, (e) => ({ ...e, review: null }), now);
    }
    const decision = readDecision(outcome.decision, task.context['asked'] as Record<string, unknown>, outcome.data);
    const confirmations = confirm(current.confirmations, decision);
    await repository.confirm(trx, task.tenantId, doc.id, confirmations, now);
    await this.#show(trx, doc, (e) => planReview(e, confirmations, null).shown, now);
    // What people accept and correct trains the learned tags: the type as a term of the document, tags as its tags.
    if (decision.documentType !== undefined)
      await enrichment.typeConfirmed(trx, task.tenantId, doc.id, decision.documentType);
    if (decision.acceptedTags.length > 0)
      await documents.annotate(trx, task.tenantId, doc.id, { addTags: decision.acceptedTags });
  }

  /** Changes what the document shows of its AI results. */
  async #show(trx: Executor, doc: Document, change: (e: AiEnrichment) => AiEnrichment, now: number): Promise<void> {
    if (!doc.aiEnrichment) return;
    const shown = change(doc.aiEnrichment);
    await this.#deps.library.update(trx, doc.tenantId, doc.id, {
      aiEnrichment: shown,
      aiDocumentType: shown.documentType?.value ?? null,
      aiTags: shown.tags.map((t) => t.name),
      updatedAt: now,
    });
  }
}

/** One review task for a document's held results; the document's owner is told (anyone who may edit it may decide). */
function reviewTask(doc: Document, held: HeldResults, threshold: number, now: number): NewTask {
  const { data, confidences } = taskContent(held);
  const names = pendingNames(held);
  return {
    taskType: 'review',
    title: `Review AI results for ${doc.filename}`,
    description: `The AI is unsure of ${names.join(', ')} (confidence below ${threshold}). Approve to apply them, reject to drop them, or complete as modified with corrected values (null rejects one; \`tags\` lists the tags to keep).`,
    context: {
      document_id: doc.id,
      filename: doc.filename,
      review_threshold: threshold,
      confidences,
      tag_sources: Object.fromEntries(held.tags.map((t) => [t.name, t.source])),
      asked: data,
    },
    data,
    assigneeType: doc.ownerId ? 'user' : 'role',
    assigneeValue: doc.ownerId ?? 'admin',
    editableFields: Object.keys(data),
    onTimeout: 'fail',
    escalateTo: null,
    dueAt: now + REVIEW_DAYS * DAY_MS,
    escalationAt: now + Math.round(REVIEW_DAYS * 0.75) * DAY_MS,
  };
}
