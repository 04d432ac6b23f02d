import { Type } from 'typebox';
import { IdParams, standardErrors, Timestamp } from '../../../http/common-schemas.ts';
import type { App } from '../../../http/fastify-types.ts';
import type { PublicRateLimit } from '../../../http/rate-limit.ts';
import { WEBHOOK_HEADERS } from '../../../lib/webhook-signature.ts';
import { presentHookExecution } from '../workflows.presenter.ts';
import type { WebhookTrigger } from './webhook-trigger.ts';

const HookAnswer = Type.Object({
  execution_id: Type.String(),
  workflow_id: Type.String(),
  status: Type.String(),
  started_at: Timestamp,
});

/**
 * Requests per minute to one hook: from all senders together, and from one client IP. Counted
 * before the signature is checked (there is no tenant before it), so a flood of bad signatures is
 * limited too. Per hook rather than per IP alone: senders such as GitHub or Zapier post for many
 * customers from shared addresses, and one tenant's traffic must not use up another's.
 */
export const HOOK_RATE_LIMITS = { perHook: 120, perClient: 60 };

const hookRateLimit: PublicRateLimit = {
  scope: (request) => `hook:${String((request.params as { id?: unknown }).id ?? '').slice(0, 128)}`,
  counters: [
    { name: 'hook', limit: HOOK_RATE_LIMITS.perHook },
    { name: 'hook_client', limit: HOOK_RATE_LIMITS.perClient, perClient: true },
  ],
};

/**
 * `POST /dag/hooks/{workflow_id}`: public (the HMAC signature is the credential), limited per hook
 * and per client (HOOK_RATE_LIMITS), not per tenant. The JSON body is read raw in this route's own
 * scope, because the signature covers the exact bytes.
 */
export async function webhookTriggerRoutes(app: App, s: { hooks: WebhookTrigger }): Promise<void> {
  await app.register(async (scoped) => {
    scoped.removeContentTypeParser('application/json');
    scoped.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scoped.post(
      '/dag/hooks/:id',
      {
        config: { auth: 'public', publicRateLimit: hookRateLimit },
        schema: {
          tags: ['workflows'],
          summary: 'Start a workflow through its webhook trigger',
          description: `Signed with \`${WEBHOOK_HEADERS.signature}: sha256=<hex HMAC-SHA256 of the raw body keyed with the trigger's secret>\` (401 otherwise); the body is checked against the trigger's \`validation\` JSON Schema (400 with the errors) and becomes \`trigger_data\`. At most ${HOOK_RATE_LIMITS.perHook} requests a minute per hook and ${HOOK_RATE_LIMITS.perClient} per hook and client IP, counted before the signature (429 with \`Retry-After\`).`,
          params: IdParams,
          response: { 202: HookAnswer, ...standardErrors },
        },
      },
      async (request, reply) => {
        const delivery = request.headers[WEBHOOK_HEADERS.delivery.toLowerCase()];
        const execution = await s.hooks.receive({
          workflowId: (request.params as { id: string }).id,
          rawBody: typeof request.body === 'string' ? request.body : '',
          signature: request.headers[WEBHOOK_HEADERS.signature.toLowerCase()],
          ...(typeof delivery === 'string' ? { deliveryId: delivery } : {}),
        });
        return reply.status(202).send(presentHookExecution(execution));
      },
    );
  });
}
