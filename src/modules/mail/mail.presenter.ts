import { iso } from '../../lib/clock.ts';
import type { OutboxMail } from './mail-outbox.repository.ts';

/** The administrator's view of a mail (MailView): never its bodies, which may carry a single-use token. */
export function presentMail(m: OutboxMail) {
  return {
    id: m.id,
    tenant_id: m.tenantId,
    kind: m.kind,
    category: m.category,
    to: m.to,
    user_id: m.userId,
    from_name: m.fromName,
    subject: m.subject,
    status: m.status,
    attempts: m.attempts,
    last_error: m.lastError,
    next_attempt_at: iso(m.nextAttemptAt),
    server_response: m.serverResponse,
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    sent_at: iso(m.sentAt),
  };
}
