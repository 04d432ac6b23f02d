import { Type } from 'typebox';
import type { BatchJobsService } from './batch-jobs.service.ts';
import { IdParams, Paged, PageQuery, pageWindow, standardErrors, Timestamp } from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { Rejection } from '../documents.schemas.ts';
import { presentBatchJob } from './batch-jobs.presenter.ts';

const BatchJobView = Type.Object({
  id: Type.String(),
  collection_id: Type.String(),
  status: Type.String({ description: '`processing`, `completed`, `completed_with_errors`, `failed`.' }),
  total: Type.Integer({ description: 'Files in the batch, accepted and rejected.' }),
  completed: Type.Integer(),
  failed: Type.Integer({ description: 'Rejected at upload plus failed in processing.' }),
  documents: Type.Array(
    Type.Object({ id: Type.String(), filename: Type.String(), status: Type.String(), ai_status: Type.String() }),
  ),
  rejected: Type.Array(Rejection),
  created_at: Timestamp,
});

const BatchJobListQuery = Type.Object(PageQuery, { additionalProperties: false });

/** docs/api-decisions.md §6 and §9: GET /batch-jobs (paged) and GET /batch-jobs/{id}. */
export function batchJobRoutes(app: App, s: { batchJobs: BatchJobsService }): void {
  app.get(
    '/batch-jobs',
    {
      schema: {
        tags: ['documents'],
        summary: 'List batch uploads',
        description:
          'Newest first, in the paged envelope `{data, total, page, page_size}`. Owners, admins and API keys see every batch of the tenant; other users see their own.',
        querystring: BatchJobListQuery,
        response: { 200: Paged(BatchJobView), ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await s.batchJobs.list(authOf(request), page);
      return { data: rows.map(presentBatchJob), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/batch-jobs/:id',
    {
      schema: {
        tags: ['documents'],
        summary: 'Get the progress of a batch upload',
        description: 'Visible to owners, admins and the user who uploaded the batch; anyone else gets 404.',
        params: IdParams,
        response: { 200: BatchJobView, ...standardErrors },
      },
    },
    async (request) => {
      return presentBatchJob(await s.batchJobs.get(authOf(request), request.params.id));
    },
  );
}
