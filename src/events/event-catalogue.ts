import { type Static, type TSchema, Type } from 'typebox';

/**
 * The `data` of each domain event, by name. Each module declares the events it emits, with their
 * data, in its `<module>.events.ts` by declaration merging (as it declares its services and job
 * kinds), so `events.record(trx, { name, data })`, every subscriber and the webhook payload are
 * checked against that one declaration:
 *
 * ```ts
 * declare module '../../events/event-catalogue.ts' {
 *   interface EventDataMap { 'chat.session.created': { session_id: string; ... } }
 * }
 * ```
 *
 * The spec fixes `document.processed` and `dag.execution.completed` exactly; the rest are this
 * service's choice (docs/webhooks.md). Receivers read `data` tolerantly: fields may be added,
 * never renamed or removed.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from each module's events file.
export interface EventDataMap {}

/** A declared domain event name. */
export type EventName = keyof EventDataMap & string;

/**
 * The data schema of each event a module emits (TypeBox, i.e. JSON Schema), by name: its
 * `<module>.events.ts` declares the schema once and derives the `EventDataMap` entry from it
 * (`Static<typeof Schema>`); the module hands them to the platform (`eventSchemas` of its setup),
 * and the OpenAPI document's `webhooks` (and so the SDK's `WebhookEvents`) are built from them.
 */
export type EventSchemas = { readonly [N in EventName]?: TSchema };

/**
 * Every event a webhook can subscribe to, in the order the API lists them (docs/api-decisions.md
 * §8). Typed by the declarations: an event declared by a module but missing here, or listed here
 * but declared nowhere, fails the typecheck, so this list and the data types cannot drift apart.
 */
const CATALOGUE: { readonly [N in EventName]: { readonly emittedBy: string } } = {
  'document.uploaded': { emittedBy: 'documents' },
  'document.processed': { emittedBy: 'processing' },
  'document.failed': { emittedBy: 'processing' },
  'chat.session.created': { emittedBy: 'chat' },
  'chat.message.created': { emittedBy: 'chat' },
  'dag.execution.started': { emittedBy: 'workflows' },
  'dag.execution.completed': { emittedBy: 'workflows' },
  'dag.execution.failed': { emittedBy: 'workflows' },
  'dag.execution.paused': { emittedBy: 'workflows' },
  'dag.task.created': { emittedBy: 'workflows' },
  'dag.task.completed': { emittedBy: 'workflows' },
  'dag.task.escalated': { emittedBy: 'workflows' },
  // Not in the spec's table: the subscription issue's audit event (docs/subscription.md).
  'subscription.tier_changed': { emittedBy: 'subscription' },
  // Not in the spec's table: a document's filename, folder or tags changed (the workflows'
  // document_update trigger, contract §10).
  'document.updated': { emittedBy: 'documents' },
  // Not in the spec's table: legal holds and retention rules (issue 32, docs/records.md).
  'legal_hold.created': { emittedBy: 'records' },
  'legal_hold.released': { emittedBy: 'records' },
  'retention.document_deleted': { emittedBy: 'records' },
  'retention.review_requested': { emittedBy: 'records' },
  'retention.run_completed': { emittedBy: 'records' },
};

/** Every event name, in the catalogue's order. */
export const EVENT_NAMES: readonly EventName[] = Object.freeze(Object.keys(CATALOGUE) as EventName[]);

/** The module that declares and emits an event (docs, the OpenAPI description). */
export function eventEmitter(name: EventName): string {
  return CATALOGUE[name].emittedBy;
}

/**
 * The webhook ping (`POST /webhooks/{id}/test`): delivered like an event, in the general form, but
 * never recorded as a domain event and not subscribable in a webhook's `events` list.
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** The test ping's data schema (the OpenAPI document's `webhook.test` payload). */
export const WEBHOOK_TEST_DATA = Type.Object({ webhook_id: Type.String(), message: Type.String() });

/** The test ping's data. */
export type WebhookTestData = Static<typeof WEBHOOK_TEST_DATA>;

/** What a webhook delivery can carry: a domain event or the test ping. */
export type DeliverableEventName = EventName | typeof WEBHOOK_TEST_EVENT;

const known: ReadonlySet<string> = new Set(EVENT_NAMES);

export function isEventName(name: string): name is EventName {
  return known.has(name);
}

/** The data type of one event (or of the test ping): what its webhook delivery carries in `data`. */
export type EventData<N extends DeliverableEventName> = N extends EventName ? EventDataMap[N] : WebhookTestData;

/**
 * The spec's two envelope forms: `document.*`, `chat.*` (and the test ping) use the general form
 * `{id, type, timestamp, data}`; `dag.*` the workflow form `{event, timestamp, data}`, whose event
 * id travels only in the X-Service-Event-Id header.
 */
export function envelopeForm(name: string): 'general' | 'workflow' {
  return name.startsWith('dag.') ? 'workflow' : 'general';
}

/** The body of an event's delivery, in its envelope form. `at` is when the event happened (epoch ms). */
export function eventEnvelope(event: { id: string; name: string; at: number; data: unknown }): Record<string, unknown> {
  const timestamp = new Date(event.at).toISOString();
  return envelopeForm(event.name) === 'workflow'
    ? { event: event.name, timestamp, data: event.data }
    : { id: event.id, type: event.name, timestamp, data: event.data };
}
