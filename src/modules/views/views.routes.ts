import { Type } from 'typebox';
import {
  ErrorBody,
  IdParams,
  MessageBody,
  Paged,
  PageQuery,
  pageWindow,
  standardErrors,
} from '../../http/common-schemas.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import type { SavedViewsService } from './saved-views.service.ts';
import { presentView } from './views.presenter.ts';
import { CreateViewBody, SavedViewView, UpdateViewBody } from './views.schemas.ts';

const OWN =
  'The caller’s own views only (a user’s, or an API key’s): another person’s view answers 404, as one that does not exist.';

/** docs/console.md "Saved views": the documents page's views, kept per person. */
export function viewsRoutes(app: App, views: SavedViewsService): void {
  const tags = ['saved-views'];

  app.post(
    '/saved-views',
    {
      schema: {
        tags,
        summary: 'Save a view',
        description: `${OWN} A folder (null or absent: the root; 404 when the caller cannot see it) with the query the documents page keeps (\`filters\`), under a name unique among the caller's views (409 \`conflict\` otherwise).`,
        body: CreateViewBody,
        response: { 201: SavedViewView, 409: ErrorBody, ...standardErrors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const view = await views.create(authOf(request), {
        name: b.name,
        folderId: b.folder_id ?? null,
        filters: b.filters ?? {},
      });
      return reply.status(201).send(presentView(view));
    },
  );

  app.get(
    '/saved-views',
    {
      schema: {
        tags,
        summary: 'List saved views',
        description: `${OWN} By name, A to Z.`,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Paged(SavedViewView), ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await views.list(authOf(request), page);
      return { data: rows.map(presentView), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/saved-views/:id',
    {
      schema: {
        tags,
        summary: 'Get a saved view',
        description: OWN,
        params: IdParams,
        response: { 200: SavedViewView, ...standardErrors },
      },
    },
    async (request) => presentView(await views.get(authOf(request), request.params.id)),
  );

  app.patch(
    '/saved-views/:id',
    {
      schema: {
        tags,
        summary: 'Rename or change a saved view',
        description: `${OWN} What the body gives changes (\`filters\` is replaced whole); 409 \`conflict\` when the new name is taken among the caller's views.`,
        params: IdParams,
        body: UpdateViewBody,
        response: { 200: SavedViewView, 409: ErrorBody, ...standardErrors },
      },
    },
    async (request) => {
      const b = request.body;
      const view = await views.update(authOf(request), request.params.id, {
        ...(b.name === undefined ? {} : { name: b.name }),
        ...(b.folder_id === undefined ? {} : { folderId: b.folder_id }),
        ...(b.filters === undefined ? {} : { filters: b.filters }),
      });
      return presentView(view);
    },
  );

  app.delete(
    '/saved-views/:id',
    {
      schema: {
        tags,
        summary: 'Delete a saved view',
        description: OWN,
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await views.delete(authOf(request), request.params.id);
      return { message: 'Saved view deleted' };
    },
  );
}
