import type { FastifyRequest } from 'fastify';
import type { FoldersService } from './folders.service.ts';
import { ErrorBody, IdParams, MessageBody, standardErrors } from '../../../http/common-schemas.ts';
import { ifMatchUpdate } from '../../../http/conditional-requests.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { parseBooleanField } from '../upload-fields.ts';
import { presentFolder } from './folders.presenter.ts';
import {
  CreateFolderBody,
  DeleteFolderQuery,
  FolderList,
  FolderListQuery,
  FolderView,
  UpdateFolderBody,
} from './folders.schemas.ts';

/** Spec: Endpoints > Folders, with docs/api-decisions.md §6 and §9. */
export function folderRoutes(app: App, s: { folders: FoldersService }): void {
  const tags = ['folders'];
  const folders = s.folders;

  app.get(
    '/folders',
    {
      schema: {
        tags,
        summary: 'List folders',
        description:
          'Without `parent_id`, every folder flat (build the tree from `parent_id`); `parent_id=root` gives the top level, an id its children. `document_count` counts documents directly inside.',
        querystring: FolderListQuery,
        response: { 200: FolderList, ...standardErrors },
      },
    },
    async (request) => {
      const { parent_id, include_document_count } = request.query;
      const withCounts = parseBooleanField('include_document_count', include_document_count, true);
      const rows = await folders.list(authOf(request), parent_id, withCounts);
      return { folders: rows.map((f) => presentFolder(f, { withUpdatedAt: false })) };
    },
  );

  // The folder as GET answers it: PUT's If-Match is checked against this representation's ETag.
  const detail = async (request: FastifyRequest<{ Params: { id: string } }>) =>
    presentFolder(await folders.get(authOf(request), request.params.id), { withUpdatedAt: true });

  app.get(
    '/folders/:id',
    {
      schema: {
        tags,
        summary: 'Get a folder',
        description:
          'A folder with its `document_count` (documents directly inside) and `updated_at`. Answers an `ETag` and `Last-Modified`; `If-None-Match` with the current ETag is 304.',
        params: IdParams,
        response: { 200: FolderView, ...standardErrors },
      },
    },
    (request) => detail(request),
  );

  app.post(
    '/folders',
    {
      schema: {
        tags,
        summary: 'Create a folder',
        description:
          'Anyone but a viewer. `parent_id` null or omitted creates a top-level folder; names are unique among siblings, case-insensitive (409 `conflict`).',
        body: CreateFolderBody,
        response: { 201: FolderView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const { name, parent_id, color, icon } = request.body;
      const folder = await folders.create(authOf(request), { name, parentId: parent_id ?? null, color, icon });
      return reply.status(201).send(presentFolder(folder, { withUpdatedAt: true }));
    },
  );

  app.put(
    '/folders/:id',
    {
      config: { ifMatch: true },
      schema: {
        tags,
        summary: 'Update or move a folder',
        description:
          'Partial update; `parent_id` moves the folder (null: top level). A move into its own subtree is 400 `validation_error`; a sibling with the same name is 409 `conflict`. Only the user who created the folder, owners, admins and API keys (403 `forbidden`; viewers never); moving it under any folder is allowed to them. With `If-Match` (the ETag of GET), a folder changed since is 412 `precondition_failed`. Moving it out from under a folder an active legal hold names is 409 `legal_hold`.',
        params: IdParams,
        body: UpdateFolderBody,
        response: { 200: FolderView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const { name, color, icon, parent_id } = request.body;
      const auth = authOf(request);
      const folder = await ifMatchUpdate(
        request,
        reply,
        `${auth.tenant.id}:folder:${request.params.id}`,
        () => detail(request),
        () => folders.update(auth, request.params.id, { name, color, icon, parentId: parent_id }),
      );
      return presentFolder(folder, { withUpdatedAt: true });
    },
  );

  app.delete(
    '/folders/:id',
    {
      schema: {
        tags,
        summary: 'Delete a folder',
        description:
          '400 `folder_not_empty` unless the folder is empty or `force=true`. Only the user who created the folder, owners, admins and API keys (403 `forbidden`); `force=true` deletes the subtree with its documents and is for owners and admins only. 409 `legal_hold` while a legal hold covers the folder or anything it would delete (`details.hold_id`, `details.hold_name`).',
        params: IdParams,
        querystring: DeleteFolderQuery,
        response: { 200: MessageBody, 409: ErrorBody, ...standardErrors },
      },
    },
    async (request) => {
      await folders.delete(authOf(request), request.params.id, parseBooleanField('force', request.query.force, false));
      return { message: 'Folder deleted' };
    },
  );
}
