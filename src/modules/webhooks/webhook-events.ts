import { EVENT_NAMES, type EventName, isEventName, WEBHOOK_TEST_EVENT } from '../../events/event-catalogue.ts';
import { errors } from '../../lib/errors.ts';

/** A webhook's stored `events` column (JSON string[]) as a list. */
export function parseEventList(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The `events` of a create or update: every name of the spec's table is accepted (docs/api-decisions.md
 * §8, `dag.execution.paused` and `dag.task.escalated` included); anything else is 400 INVALID_EVENT.
 * Duplicates are dropped, the order kept.
 */
export function checkSubscribedEvents(names: readonly string[]): EventName[] {
  if (names.includes(WEBHOOK_TEST_EVENT)) {
    throw errors.invalidEvent(
      `${WEBHOOK_TEST_EVENT} cannot be subscribed to: it is sent only by POST /api/v1/webhooks/{id}/test`,
      {
        field: 'events',
        events: [WEBHOOK_TEST_EVENT],
      },
    );
  }
  const unknown = names.filter((name) => !isEventName(name));
  if (unknown.length > 0) {
    throw errors.invalidEvent(`Unknown event name${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, {
      field: 'events',
      events: unknown,
      allowed: [...EVENT_NAMES],
    });
  }
  return [...new Set(names as EventName[])];
}

/** The `event` filter of the deliveries list: any event name, or the test ping's. */
export function checkEventFilter(name: string | undefined): string | undefined {
  if (name === undefined || name === WEBHOOK_TEST_EVENT || isEventName(name)) return name;
  throw errors.invalidEvent(`Unknown event name: ${name}`, {
    field: 'event',
    events: [name],
    allowed: [...EVENT_NAMES, WEBHOOK_TEST_EVENT],
  });
}
