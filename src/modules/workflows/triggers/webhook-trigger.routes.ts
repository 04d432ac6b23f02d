import { Type } from 'typebox';
import { IdParams, standardErrors, Timestamp } from '../../../http/common-schemas.ts';
import type { App } from '../../../http/fastify-types.ts';
import { WEBHOOK_HEADERS } from '../../../lib/webhook-signature.ts';
import { presentHookExecution } from '../workflows.presenter.ts';
import type { WebhookTrigger } from './webhook-trigger.ts';

const HookAnswer = Type.Object({ execution_id: Type.String(), workflow_id: Type.String(), status: Type.String(), started_at: Timestamp });

/**
 * `POST /dag/hooks/{workflow_id}`: public (the HMAC signature is the credential), not rate
 * limited per tenant (there is no tenant before the signature is checked). The JSON body is read
 * raw in this route's own scope, because the signature covers the exact bytes.
 */
export async function webhookTriggerRoutes(app: App, s: { hooks: WebhookTrigger }): Promise<void> {
  await app.register(async (scoped) => {
    scoped.removeContentTypeParser('application/json');
    scoped.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scoped.post(
      '/dag/hooks/:id',
      {
        config: { auth: 'public', rateLimit: false },
        schema: {
          tags: ['workflows'],
          summary: 'Start a workflow through its webhook trigger',
          description: `Signed with \`${WEBHOOK_HEADERS.signature}: sha256=<hex HMAC-SHA256 of the raw body keyed with the trigger's secret>\` (401 otherwise); the body is checked against the trigger's \`validation\` JSON Schema (400 with the errors) and becomes \`trigger_data\`.`,
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
