import { prefixedId } from '../lib/ids.ts';
import type { Executor } from '../db/executor.ts';
import type { EventName } from './event-catalogue.ts';

export interface RecordedEvent {
  id: string;
  tenantId: string;
  name: EventName;
  data: Record<string, unknown>;
  createdAt: number;
}

/**
 * Records a domain event as a row, inside the caller's transaction, so an event exists exactly
 * when the change that caused it was committed. Webhook delivery and workflow triggers read these rows.
 */
export async function recordEvent(
  executor: Executor,
  event: { tenantId: string; name: EventName; data: Record<string, unknown>; at?: number },
): Promise<RecordedEvent> {
  const recorded: RecordedEvent = {
    id: prefixedId('evt'),
    tenantId: event.tenantId,
    name: event.name,
    data: event.data,
    createdAt: event.at ?? Date.now(),
  };
  await executor
    .insertInto('events')
    .values({
      id: recorded.id,
      tenant_id: recorded.tenantId,
      name: recorded.name,
      data: JSON.stringify(recorded.data),
      created_at: recorded.createdAt,
    })
    .execute();
  return recorded;
}
