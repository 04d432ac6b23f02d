import type { Kysely } from 'kysely';

/*
 * Issue 32, the cost of recording (docs/audit.md, "What recording costs", docs/benchmarks.md): a
 * change recorded in its transaction (`recordIn`: the upload, versions, imports) is written into
 * `audit_pending`, whose only index is its primary key, and moved into `audit_records` by the
 * trail's next flush (within AUDIT_FLUSH_MS, and before every `GET /audit` and export), many rows
 * per statement. The record still commits or rolls back with its change; the act's transaction no
 * longer pays an entry in each of `audit_records`' six B-trees (measured ~45 µs of SQLite CPU and
 * ~7 more WAL pages per upload).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_pending')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('request_id', 'text')
    .addColumn('details', 'text')
    .execute();
}

/** The columns, the same as `audit_records`' (spelled out: a migration does not import the module's code). */
const COLUMNS = [
  'id',
  'tenant_id',
  'at',
  'actor_type',
  'actor_id',
  'action',
  'target_type',
  'target_id',
  'outcome',
  'status',
  'ip',
  'user_agent',
  'request_id',
  'details',
] as const;

export async function down(db: Kysely<any>): Promise<void> {
  // Rows still waiting are kept: moved into the trail before the table goes.
  await db
    .insertInto('audit_records')
    .columns([...COLUMNS])
    .expression((eb) => eb.selectFrom('audit_pending').select([...COLUMNS]))
    .execute();
  await db.schema.dropTable('audit_pending').execute();
}
