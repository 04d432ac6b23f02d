import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { mailRecipientOf } from '../identity/index.ts';
import type { MailOutboxTable } from './mail.tables.ts';

export const MAIL_STATUSES = ['pending', 'sending', 'sent', 'retrying', 'failed', 'dead', 'suppressed'] as const;
/**
 * `pending` waits for its first try (or a retry an administrator asked for), `sending` is on the
 * wire, `retrying` failed and waits for `nextAttemptAt`; `sent`, `failed` (refused for good),
 * `dead` (every try failed) and `suppressed` (the recipient opted out) are final.
 */
export type MailStatus = (typeof MAIL_STATUSES)[number];

/** A mail of the outbox as the service sees it. */
export interface OutboxMail {
  id: string;
  tenantId: string | null;
  kind: string;
  category: 'security' | 'notification';
  to: string;
  userId: string | null;
  fromName: string | null;
  subject: string;
  /** The text part (empty once a security mail was sent). */
  body: string;
  html: string | null;
  status: MailStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  serverResponse: string | null;
  createdAt: number;
  updatedAt: number;
  sentAt: number | null;
}

function toMail(row: Selectable<MailOutboxTable>): OutboxMail {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    kind: row.kind,
    category: row.category === 'security' ? 'security' : 'notification',
    to: row.to_address,
    userId: row.user_id,
    fromName: row.from_name,
    subject: row.subject,
    body: row.body,
    html: row.html_body,
    status: row.status as MailStatus,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
    serverResponse: row.server_response,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at ?? row.created_at),
    sentAt: row.sent_at === null ? null : Number(row.sent_at),
  };
}

/** How a try ended, as written to the mail (guarded by the attempt it belongs to). */
export type TryOutcome =
  | { status: 'sent'; at: number; response: string; eraseBodies: boolean }
  | { status: 'retrying'; at: number; error: string; nextAttemptAt: number }
  | { status: 'failed' | 'dead'; at: number; error: string };

/** Filters of the administrator's listing. */
export interface MailFilter {
  status?: MailStatus | undefined;
  tenantId?: string | undefined;
  kind?: string | undefined;
}

/** SQL of the mail outbox. Mail is the service's own queue: the administrator reads across tenants. */
export class MailOutboxRepository {
  async insert(
    db: Executor,
    mail: Omit<OutboxMail, 'attempts' | 'serverResponse' | 'sentAt' | 'updatedAt'>,
  ): Promise<void> {
    await db
      .insertInto('mail_outbox')
      .values({
        id: mail.id,
        tenant_id: mail.tenantId,
        kind: mail.kind,
        category: mail.category,
        to_address: mail.to,
        user_id: mail.userId,
        from_name: mail.fromName,
        subject: mail.subject,
        body: mail.body,
        html_body: mail.html,
        status: mail.status,
        attempts: 0,
        last_error: mail.lastError,
        next_attempt_at: mail.nextAttemptAt,
        server_response: null,
        created_at: mail.createdAt,
        updated_at: mail.createdAt,
        sent_at: null,
      })
      .execute();
  }

  /** The tenant's name and sender name, and whether `email` is a user of it who turned notification mail off. */
  async recipient(
    db: Executor,
    tenantId: string,
    email: string,
  ): Promise<{ tenantName: string | null; senderName: string | null; optedOut: boolean }> {
    const row = await db
      .selectFrom(mailRecipientOf(tenantId, email).as('r'))
      .leftJoin('mail_settings as s', 's.tenant_id', 'r.live_tenant_id')
      .select(['r.tenant_name', 'r.notification_mail', 's.sender_name'])
      .executeTakeFirst();
    return {
      tenantName: row?.tenant_name ?? null,
      senderName: row?.sender_name ?? null,
      optedOut:
        row?.notification_mail !== undefined && row.notification_mail !== null && Number(row.notification_mail) === 0,
    };
  }

  async find(db: Executor, id: string): Promise<OutboxMail | null> {
    const row = await db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toMail(row) : null;
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
    return rows.map(toMail);
  }

  /** The administrator's listing, newest first. */
  async list(
    db: Executor,
    filter: MailFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: OutboxMail[]; total: number }> {
    let base = db.selectFrom('mail_outbox');
    if (filter.status) base = base.where('status', '=', filter.status);
    if (filter.tenantId) base = base.where('tenant_id', '=', filter.tenantId);
    if (filter.kind) base = base.where('kind', '=', filter.kind);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toMail), total: Number(count.n) };
  }

  /** The newest mail of `kind` for each of these users of the tenant (an invitation's state). */
  async latestForUsers(
    db: Executor,
    tenantId: string,
    userIds: readonly string[],
    kind: string,
  ): Promise<Map<string, OutboxMail>> {
    const latest = new Map<string, OutboxMail>();
    if (userIds.length === 0) return latest;
    const rows = await db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('user_id', 'in', [...userIds])
      .where('kind', '=', kind)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    for (const row of rows) latest.set(row.user_id!, toMail(row));
    return latest;
  }

  /** Marks a try as started, if the mail is still waiting for exactly this try. */
  async markSending(db: Executor, id: string, attemptsBefore: number, at: number): Promise<boolean> {
    const result = await db
      .updateTable('mail_outbox')
      .set({ status: 'sending', updated_at: at })
      .where('id', '=', id)
      .where('attempts', '=', attemptsBefore)
      .where('status', 'in', ['pending', 'retrying', 'sending'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Writes how try number `attemptsBefore + 1` ended; false when the mail moved on meanwhile. */
  async recordTry(db: Executor, id: string, attemptsBefore: number, outcome: TryOutcome): Promise<boolean> {
    const common = { status: outcome.status, attempts: attemptsBefore + 1, updated_at: outcome.at };
    const changes =
      outcome.status === 'sent'
        ? {
            ...common,
            sent_at: outcome.at,
            server_response: outcome.response,
            next_attempt_at: null,
            last_error: null,
            ...(outcome.eraseBodies ? { body: '', html_body: null } : {}),
          }
        : outcome.status === 'retrying'
          ? { ...common, last_error: outcome.error, next_attempt_at: outcome.nextAttemptAt }
          : { ...common, last_error: outcome.error, next_attempt_at: null };
    const result = await db
      .updateTable('mail_outbox')
      .set(changes)
      .where('id', '=', id)
      .where('attempts', '=', attemptsBefore)
      .where('status', '=', 'sending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Puts a failed or dead mail back in the queue with a fresh schedule; false when it is in another state. */
  async requeue(db: Executor, id: string, at: number): Promise<boolean> {
    const result = await db
      .updateTable('mail_outbox')
      .set({ status: 'pending', attempts: 0, next_attempt_at: at, updated_at: at })
      .where('id', '=', id)
      .where('status', 'in', ['failed', 'dead'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** A tenant's sender name (null: its name is used). */
  async senderName(db: Executor, tenantId: string): Promise<string | null> {
    const row = await db
      .selectFrom('mail_settings')
      .select('sender_name')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row?.sender_name ?? null;
  }

  async setSenderName(db: Executor, tenantId: string, senderName: string | null, at: number): Promise<void> {
    await db
      .insertInto('mail_settings')
      .values({ tenant_id: tenantId, sender_name: senderName, updated_at: at })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ sender_name: senderName, updated_at: at }))
      .execute();
  }

  /** A sandbox reset: the twin's mail goes with its data. */
  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('mail_outbox').where('tenant_id', '=', tenantId).execute();
  }
}
