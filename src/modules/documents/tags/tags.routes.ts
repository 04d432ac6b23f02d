import { Type } from 'typebox';
import type { TagsService } from './tags.service.ts';
import { IdParams, MessageBody, Paged, PageQuery, pageWindow, standardErrors, Timestamp } from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { iso } from '../../../lib/clock.ts';
import type { TagRow } from './tags.repository.ts';

const TagView = Type.Object({ id: Type.String(), name: Type.String(), color: Type.String(), created_at: Timestamp });
const CreateTagBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Unique per tenant, case-insensitive.' }),
    color: Type.Optional(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: '`#RRGGBB`; default `#6B7280`.' })),
  },
  { additionalProperties: false },
);

function presentTag(t: TagRow) {
  return { id: t.id, name: t.name, color: t.color, created_at: iso(t.created_at) };
}

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
