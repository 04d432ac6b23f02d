/** Every event name of the spec's Events table (docs/api-decisions.md §8), plus the webhook test event. */
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
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

const known: ReadonlySet<string> = new Set(EVENT_NAMES);

export function isEventName(name: string): name is EventName {
  return known.has(name);
}
