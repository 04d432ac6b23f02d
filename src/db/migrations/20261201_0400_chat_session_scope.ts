import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Issue 33 item 3, chat across a folder or the whole tenant (docs/api-decisions.md "Chat across a
 * folder or the tenant"): a session names a document (`scope` 'document', as before), a folder
 * (`scope` 'folder': that folder and everything below it) or nothing (`scope` 'tenant'), so
 * `document_id` becomes nullable. A folder session goes with its folder, as a document session goes
 * with its document.
 *
 * SQLite cannot drop a NOT NULL in place: both chat tables are rebuilt. Renaming the messages away
 * first and then the sessions moves the messages' foreign key onto the old sessions table, so the
 * old pair is dropped without a cascade touching the new rows (foreign keys stay on throughout).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table chat_sessions alter column document_id drop not null`.execute(db);
    await db.schema
      .alterTable('chat_sessions')
      .addColumn('scope', 'text', (c) => c.notNull().defaultTo('document'))
      .execute();
    await db.schema
      .alterTable('chat_sessions')
      .addColumn('folder_id', 'text', (c) => c.references('folders.id').onDelete('cascade'))
      .execute();
    return;
  }
  await sql`alter table chat_messages rename to chat_messages_old`.execute(db);
  await sql`alter table chat_sessions rename to chat_sessions_old`.execute(db);
  await sql`drop index if exists chat_messages_session_idx`.execute(db);
  await sql`drop index if exists chat_sessions_tenant_idx`.execute(db);
  await db.schema
    .createTable('chat_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.references('documents.id').onDelete('cascade'))
    .addColumn('user_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('message_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull().defaultTo('document'))
    .addColumn('folder_id', 'text', (c) => c.references('folders.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createTable('chat_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull().references('chat_sessions.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('citations', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into chat_sessions (id, tenant_id, document_id, user_id, name, message_count, created_at, updated_at)
    select id, tenant_id, document_id, user_id, name, message_count, created_at, updated_at from chat_sessions_old`.execute(
    db,
  );
  await sql`insert into chat_messages (id, tenant_id, session_id, role, content, citations, created_at)
    select id, tenant_id, session_id, role, content, citations, created_at from chat_messages_old`.execute(db);
  await sql`drop table chat_messages_old`.execute(db);
  await sql`drop table chat_sessions_old`.execute(db);
  await db.schema
    .createIndex('chat_sessions_tenant_idx')
    .on('chat_sessions')
    .columns(['tenant_id', 'user_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('chat_messages_session_idx')
    .on('chat_messages')
    .columns(['tenant_id', 'session_id', 'created_at'])
    .execute();
}

/** Forward only past the first folder or tenant session: those rows have no document to keep. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('chat_sessions').where('scope', '<>', 'document').execute();
  await db.schema.alterTable('chat_sessions').dropColumn('folder_id').execute();
  await db.schema.alterTable('chat_sessions').dropColumn('scope').execute();
}
