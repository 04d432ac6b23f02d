import type { Executor } from '../../../db/executor.ts';
import { newId } from '../../../lib/ids.ts';

/** A message waiting in the outbox. */
export interface OutboxMail {
  id: string;
  tenantId: string | null;
  kind: string;
  to: string;
  subject: string;
  body: string;
  createdAt: number;
  sentAt: number | null;
}

/**
 * The mail outbox: services write messages in their own transaction; a mailer (none yet: the
 * rows are the product) reads pending rows and marks them sent.
 */
export class MailOutboxRepository {
  async enqueue(db: Executor, mail: { tenantId: string | null; kind: string; to: string; subject: string; body: string; at: number }): Promise<string> {
    const id = newId(mail.at);
    await db
      .insertInto('mail_outbox')
      .values({
        id,
        tenant_id: mail.tenantId,
        kind: mail.kind,
        to_address: mail.to,
        subject: mail.subject,
        body: mail.body,
        created_at: mail.at,
        sent_at: null,
        last_error: null,
      })
      .execute();
    return id;
  }

  /** Messages of a tenant to one address, newest first (tests and support tooling). */
  async listTo(db: Executor, tenantId: string, to: string): Promise<OutboxMail[]> {
    const rows = await db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('to_address', '=', to)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      tenantId: r.tenant_id,
      kind: r.kind,
      to: r.to_address,
      subject: r.subject,
      body: r.body,
      createdAt: r.created_at,
      sentAt: r.sent_at,
    }));
  }

  /** Pending messages, oldest first, for a mailer. */
  async pending(db: Executor, limit: number) {
    return db.selectFrom('mail_outbox').selectAll().where('sent_at', 'is', null).orderBy('created_at').limit(limit).execute();
  }

  async markSent(db: Executor, id: string, at: number): Promise<void> {
    await db.updateTable('mail_outbox').set({ sent_at: at }).where('id', '=', id).execute();
  }
}
