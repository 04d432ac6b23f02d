import type { UsersService } from './users.service.ts';
import { IdParams, MessageBody, pageWindow, standardErrors } from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { presentEntry } from './users.presenter.ts';
import { InviteUserBody, UpdateUserBody, UserList, UserListQuery, UserView } from './users.schemas.ts';

/** docs/api-decisions.md §3: users of the tenant. */
export function userRoutes(app: App, s: { users: UsersService }): void {
  const tags = ['users'];
  const users = s.users;

  app.get(
    '/users',
    {
      schema: {
        tags,
        summary: 'List users',
        description:
          "Paged envelope `{data, total, page, page_size}`; `role` filters by built-in role. A user who has not chosen a password yet shows their invitation mail's state in `invitation`.",
        querystring: UserListQuery,
        response: { 200: UserList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await users.list(authOf(request), page, { role: request.query.role });
      return { data: rows.map(presentEntry), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.post(
    '/users',
    {
      schema: {
        tags,
        summary: 'Invite a user',
        description:
          'Owners, admins and API keys only; only an owner may add another owner. Without `password`, an invitation mail with a link to choose one is sent (valid 7 days); `invitation` follows its state. 409 `conflict` when the e-mail is taken.',
        body: InviteUserBody,
        response: { 201: UserView, ...standardErrors },
      },
    },
    async (request, reply) => {
      return reply.status(201).send(presentEntry(await users.invite(authOf(request), request.body)));
    },
  );

  app.get(
    '/users/:id',
    {
      schema: {
        tags,
        summary: 'Get a user',
        description:
          'A user of the tenant with their `role` and custom `roles`. Answers an `ETag`; `If-None-Match` with the current one is 304.',
        params: IdParams,
        response: { 200: UserView, ...standardErrors },
      },
    },
    async (request) => presentEntry(await users.entry(authOf(request), request.params.id)),
  );

  app.patch(
    '/users/:id',
    {
      schema: {
        tags,
        summary: 'Update a user',
        description:
          'Partial update. Users may rename themselves and set their own `notification_mail` (false: no notification mail; security mail is always sent); other changes, and `email`, `role`, `roles` or `status`, are for owners and admins, and only an owner changes an owner. A changed `email` is told to the old and the new address, and a user still invited gets a new invitation at the new one. 409 `conflict` when the e-mail is taken or the tenant would lose its last active owner.',
        params: IdParams,
        body: UpdateUserBody,
        response: { 200: UserView, ...standardErrors },
      },
    },
    async (request) => {
      const { notification_mail: notificationMail, ...rest } = request.body;
      return presentEntry(
        await users.update(authOf(request), request.params.id, {
          ...rest,
          ...(notificationMail === undefined ? {} : { notificationMail }),
        }),
      );
    },
  );

  app.delete(
    '/users/:id',
    {
      schema: {
        tags,
        summary: 'Delete a user',
        description:
          'Owners, admins and API keys only; only an owner deletes an owner. The last active owner cannot be deleted (409 `conflict`).',
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await users.delete(authOf(request), request.params.id);
      return { message: 'User deleted' };
    },
  );
}
