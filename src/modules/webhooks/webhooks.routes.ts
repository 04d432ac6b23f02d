import { Type } from 'typebox';
import { IdParams, MessageBody, PageQuery, pageWindow, standardErrors } from '../../http/common-schemas.ts';
import { type App, authOf } from '../../http/fastify-types.ts';
import { presentCreatedWebhook, presentDelivery, presentWebhook } from './webhooks.presenter.ts';
import {
  CreatedWebhookView,
  CreateWebhookBody,
  DeliveryList,
  DeliveryListQuery,
  DeliveryParams,
  DeliveryView,
  RotateSecretBody,
  UpdateWebhookBody,
  WebhookList,
  WebhookView,
} from './webhooks.schemas.ts';
import type { WebhooksService } from './webhooks.service.ts';
import type { DeliveryStatus } from './webhooks.tables.ts';

const ADMINS =
  "Owners, admins and API keys only (403 `forbidden` for members and viewers). Another tenant's webhook is 404.";
/** Issue 26: names are judged when saved only as far as DNS answers then; the delivery is the real check. */
const UNRESOLVED_HOSTS =
  'A host name is resolved when the URL is saved and refused if it points at a private or reserved address; a name that does not resolve (yet), or not within 2 s, is accepted: every delivery checks the address it actually connects to, and an attempt to a name that still does not resolve fails and is retried on the schedule.';

/** Spec "Endpoints > Webhooks" with docs/api-decisions.md §8 and §9. */
export function webhookRoutes(app: App, s: { webhooks: WebhooksService }): void {
  const tags = ['webhooks'];
  const webhooks = s.webhooks;

  app.post(
    '/webhooks',
    {
      schema: {
        tags,
        summary: 'Create a webhook',
        description: `HTTPS only (400 \`INVALID_URL\`, also for private or reserved targets); unknown event names are 400 \`INVALID_EVENT\`. The secret, given or generated, appears in this answer only. ${UNRESOLVED_HOSTS} ${ADMINS}`,
        body: CreateWebhookBody,
        response: { 201: CreatedWebhookView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const { webhook, secret } = await webhooks.create(authOf(request), request.body);
      return reply.status(201).send(presentCreatedWebhook(webhook, secret));
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags,
        summary: 'List webhooks',
        description: `The spec's \`{webhooks}\` with \`total\`, \`page\`, \`page_size\`; oldest first. ${ADMINS}`,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: WebhookList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { webhooks: found, total } = await webhooks.list(authOf(request), page);
      return { webhooks: found.map(presentWebhook), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Get a webhook',
        description: ADMINS,
        params: IdParams,
        response: { 200: WebhookView, ...standardErrors },
      },
    },
    async (request) => presentWebhook(await webhooks.get(authOf(request), request.params.id)),
  );

  app.put(
    '/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Update a webhook',
        description: `Any of \`url\`, \`events\`, \`status\` (\`active\` or \`paused\`). Pausing cancels attempts not yet sent; resuming delivers new events only. A new \`url\` is judged as on create. ${UNRESOLVED_HOSTS} ${ADMINS}`,
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookView, ...standardErrors },
      },
    },
    async (request) => {
      const { url, events, status } = request.body;
      const input = { url, events, status: status as 'active' | 'paused' | undefined };
      return presentWebhook(await webhooks.update(authOf(request), request.params.id, input));
    },
  );

  app.post(
    '/webhooks/:id/secret',
    {
      schema: {
        tags,
        summary: 'Set a new signing secret',
        description: `Rotation: deliveries from now on are signed with the new secret (given, or generated \`whsec_...\`), which appears in this answer only. A webhook imported from a tenant export arrives paused without a secret and cannot be resumed until one is set here. ${ADMINS}`,
        params: IdParams,
        body: RotateSecretBody,
        response: { 200: CreatedWebhookView, ...standardErrors },
      },
      config: { audit: { action: 'webhook.secret_rotate', kind: 'admin', target: 'webhook' } },
    },
    async (request) => {
      const { webhook, secret } = await webhooks.setSecret(authOf(request), request.params.id, request.body.secret);
      return presentCreatedWebhook(webhook, secret);
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Delete a webhook',
        description: `With its delivery log. ${ADMINS}`,
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await webhooks.delete(authOf(request), request.params.id);
      return { message: 'Webhook deleted' };
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'List delivery attempts',
        description: `One entry per attempt, newest first, paged \`{data, total, page, page_size}\`; filter by \`status\` and \`event\`. ${ADMINS}`,
        params: IdParams,
        querystring: DeliveryListQuery,
        response: { 200: DeliveryList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const filter = { status: request.query.status as DeliveryStatus | undefined, event: request.query.event };
      const { deliveries, total } = await webhooks.listDeliveries(authOf(request), request.params.id, filter, page);
      return { data: deliveries.map(presentDelivery), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      schema: {
        tags,
        summary: 'Redeliver an event',
        description: `Queues one new attempt of the delivery's event (same \`X-Service-Event-Id\`, new \`X-Service-Delivery\`), sent even while the webhook is paused or disabled, not retried if it fails. 202 with the new attempt. ${ADMINS}`,
        params: DeliveryParams,
        response: { 202: DeliveryView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const attempt = await webhooks.redeliver(authOf(request), request.params.id, request.params.delivery_id);
      return reply.status(202).send(presentDelivery(attempt));
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        tags,
        summary: 'Send a test event',
        description: `Queues a signed \`webhook.test\` event (general envelope) to the webhook, whatever its status; follow it in the deliveries list. 202 with the attempt. ${ADMINS}`,
        params: IdParams,
        response: { 202: DeliveryView, ...standardErrors },
      },
    },
    async (request, reply) =>
      reply.status(202).send(presentDelivery(await webhooks.test(authOf(request), request.params.id))),
  );
}
