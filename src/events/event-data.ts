import { expressionBuilder, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

/**
 * The data (JSON text) of the event whose id is in `eventIdColumn`, of the tenant in
 * `tenantIdColumn`, as a subquery a module selects in its own statement (null when the event is
 * gone): rows that point at events read them without a second round trip.
 */
export function eventDataOf(eventIdColumn: string, tenantIdColumn: string) {
  return expressionBuilder<DB, never>()
    .selectFrom('events')
    .select('events.data')
    .where('events.id', '=', sql.ref<string>(eventIdColumn))
    .where('events.tenant_id', '=', sql.ref<string>(tenantIdColumn));
}
