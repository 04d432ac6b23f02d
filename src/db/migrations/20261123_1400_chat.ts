import type { Kysely } from 'kysely';

/* Chat sessions on a document and their messages (docs/api-decisions.md §7). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('chat_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('user_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('message_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chat_sessions_tenant_idx')
    .on('chat_sessions')
    .columns(['tenant_id', 'user_id', 'created_at'])
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
  await db.schema
    .createIndex('chat_messages_session_idx')
    .on('chat_messages')
    .columns(['tenant_id', 'session_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('chat_messages').ifExists().execute();
  await db.schema.dropTable('chat_sessions').ifExists().execute();
}
