import { Type } from 'typebox';
import { IdParams, MessageBody, Paged, PageQuery, pageWindow, standardErrors } from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { presentTag } from './tags.presenter.ts';
import { CreateTagBody, TagView } from './tags.schemas.ts';
import type { TagsService } from './tags.service.ts';

/** docs/api-decisions.md §6: tags. */
export function tagRoutes(app: App, s: { tags: TagsService }): void {
  const tags = ['tags'];

  app.get(
    '/tags',
    {
      schema: {
        tags,
        summary: 'List tags',
        description: 'Paged envelope `{data, total, page, page_size}`.',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Paged(TagView) },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await s.tags.list(authOf(request), page);
      return { data: rows.map(presentTag), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.post(
    '/tags',
    {
      schema: {
        tags,
        summary: 'Create a tag',
        description: 'Anyone but a viewer. Names are unique per tenant, case-insensitive (409 `conflict`).',
        body: CreateTagBody,
        response: { 201: TagView, ...standardErrors },
      },
    },
    async (request, reply) => reply.status(201).send(presentTag(await s.tags.create(authOf(request), request.body))),
  );

  app.delete(
    '/tags/:id',
    {
      schema: {
        tags,
        summary: 'Delete a tag',
        description: 'Owners and admins only; the tag is removed from every document.',
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await s.tags.delete(authOf(request), request.params.id);
      return { message: 'Tag deleted' };
    },
  );
}
