import type { Generated } from 'kysely';

/**
 * One mail of the outbox (docs/mail.md): written in the transaction of what caused it, rendered
 * (subject, text and HTML parts, sender name) at that moment, then sent by `mail.send` jobs.
 */
export interface MailOutboxTable {
  id: string;
  tenant_id: string | null;
  /** The template: `invitation`, `password_reset`, `task_assigned`... */
  kind: string;
  /** `security` (always sent) or `notification` (users may opt out). */
  category: Generated<string>;
  to_address: string;
  /** The user the mail is for, when it is one (an invitation's state is read through it). */
  user_id: string | null;
  /** Display name of the From header (the tenant's sender name); the address is MAIL_FROM's. */
  from_name: string | null;
  subject: string;
  /** The text part; emptied once a security mail was sent (it carries a single-use token). */
  body: string;
  html_body: string | null;
  /** `pending`, `sending`, `sent`, `retrying`, `failed`, `dead` or `suppressed`. */
  status: Generated<string>;
  /** Tries made so far. */
  attempts: Generated<number>;
  last_error: string | null;
  /** When the next try is due (pending and retrying mail). */
  next_attempt_at: number | null;
  /** What the server answered to the accepted message (`250 OK queued as ...`), or the file written. */
  server_response: string | null;
  created_at: number;
  updated_at: number | null;
  sent_at: number | null;
}

/** A tenant's mail settings; a tenant without a row uses its name as the sender name. */
export interface MailSettingsTable {
  tenant_id: string;
  sender_name: string | null;
  updated_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    mail_outbox: MailOutboxTable;
    mail_settings: MailSettingsTable;
  }
}
