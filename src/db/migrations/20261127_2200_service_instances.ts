import type { Kysely } from 'kysely';

/*
 * Issue 35: the live processes of a deployment, each refreshing its row on a heartbeat, so an
 * instance transfer can tell a database that a service is writing from one left alone
 * (src/modules/transfer/instance-lease.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('service_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('service_instances').ifExists().execute();
}
