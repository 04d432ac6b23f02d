import { Counter, type Registry } from 'prom-client';
import { defineJob } from '../../jobs/job-types.ts';
import { defineModule } from '../../platform/module.ts';
import { createMailTransport } from '../../providers/mail/create-mail-transport.ts';
import { MailOutboxRepository } from './mail-outbox.repository.ts';
import { MAIL_SEND_JOB, type MailMetrics, MailSender } from './mail-sender.ts';
import { mailRoutes } from './mail.routes.ts';
import { MailService } from './mail.service.ts';
import { MailLinks } from './templates/links.ts';

export type { MailRequest, MailService } from './mail.service.ts';
export type { MailStatus, OutboxMail } from './mail-outbox.repository.ts';
export type { MailKind } from './templates/catalogue.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** Writes mail in the caller's transaction (`enqueue`); the outbox is then sent by `mail.send` jobs. */
    mail: MailService;
  }
}

declare module '../../platform/test-seams.ts' {
  interface TestSeams {
    /** The outbox's rows (`listTo`): what mail a test's actions wrote. */
    mailOutbox: MailOutboxRepository;
  }
}

/**
 * Mail that leaves the service (docs/mail.md): the outbox every module writes to in its own
 * transaction, rendered from templates; `mail.send` jobs hand it to the SMTP relay of `SMTP_URL`
 * (or write `.eml` files under `DATA_DIR/mail/`), retrying on MAIL_RETRY_DELAYS; the
 * administrator's view of the outbox and the tenant's sender name.
 */
export const mailModule = defineModule({
  name: 'mail',
  setup({ config, database, clock, logger, jobs, metrics }) {
    const outbox = new MailOutboxRepository();
    const links = new MailLinks(config.http);
    const mail = new MailService({
      database,
      clock,
      jobs,
      outbox,
      links,
      defaultSenderName: config.mail.from.name ?? 'DocuVault',
    });
    const transport = createMailTransport(config, logger);
    const sender = new MailSender({
      database,
      clock,
      logger,
      jobs,
      outbox,
      transport,
      from: config.mail.from,
      retryDelaysMs: config.mail.retryDelaysMs,
      metrics: mailMetrics(metrics.registry, transport.kind),
    });
    const send = defineJob({
      kind: MAIL_SEND_JOB,
      handler: (job) => sender.run(job),
      // Failed tries are retried on MAIL_RETRY_DELAYS as new jobs; these retries are for database trouble.
      maxAttempts: 5,
      backoff: { baseMs: 1_000, maxMs: 60_000 },
      concurrency: config.mail.smtpMaxConnections,
      timeoutMs: 120_000,
    });
    return {
      provides: { mail },
      testSeams: { mailOutbox: outbox },
      routes: (app) => mailRoutes(app, { mail }),
      jobs: [send],
      capabilities: () => ({ mail: transport.describe() }),
      sandboxCleanup: (trx, tenantId) => outbox.deleteForTenant(trx, tenantId),
      close: () => transport.close(),
    };
  },
});

function mailMetrics(registry: Registry, transport: string): MailMetrics {
  const sent = new Counter({
    name: 'mail_sent_total',
    help: 'Mail handed to the relay (or written as .eml) by this process, by kind and transport',
    labelNames: ['kind', 'transport'] as const,
    registers: [registry],
  });
  const failed = new Counter({
    name: 'mail_failed_total',
    help: 'Failed tries of mail by this process, by kind and what followed: retrying, failed (refused for good), dead (no tries left)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  return {
    sent: (kind) => sent.inc({ kind, transport }),
    failed: (kind, outcome) => failed.inc({ kind, outcome }),
  };
}
