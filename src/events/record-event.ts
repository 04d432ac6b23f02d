import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db/executor.ts';
import { prefixedId } from '../lib/ids.ts';
import type { EventDataMap, EventName } from './event-catalogue.ts';

/** A recorded event: its `name` narrows `data` to that event's declared type. */
export type RecordedEvent<N extends EventName = EventName> = {
  [K in N]: { id: string; tenantId: string; name: K; data: EventDataMap[K]; createdAt: number };
}[N];

/** An event to record: a declared name with that event's data. */
export type NewEvent<N extends EventName = EventName> = {
  [K in N]: { tenantId: string; name: K; data: EventDataMap[K]; at?: number };
}[N];

/**
 * Records a domain event as a row, inside the caller's transaction, so an event exists exactly
 * when the change that caused it was committed. Webhook delivery and workflow triggers read these rows.
 */
export async function recordEvent<N extends EventName>(
  executor: Executor,
  event: NewEvent<N>,
): Promise<RecordedEvent<N>> {
  return (await recordEventIf(executor, event, null)).recorded;
}

/**
 * `recordEvent`, and with `condition` (an SQL boolean on stored state) its value read by the same
 * statement, from its RETURNING: what the event's publishing depends on, without a round trip.
 */
export async function recordEventIf<N extends EventName>(
  executor: Executor,
  event: NewEvent<N>,
  condition: RawBuilder<unknown> | null,
): Promise<{ recorded: RecordedEvent<N>; holds: boolean }> {
  const recorded = {
    id: prefixedId('evt'),
    tenantId: event.tenantId,
    name: event.name,
    data: event.data,
    createdAt: event.at ?? Date.now(),
  } as RecordedEvent<N>;
  const insert = executor.insertInto('events').values({
    id: recorded.id,
    tenant_id: recorded.tenantId,
    name: recorded.name,
    data: JSON.stringify(recorded.data),
    created_at: recorded.createdAt,
  });
  if (!condition) {
    await insert.execute();
    return { recorded, holds: true };
  }
  const row = await insert
    .returning(sql<number>`case when ${condition} then 1 else 0 end`.as('holds'))
    .executeTakeFirstOrThrow();
  return { recorded, holds: Number(row.holds) === 1 };
}
