import { ErrorBody, pageWindow, standardErrors } from '../../http/common-schemas.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import { presentMail } from './mail.presenter.ts';
import {
  MailList,
  MailListQuery,
  MailParams,
  MailSettingsView,
  MailView,
  UpdateMailSettingsBody,
} from './mail.schemas.ts';
import type { MailService } from './mail.service.ts';

/** docs/mail.md: the administrator's view of the outbox, and a tenant's mail settings. */
export function mailRoutes(app: App, s: { mail: MailService }): void {
  const admin = { config: { auth: 'admin' as const, rateLimit: false as const } };

  app.get(
    '/admin/mail',
    {
      ...admin,
      schema: {
        tags: ['admin'],
        summary: 'List the mail outbox',
        description:
          "Administrator key only. Every mail the service wrote, newest first, with its state, tries and the last error (the relay's answer): `status`, `tenant_id` and `kind` filter. Bodies are never shown (a reset or invitation carries a single-use token). Paged `{data, total, page, page_size}`.",
        querystring: MailListQuery,
        response: { 200: MailList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { status, tenant_id: tenantId, kind } = request.query;
      const { rows, total } = await s.mail.list({ status, tenantId, kind }, page);
      return { data: rows.map(presentMail), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.post(
    '/admin/mail/:mail_id/retry',
    {
      ...admin,
      schema: {
        tags: ['admin'],
        summary: 'Send a failed or dead mail again',
        description:
          'Administrator key only. Puts a `failed` or `dead` mail back in the queue (`pending`, tries counted from zero, the full retry schedule ahead) and answers it. Any other state is 409 `conflict`.',
        params: MailParams,
        response: { 200: MailView, 409: ErrorBody, ...standardErrors },
      },
    },
    async (request) => presentMail(await s.mail.retry(request.params.mail_id)),
  );

  app.get(
    '/mail/settings',
    {
      schema: {
        tags: ['mail'],
        summary: "The tenant's mail settings",
        description:
          "`sender_name`: the display name of the From header of the tenant's mail (the address is the service's `MAIL_FROM`); null uses the tenant's name.",
        response: { 200: MailSettingsView, ...standardErrors },
      },
    },
    async (request) => ({ sender_name: (await s.mail.settings(authOf(request))).senderName }),
  );

  app.patch(
    '/mail/settings',
    {
      schema: {
        tags: ['mail'],
        summary: "Change the tenant's mail settings",
        description:
          "Owners, admins and API keys (403 otherwise). `sender_name` null goes back to the tenant's name; line breaks and control characters are replaced by spaces.",
        body: UpdateMailSettingsBody,
        response: { 200: MailSettingsView, ...standardErrors },
      },
    },
    async (request) => ({
      sender_name: (await s.mail.updateSettings(authOf(request), { senderName: request.body.sender_name })).senderName,
    }),
  );
}
