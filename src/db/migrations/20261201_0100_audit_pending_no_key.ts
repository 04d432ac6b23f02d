import type { Kysely } from 'kysely';

/*
 * Issue 32, the cost of recording (docs/audit.md, "What recording costs", docs/benchmarks.md):
 * `audit_pending` loses its primary key. A change recorded in its transaction (`recordIn`: the
 * upload, versions, imports) then writes one entry into one B-tree (SQLite: the rowid table;
 * PostgreSQL: the heap) instead of two (the table and the key's index on the text `id`). Nothing
 * looks a pending row up by id: the flush copies and empties the whole table (SQLite, one write
 * transaction) or claims its rows with `delete … returning` (PostgreSQL), and the id stays unique
 * where it is read, in `audit_records`' primary key.
 *
 * The table is made again (SQLite cannot drop a primary key); rows still waiting are moved into the
 * trail first, as the flush would.
 */
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

async function make(db: Kysely<any>, withKey: boolean): Promise<void> {
  await db
    .insertInto('audit_records')
    .columns([...COLUMNS])
    .expression((eb) => eb.selectFrom('audit_pending').select([...COLUMNS]))
    .execute();
  await db.schema.dropTable('audit_pending').execute();
  await db.schema
    .createTable('audit_pending')
    .addColumn('id', 'text', (c) => (withKey ? c.primaryKey() : c.notNull()))
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

export async function up(db: Kysely<any>): Promise<void> {
  await make(db, false);
}

export async function down(db: Kysely<any>): Promise<void> {
  await make(db, true);
}
