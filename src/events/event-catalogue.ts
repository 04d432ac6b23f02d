/** Every event name of the spec's Events table (docs/api-decisions.md §8). */
export const EVENT_NAMES = [
  'document.uploaded',
  'document.processed',
  'document.failed',
  'chat.session.created',
  'chat.message.created',
  'dag.execution.started',
  'dag.execution.completed',
  'dag.execution.failed',
  'dag.execution.paused',
  'dag.task.created',
  'dag.task.completed',
  'dag.task.escalated',
  // Not in the spec's table: the subscription issue's audit event (docs/subscription.md).
  'subscription.tier_changed',
  // Not in the spec's table: a document's filename, folder or tags changed (the workflows'
  // document_update trigger, contract §10).
  'document.updated',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

/**
 * The webhook ping (`POST /webhooks/{id}/test`): delivered like an event, in the general form, but
 * never recorded as a domain event and not subscribable in a webhook's `events` list.
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** What a webhook delivery can carry: a domain event or the test ping. */
export type DeliverableEventName = EventName | typeof WEBHOOK_TEST_EVENT;

const known: ReadonlySet<string> = new Set(EVENT_NAMES);

export function isEventName(name: string): name is EventName {
  return known.has(name);
}

/**
 * The `data` of each event. The spec fixes `document.processed` and `dag.execution.completed`
 * exactly; the rest are this service's choice (docs/webhooks.md). Receivers read `data`
 * tolerantly: fields may be added, never renamed or removed. Modules not built yet (workflows)
 * emit these shapes the day they land.
 */
export interface EventDataMap {
  'document.uploaded': {
    document_id: string;
    filename: string;
    folder_id: string | null;
    file_type: string;
    file_size: number;
    status: string;
    ai_status: string;
  };
  /** Spec: exactly `document_id`, `status`, `ai_summary`, `ai_tags`. */
  'document.processed': { document_id: string; status: string; ai_summary: string | null; ai_tags: string[] };
  'document.failed': { document_id: string; status: string; ai_status: string; error: { stage: string; message: string } | null };
  /** `fields`: which of `filename`, `folder_id`, `tags` changed. */
  'document.updated': { document_id: string; fields: string[]; filename: string; folder_id: string | null };
  'chat.session.created': { session_id: string; document_id: string; name: string | null; user_id: string | null };
  'chat.message.created': { message_id: string; session_id: string; document_id: string; role: string };
  'dag.execution.started': { execution_id: string; workflow_id: string; workflow_name: string; status: 'running'; trigger_type: string };
  /** Spec: exactly these; `duration_seconds` an integer, `final_output` any JSON. */
  'dag.execution.completed': {
    execution_id: string;
    workflow_id: string;
    workflow_name: string;
    status: string;
    duration_seconds: number;
    final_output: unknown;
  };
  'dag.execution.failed': { execution_id: string; workflow_id: string; workflow_name: string; status: 'failed'; error: string; failed_node_id: string | null };
  'dag.execution.paused': { execution_id: string; workflow_id: string; workflow_name: string; status: 'paused'; paused_reason: string | null };
  // A task of another source (an import agent's proposal) has no execution: null ids, and names its `source`.
  'dag.task.created': { task_id: string; execution_id: string | null; workflow_id: string | null; source?: string; title: string; assignee_type: string; assignee_value: string; due_at: string | null };
  'dag.task.completed': { task_id: string; execution_id: string | null; workflow_id: string | null; source?: string; decision: string | null; completed_by: string | null };
  'dag.task.escalated': { task_id: string; execution_id: string | null; workflow_id: string | null; source?: string; escalated_to: string | null };
  /** `reason`: `checkout`, `admin` or `provider_event`; `changed_by`: a user id, `administrator` or the provider's name. */
  'subscription.tier_changed': { from_tier: string; to_tier: string; reason: string; changed_by: string | null; reference: string | null };
  'webhook.test': { webhook_id: string; message: string };
}

/** The data type of one event, for emitters: `events.record(trx, { name, data: {...} satisfies EventData<'document.failed'> })`. */
export type EventData<N extends DeliverableEventName> = EventDataMap[N];

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
