import type { FastifyRequest } from 'fastify';
import { ErrorBody, IdParams, MessageBody, standardErrors } from '../../http/common-schemas.ts';
import { ifMatchUpdate } from '../../http/conditional-requests.ts';
import { type App, authOf } from '../../http/fastify-types.ts';
import { presentDocumentDetail, presentDocumentListItem, presentReprocess } from './documents.presenter.ts';
import type { DocumentSort } from './documents.repository.ts';
import {
  AppliedAiTags,
  DocumentContent,
  DocumentContentQuery,
  DocumentDetail,
  DocumentList,
  DocumentListQuery,
  ReprocessAnswer,
  UpdateDocumentBody,
} from './documents.schemas.ts';
import type { DocumentsService } from './documents.service.ts';

/** `https://host/api/v1` (or the sandbox's), from PUBLIC_BASE_URL or the request. */
export function apiBaseOf(request: FastifyRequest, publicBaseUrl: string | null): string {
  const origin = publicBaseUrl ?? `${request.protocol}://${request.host}`;
  return `${origin}${request.sandbox ? '/sandbox' : ''}/api/v1`;
}

/** Spec: Endpoints > Documents (list, get, update, delete, content). */
export function documentRoutes(app: App, s: { documents: DocumentsService; publicBaseUrl: string | null }): void {
  const tags = ['documents'];
  const documents = s.documents;
  // The document as GET answers it: PUT's If-Match is checked against this representation's ETag.
  const detail = async (request: FastifyRequest<{ Params: { id: string } }>) => {
    const d = await documents.get(authOf(request), request.params.id);
    return presentDocumentDetail(d.document, d.tags, apiBaseOf(request, s.publicBaseUrl), d.progress);
  };

  app.get(
    '/documents',
    {
      schema: {
        tags,
        summary: 'List documents',
        description:
          'Only documents the caller may see. Paged envelope `{data, total, page, page_size, total_pages}`; page size `page_size` (or its alias `limit`; `page_size` wins when both are given) defaults to 20, at most 100.',
        querystring: DocumentListQuery,
        response: { 200: DocumentList, ...standardErrors },
      },
    },
    async (request) => {
      const q = request.query;
      const auth = authOf(request);
      // `limit` carries its schema default, so the explicit `page_size` must win over it.
      const limit = q.page_size ?? q.limit ?? 20;
      const page = q.page ?? 1;
      const { items, total } = await documents.list(auth, {
        page,
        limit,
        folderId: q.folder_id,
        tagId: q.tag_id,
        tagIds: q.tag_ids,
        tagMatch: q.tag_match,
        entity: q.entity,
        entityType: q.entity_type,
        status: q.status,
        aiStatus: q.ai_status,
        search: q.search,
        sort: (q.sort ?? 'created_at') as DocumentSort,
        order: q.order ?? 'desc',
        fileType: q.file_type,
        dateStart: q.date_start,
        dateEnd: q.date_end,
      });
      const withEntities = auth.via === 'api_key';
      return {
        data: items.map((d) => presentDocumentListItem(d.document, d.tags, { withEntities, progress: d.progress })),
        total,
        page,
        page_size: limit,
        total_pages: Math.ceil(total / limit),
      };
    },
  );

  app.get(
    '/documents/:id',
    {
      schema: {
        tags,
        summary: 'Get a document',
        description:
          'Metadata, AI results (`ai_summary`, `ai_tags`, `entities`), `metadata` and `thumbnail_url` of a document the caller may read. Answers an `ETag` and `Last-Modified`; `If-None-Match` with the current ETag is 304.',
        params: IdParams,
        response: { 200: DocumentDetail, ...standardErrors },
      },
    },
    (request) => detail(request),
  );

  app.put(
    '/documents/:id',
    {
      config: { ifMatch: true },
      schema: {
        tags,
        summary: 'Update a document',
        description:
          'Partial update: rename, move (`folder_id` null: top level) or replace `tags` (names, created on first use). Needs `edit` permission on the document. With `If-Match` (the ETag of GET), a document changed since is 412 `precondition_failed`. Moving it out from under a folder an active legal hold names is 409 `legal_hold`.',
        params: IdParams,
        body: UpdateDocumentBody,
        response: { 200: DocumentDetail, ...standardErrors },
      },
    },
    async (request, reply) => {
      const { filename, folder_id, tags: tagNames } = request.body;
      const auth = authOf(request);
      const d = await ifMatchUpdate(
        request,
        reply,
        `${auth.tenant.id}:document:${request.params.id}`,
        () => detail(request),
        () => documents.update(auth, request.params.id, { filename, folderId: folder_id, tags: tagNames }),
      );
      return presentDocumentDetail(d.document, d.tags, apiBaseOf(request, s.publicBaseUrl), d.progress);
    },
  );

  app.delete(
    '/documents/:id',
    {
      schema: {
        tags,
        summary: 'Delete a document',
        description:
          'Permanent: the stored file is removed too. Needs `admin` permission on the document. 409 `legal_hold` while a legal hold covers it (`details.hold_id`, `details.hold_name`).',
        params: IdParams,
        response: { 200: MessageBody, 409: ErrorBody, ...standardErrors },
      },
    },
    async (request) => {
      await documents.delete(authOf(request), request.params.id);
      return { message: 'Document deleted permanently' };
    },
  );

  app.get(
    '/documents/:id/content',
    {
      schema: {
        tags,
        summary: "Get a document's extracted text",
        description:
          'The text extraction (and OCR or transcription) produced; `?page=N` answers one page of a document with pages.',
        params: IdParams,
        querystring: DocumentContentQuery,
        response: { 200: DocumentContent, ...standardErrors },
      },
    },
    async (request) => {
      const { content, pages, page } = await documents.content(authOf(request), request.params.id, request.query.page);
      return {
        content,
        content_type: 'extracted_text',
        length: content.length,
        ...(pages !== null ? { pages } : {}),
        ...(page ? { page } : {}),
      };
    },
  );

  app.post(
    '/documents/:id/reprocess',
    {
      config: { rateLimit: 'ai_processing' },
      schema: {
        tags,
        summary: 'Run extraction and AI again',
        description:
          'Answers 202 at once; the document goes back to `status: processing` and `ai_status: queued` (or `skipped`). Needs `edit` permission.',
        params: IdParams,
        response: { 202: ReprocessAnswer, ...standardErrors },
      },
    },
    async (request, reply) => {
      return reply.status(202).send(presentReprocess(await documents.reprocess(authOf(request), request.params.id)));
    },
  );

  app.post(
    '/documents/:id/apply-ai-tags',
    {
      config: { rateLimit: 'ai_processing' },
      schema: {
        tags,
        summary: "Turn a document's AI tags into tags",
        description: 'Each AI tag becomes a tag of the document (created on first use). Needs `edit` permission.',
        params: IdParams,
        response: { 200: AppliedAiTags, ...standardErrors },
      },
    },
    async (request) => {
      const applied = await documents.applyAiTags(authOf(request), request.params.id);
      return {
        message: applied.length > 0 ? `Applied ${applied.length} AI tags` : 'No new AI tags to apply',
        tags_applied: applied,
      };
    },
  );
}
