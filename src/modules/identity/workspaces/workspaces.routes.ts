import type { WorkspacesService } from './workspaces.service.ts';
import { IdParams, MessageBody, pageWindow, standardErrors } from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import {
  AddMemberBody,
  CreateWorkspaceBody,
  MemberList,
  MemberParams,
  UpdateWorkspaceBody,
  WorkspaceDetail,
  WorkspaceList,
  WorkspaceListQuery,
  WorkspaceView,
} from './workspaces.schemas.ts';
import { presentMember, presentWorkspace } from './workspaces.presenter.ts';

/** docs/api-decisions.md §3: workspaces and their members. */
export function workspaceRoutes(app: App, s: { workspaces: WorkspacesService }): void {
  const tags = ['workspaces'];
  const ws = s.workspaces;

  app.get(
    '/workspaces',
    {
      schema: {
        tags,
        summary: 'List workspaces',
        description:
          'Every workspace of the tenant, in the paged envelope `{data, total, page, page_size}`; `member_id` keeps those the user belongs to.',
        querystring: WorkspaceListQuery,
        response: { 200: WorkspaceList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await ws.list(authOf(request), page, { memberId: request.query.member_id });
      return {
        data: rows.map((w) => presentWorkspace(w, w.memberCount)),
        total,
        page: page.page,
        page_size: page.pageSize,
      };
    },
  );

  app.post(
    '/workspaces',
    {
      schema: {
        tags,
        summary: 'Create a workspace',
        description: 'Anyone but a viewer. 409 `conflict` when the name is taken.',
        body: CreateWorkspaceBody,
        response: { 201: WorkspaceView, ...standardErrors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(presentWorkspace(await ws.create(authOf(request), request.body), 0)),
  );

  app.get(
    '/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'Get a workspace with its members',
        description:
          'A workspace and the users in it (documents and folders can be shared with it). Answers an `ETag`; `If-None-Match` with the current one is 304.',
        params: IdParams,
        response: { 200: WorkspaceDetail, ...standardErrors },
      },
    },
    async (request) => {
      const { workspace, members } = await ws.get(authOf(request), request.params.id);
      return { ...presentWorkspace(workspace, members.length), members: members.map(presentMember) };
    },
  );

  app.put(
    '/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'Update a workspace',
        description:
          "Partial update. Owners, admins and the workspace's creator only; 409 `conflict` when the name is taken.",
        params: IdParams,
        body: UpdateWorkspaceBody,
        response: { 200: WorkspaceDetail, ...standardErrors },
      },
    },
    async (request) => {
      const auth = authOf(request);
      await ws.update(auth, request.params.id, request.body);
      const { workspace, members } = await ws.get(auth, request.params.id);
      return { ...presentWorkspace(workspace, members.length), members: members.map(presentMember) };
    },
  );

  app.delete(
    '/workspaces/:id',
    {
      schema: {
        tags,
        summary: 'Delete a workspace',
        description: "Owners, admins and the workspace's creator only.",
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await ws.delete(authOf(request), request.params.id);
      return { message: 'Workspace deleted' };
    },
  );

  app.post(
    '/workspaces/:id/members',
    {
      schema: {
        tags,
        summary: 'Add a member to a workspace',
        description:
          "Owners, admins and the workspace's creator only. 404 for an unknown user, 409 `conflict` when already a member; answers the member list.",
        params: IdParams,
        body: AddMemberBody,
        response: { 201: MemberList, ...standardErrors },
      },
    },
    async (request, reply) => {
      const members = await ws.addMember(authOf(request), request.params.id, request.body.user_id);
      return reply.status(201).send({ workspace_id: request.params.id, members: members.map(presentMember) });
    },
  );

  app.delete(
    '/workspaces/:id/members/:user_id',
    {
      schema: {
        tags,
        summary: 'Remove a member from a workspace',
        description: "Owners, admins and the workspace's creator only.",
        params: MemberParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await ws.removeMember(authOf(request), request.params.id, request.params.user_id);
      return { message: 'Member removed' };
    },
  );
}
