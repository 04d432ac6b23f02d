import type { MailOutbox } from '../execution-engine.ts';
import type { NodeHandler } from '../node-handlers.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * `notification` `{to, subject, message}`: one message per address in the mail outbox, written in
 * the transaction that records the node's result (so a retried job never sends it twice).
 * `to` is an address, a list of addresses, or a comma-separated string.
 */
export function notificationHandler(mail: MailOutbox): NodeHandler {
  return async ({ node, config }) => {
    const to = recipients(config.to);
    const bad = to.filter((a) => !EMAIL.test(a));
    if (to.length === 0 || bad.length > 0)
      throw new Error(
        `Node "${node.id}": "to" must be e-mail addresses${bad.length ? ` (not: ${bad.join(', ')})` : ''}`,
      );
    const subject = String(config.subject);
    const message = typeof config.message === 'string' ? config.message : JSON.stringify(config.message);
    return {
      kind: 'completed',
      output: { to, subject, queued: to.length },
      effects: async (trx, run) => {
        for (const address of to) {
          await mail.enqueue(trx, {
            tenantId: run.tenantId,
            kind: 'workflow_notification',
            to: address,
            data: { subject, message },
            at: run.now,
          });
        }
      },
    };
  };
}

function recipients(value: unknown): string[] {
  const list = Array.isArray(value) ? value : String(value ?? '').split(',');
  return list.map((v) => String(v).trim()).filter((v) => v !== '');
}
