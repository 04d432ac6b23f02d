import { type Kysely, sql } from 'kysely';

/*
 * Mail that leaves the service (issue 30, docs/mail.md). The outbox stays the durable queue and
 * gains what a sender needs: a state per mail (pending, sending, sent, retrying, failed, dead,
 * suppressed), the HTML part, the sender name and category it was written with, the recipient
 * user (an invitation's state is read through it), when the next try is due and what the server
 * answered. Rows written before this migration are either sent (sent_at set) or pending.
 * Also: a per-tenant sender name (mail_settings) and the users' opt-out of notification mail.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const outbox = db.schema.alterTable('mail_outbox');
  await outbox.addColumn('status', 'text', (c) => c.notNull().defaultTo('pending')).execute();
  await outbox.addColumn('category', 'text', (c) => c.notNull().defaultTo('notification')).execute();
  await outbox.addColumn('user_id', 'text').execute();
  await outbox.addColumn('from_name', 'text').execute();
  await outbox.addColumn('html_body', 'text').execute();
  await outbox.addColumn('next_attempt_at', 'bigint').execute();
  await outbox.addColumn('server_response', 'text').execute();
  await outbox.addColumn('updated_at', 'bigint').execute();
  await db.updateTable('mail_outbox').set({ status: 'sent' }).where('sent_at', 'is not', null).execute();
  await db
    .updateTable('mail_outbox')
    .set({ category: 'security' })
    .where('kind', 'in', ['invitation', 'password_reset'])
    .execute();
  await db.updateTable('mail_outbox').set({ updated_at: sql`coalesce(sent_at, created_at)` }).execute();

  // The administrator's listing (by state, newest first) and an invitation's state per user.
  await db.schema.dropIndex('mail_outbox_pending_idx').ifExists().execute();
  await db.schema.createIndex('mail_outbox_status_idx').on('mail_outbox').columns(['status', 'created_at']).execute();
  await db.schema
    .createIndex('mail_outbox_user_idx')
    .on('mail_outbox')
    .columns(['tenant_id', 'user_id', 'kind', 'created_at'])
    .execute();

  await db.schema
    .createTable('mail_settings')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('sender_name', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .alterTable('users')
    .addColumn('notification_mail', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('notification_mail').execute();
  await db.schema.dropTable('mail_settings').ifExists().execute();
  await db.schema.dropIndex('mail_outbox_user_idx').ifExists().execute();
  await db.schema.dropIndex('mail_outbox_status_idx').ifExists().execute();
  for (const column of [
    'updated_at',
    'server_response',
    'next_attempt_at',
    'html_body',
    'from_name',
    'user_id',
    'category',
    'status',
  ]) {
    await db.schema.alterTable('mail_outbox').dropColumn(column).execute();
  }
  await db.schema
    .createIndex('mail_outbox_pending_idx')
    .on('mail_outbox')
    .column('created_at')
    .where(sql.ref('sent_at'), 'is', null)
    .execute();
}
