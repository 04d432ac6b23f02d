import { defineModule } from '../../platform/module.ts';
import { AiReviewRepository } from './ai-review.repository.ts';
import { AI_REVIEW_SOURCE, AiReview } from './ai-review.service.ts';

/**
 * The AI review queue (issue 27, docs/processing.md "Review"): AI types, fields and tags below the
 * tenant's `ai_review_threshold` wait in the workflow task inbox for a person who may edit the
 * document; what people confirm, correct or reject is kept apart from the AI's results and
 * survives reprocessing. Listed after the modules whose services it joins: processing (the
 * enrichment it reviews), workflows (the inbox) and documents (the tags it applies).
 */
export const reviewModule = defineModule({
  name: 'review',
  setup({ clock, use }) {
    const repository = new AiReviewRepository();
    const review = new AiReview({
      clock,
      repository,
      tasks: use('humanTasks'),
      library: use('documentPipeline'),
      documents: use('documents'),
      access: use('documentAccess'),
      tenants: use('tenants'),
      enrichment: use('enrichmentReview'),
    });
    use('humanTasks').registerSource(AI_REVIEW_SOURCE, review);
    use('enrichmentReview').use(review);
    return {
      async sandboxCleanup(trx, tenantId) {
        await repository.deleteForTenant(trx, tenantId);
      },
    };
  },
});
