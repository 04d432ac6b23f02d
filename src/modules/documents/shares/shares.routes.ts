import { Type } from 'typebox';
import type { SharesService } from './shares.service.ts';
import { IdParams, MessageBody, standardErrors, Timestamp } from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { SHARE_PERMISSIONS } from '../access/document-access.ts';
import { presentListedShare, presentShare } from './shares.presenter.ts';

const Permission = Type.Union(
  SHARE_PERMISSIONS.map((p) => Type.Literal(p)),
  {
    description:
      '`view`: read, download; `edit`: view + update, move, tag; `admin`: edit + share, list shares, delete.',
  },
);

const ShareView = Type.Object({
  share_id: Type.String(),
  document_id: Type.String(),
  user_id: Type.Optional(Type.String()),
  workspace_id: Type.Optional(Type.String()),
  permission: Type.String(),
  created_at: Timestamp,
});

const ShareListItem = Type.Object({
  ...ShareView.properties,
  user_name: Type.Optional(Type.String({ description: 'For user shares.' })),
  workspace_name: Type.Optional(Type.String({ description: 'For workspace shares.' })),
});

const ShareBody = Type.Object(
  {
    user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    workspace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    permission: Permission,
  },
  { additionalProperties: false, description: 'Exactly one of `user_id` and `workspace_id`, both of the same tenant.' },
);

const ShareParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128 }), share_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);

/** Spec: POST /documents/{id}/share, GET /documents/{id}/shares, and removing a share. */
export function shareRoutes(app: App, s: { shares: SharesService }): void {
  const tags = ['documents'];

  app.post(
    '/documents/:id/share',
    {
      schema: {
        tags,
        summary: 'Share a document with a user or workspace',
        description:
          'Needs `admin` permission on the document. A new share answers 201; sharing again with the same target changes its permission and answers 200.',
        params: IdParams,
        body: ShareBody,
        response: { 200: ShareView, 201: ShareView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const { user_id, workspace_id, permission } = request.body;
      const { share, created } = await s.shares.share(authOf(request), request.params.id, {
        userId: user_id,
        workspaceId: workspace_id,
        permission,
      });
      return reply.status(created ? 201 : 200).send(presentShare(share));
    },
  );

  app.get(
    '/documents/:id/shares',
    {
      schema: {
        tags,
        summary: "List a document's shares",
        description: 'Needs `admin` permission on the document.',
        params: IdParams,
        response: { 200: Type.Object({ shares: Type.Array(ShareListItem) }), ...standardErrors },
      },
    },
    async (request) => ({ shares: (await s.shares.list(authOf(request), request.params.id)).map(presentListedShare) }),
  );

  app.delete(
    '/documents/:id/shares/:share_id',
    {
      schema: {
        tags,
        summary: 'Remove a document share',
        description: 'Needs `admin` permission on the document.',
        params: ShareParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await s.shares.remove(authOf(request), request.params.id, request.params.share_id);
      return { message: 'Share removed' };
    },
  );
}
