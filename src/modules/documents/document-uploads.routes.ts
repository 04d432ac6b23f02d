import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ErrorBody, standardErrors } from '../../http/common-schemas.ts';
import { type App, authOf } from '../../http/fastify-types.ts';
import { setRequestFingerprint } from '../../http/idempotency.ts';
import { errors } from '../../lib/errors.ts';
import type { DocumentUploadsService } from './document-uploads.service.ts';
import { MAX_BATCH_FILES } from './document-uploads.service.ts';
import { presentBatchUpload, presentSingleUpload } from './documents.presenter.ts';
import {
  BatchUploadMultipartBody,
  BatchUploadResponse,
  UploadMultipartBody,
  UploadResponse,
} from './documents.schemas.ts';
import { closeUnreadUploads, multipartLimits, multipartSourceOf } from './multipart-source.ts';
import { ON_DUPLICATE, type OnDuplicate } from './upload-fields.ts';

const uploadErrors = { ...standardErrors, 413: ErrorBody, 415: ErrorBody };

/** Idempotency-Key support: the body was streamed by the service, so it declares the fingerprint of what passed. */
function fingerprint(request: FastifyRequest): (fingerprint: string) => void {
  return (value) => setRequestFingerprint(request, value);
}

/**
 * `?on_duplicate=store|skip` (docs/versions.md, "Identical uploads"). Read here rather than declared as
 * a query schema: the field of the same name is the documented way, and the body's field wins.
 */
function onDuplicateQuery(request: FastifyRequest): OnDuplicate | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.['on_duplicate'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(ON_DUPLICATE as readonly string[]).includes(value))
    throw errors.field('on_duplicate', `must be one of: ${ON_DUPLICATE.join(', ')}`);
  return value as OnDuplicate;
}

/** Spec: POST /documents/upload and /documents/upload-batch (multipart, streamed). */
export async function documentUploadRoutes(app: App, s: { uploads: DocumentUploadsService }): Promise<void> {
  // Encapsulated: only these routes parse multipart, as streams, with the per-type limits enforced while storing.
  await app.register(async (scope: App) => {
    await scope.register(multipart, { limits: multipartLimits(MAX_BATCH_FILES + 1) });
    scope.addHook('onSend', async (request, reply) => closeUnreadUploads(request, reply));
    const tags = ['documents'];
    const uploads = s.uploads;

    scope.post(
      '/documents/upload',
      {
        config: { rateLimit: 'document_upload' },
        schema: {
          tags,
          operationId: 'uploadDocument',
          summary: 'Upload a document',
          description:
            'multipart/form-data, streamed: `file` (required), `folder_id`, `enable_ai`, `tags`, `filename`, `on_duplicate`. Processing (extraction, then AI unless `enable_ai` is false) continues in the background: follow `status` and `ai_status` on the document. A file identical to a document you can see is stored and named in `duplicate_of`; with `on_duplicate=skip` nothing is stored and the existing document is answered (200).',
          consumes: ['multipart/form-data'],
          documentedBody: UploadMultipartBody,
          response: { 200: UploadResponse, 201: UploadResponse, ...uploadErrors },
        },
      },
      async (request, reply) => {
        const made = await uploads.upload(authOf(request), multipartSourceOf(request, 2), fingerprint(request), {
          onDuplicate: onDuplicateQuery(request),
        });
        return reply.status(made.created ? 201 : 200).send(presentSingleUpload(made));
      },
    );

    scope.post(
      '/documents/upload-batch',
      {
        config: { rateLimit: 'document_upload' },
        schema: {
          tags,
          operationId: 'uploadDocumentBatch',
          summary: 'Upload a batch of up to 10 documents',
          consumes: ['multipart/form-data'],
          description:
            'multipart/form-data, streamed: up to 10 files as `files[]` or `files`, with `folder_id`, `enable_ai`, `tags`, `on_duplicate`. Each file is accepted or rejected on its own (`rejected`); 201 when at least one was accepted, otherwise the error of the first rejection with `details.rejected`. A file identical to a document you can see (or to an earlier file of the batch) carries `duplicate_of`; with `on_duplicate=skip` it is listed under `skipped` instead of stored (200 when every file was skipped).',
          documentedBody: BatchUploadMultipartBody,
          response: { 200: BatchUploadResponse, 201: BatchUploadResponse, ...uploadErrors },
        },
      },
      async (request, reply) => {
        const result = await uploads.uploadBatch(
          authOf(request),
          multipartSourceOf(request, MAX_BATCH_FILES + 1),
          fingerprint(request),
          {
            onDuplicate: onDuplicateQuery(request),
          },
        );
        return reply.status(result.documents.length > 0 ? 201 : 200).send(presentBatchUpload(result));
      },
    );
  });
}
