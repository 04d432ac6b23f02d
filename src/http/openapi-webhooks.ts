import {
  EVENT_NAMES,
  type EventSchemas,
  envelopeForm,
  eventEmitter,
  type DeliverableEventName,
  WEBHOOK_TEST_DATA,
  WEBHOOK_TEST_EVENT,
} from '../events/event-catalogue.ts';

type Json = Record<string, unknown>;

/**
 * The OpenAPI 3.1 `webhooks` of the document: one entry per event a webhook can carry (and the
 * test ping), its request body the delivery's envelope (src/events/event-catalogue.ts) around the
 * event's data schema, which comes from the module's `<module>.events.ts`: the same declaration
 * the event's TypeScript type is derived from. The SDK's `WebhookEvents` are generated from these
 * (test/sdk/types-in-step.test.ts, test/events/event-schemas.test.ts catch a drift).
 */
export function webhookDocumentation(eventSchemas: EventSchemas): { webhooks: Json; schemas: Json } {
  const webhooks: Json = {};
  const schemas: Json = {};
  const names: DeliverableEventName[] = [...EVENT_NAMES, WEBHOOK_TEST_EVENT];
  for (const name of names) {
    const data = name === WEBHOOK_TEST_EVENT ? WEBHOOK_TEST_DATA : eventSchemas[name];
    if (data === undefined) continue; // its module is not in this process's list (a test's own list)
    const schemaName = `${pascal(name)}EventData`;
    schemas[schemaName] = structuredClone(data);
    const emitter = name === WEBHOOK_TEST_EVENT ? 'webhooks' : eventEmitter(name);
    webhooks[name] = {
      post: {
        operationId: `${camel(name)}Event`,
        summary: name === WEBHOOK_TEST_EVENT ? 'The test ping (POST /webhooks/{id}/test)' : `The ${name} event`,
        description:
          `Delivered to a webhook subscribed to \`${name}\`${name === WEBHOOK_TEST_EVENT ? ' (every webhook: it cannot be subscribed to)' : ''}; ` +
          `emitted by the ${emitter} module. Signed and retried as docs/webhooks.md describes; any 2xx answer ends the delivery.`,
        tags: ['webhooks'],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: envelope(name, { $ref: `#/components/schemas/${schemaName}` }) } },
        },
        responses: { '200': { description: 'Received (any 2xx answer).' } },
      },
    };
  }
  return { webhooks, schemas };
}

/** The body of a delivery: the general form `{id, type, timestamp, data}` or the workflow form `{event, timestamp, data}`. */
function envelope(name: string, data: Json): Json {
  const timestamp = { type: 'string', format: 'date-time', description: 'When the event happened.' };
  return envelopeForm(name) === 'workflow'
    ? {
        type: 'object',
        required: ['event', 'timestamp', 'data'],
        properties: { event: { type: 'string', const: name }, timestamp, data },
      }
    : {
        type: 'object',
        required: ['id', 'type', 'timestamp', 'data'],
        properties: {
          id: { type: 'string', description: 'The event id (also in X-Service-Event-Id).' },
          type: { type: 'string', const: name },
          timestamp,
          data,
        },
      };
}

const words = (name: string) => name.split(/[._]/).filter((w) => w.length > 0);
const pascal = (name: string) =>
  words(name)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
const camel = (name: string) => {
  const p = pascal(name);
  return p[0]!.toLowerCase() + p.slice(1);
};
