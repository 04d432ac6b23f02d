import type { Database } from '../../db/database.ts';
import type { JobQueue, NewJob } from '../../jobs/job-queue.ts';
import type { JobKind, JobPayloads, RunningJob } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { MailDeliveryError, type MailTransport, type SentMail } from '../../providers/mail/mail-transport.ts';
import type { MailOutboxRepository, OutboxMail, TryOutcome } from './mail-outbox.repository.ts';

/** The job that makes one try of one mail. */
export const MAIL_SEND_JOB = 'mail.send' satisfies JobKind;

/** `attempt`: which try this job is (1 for the first); a job for a try the mail is past does nothing. */
export interface SendMailPayload {
  mailId: string;
  attempt: number;
}

/** What the sender reports for `mail_sent_total` and `mail_failed_total`. */
export interface MailMetrics {
  sent(kind: string): void;
  failed(kind: string, outcome: 'retrying' | 'failed' | 'dead'): void;
}

interface Deps {
  database: Database;
  clock: Clock;
  logger: Logger;
  jobs: JobQueue;
  outbox: MailOutboxRepository;
  transport: MailTransport;
  from: { address: string };
  retryDelaysMs: readonly number[];
  metrics: MailMetrics;
  random?: () => number;
}

/** Spread of each retry delay (±), so a backlog does not hit a relay that came back all at once. */
const RETRY_JITTER = 0.1;

/** One job of the kind, for the outbox write that makes or retries a mail (same transaction). */
export function sendJob(
  mailId: string,
  attempt: number,
  runAt: number,
  tenantId: string | null,
): NewJob<Pick<JobPayloads, typeof MAIL_SEND_JOB>> {
  return {
    kind: MAIL_SEND_JOB,
    payload: { mailId, attempt },
    options: { runAt, tenantId, uniqueKey: `mail:${mailId}:${attempt}` },
  };
}

/**
 * The `mail.send` job: hands one mail to the transport and writes how it went. A refusal for good
 * (5xx to the recipient or the message) fails the mail with the server's answer; anything else is
 * tried again on MAIL_RETRY_DELAYS by a new job, and after the last delay the mail is dead. The
 * request that wrote the mail never waits for any of this. A try whose outcome could not be
 * written (the process died between the relay's answer and the write) is made again: delivery is
 * at least once, with the same Message-ID.
 */
export class MailSender {
  readonly #deps: Deps;
  readonly #random: () => number;

  constructor(deps: Deps) {
    this.#deps = deps;
    this.#random = deps.random ?? Math.random;
  }

  async run(job: RunningJob<SendMailPayload>): Promise<void> {
    const { database, clock, outbox } = this.#deps;
    const { mailId, attempt } = job.payload;
    const mail = await outbox.find(database.db, mailId);
    if (!mail || !(await outbox.markSending(database.db, mailId, attempt - 1, clock.now()))) return;
    const result = await this.#send(mail);
    const outcome = this.#outcome(mail, attempt, result);
    await database.db.transaction().execute(async (trx) => {
      if (!(await outbox.recordTry(trx, mailId, attempt - 1, outcome))) return;
      if (outcome.status === 'retrying') {
        const next = sendJob(mailId, attempt + 1, outcome.nextAttemptAt, mail.tenantId);
        await this.#deps.jobs.enqueueMany(trx, [next]);
      }
      await job.completeIn(trx);
    });
    this.#report(mail, attempt, outcome);
  }

  async #send(mail: OutboxMail): Promise<SentMail | MailDeliveryError> {
    try {
      return await this.#deps.transport.send({
        id: mail.id,
        from: { name: mail.fromName, address: this.#deps.from.address },
        to: mail.to,
        subject: mail.subject,
        text: mail.body,
        html: mail.html,
      });
    } catch (error) {
      return error instanceof MailDeliveryError
        ? error
        : new MailDeliveryError((error as Error).message, { permanent: false, cause: error });
    }
  }

  #outcome(mail: OutboxMail, attempt: number, result: SentMail | MailDeliveryError): TryOutcome {
    const at = this.#deps.clock.now();
    if (!(result instanceof MailDeliveryError))
      return { status: 'sent', at, response: result.response, eraseBodies: mail.category === 'security' };
    const error = result.message.slice(0, 1000);
    if (result.permanent) return { status: 'failed', at, error };
    const delay = this.#deps.retryDelaysMs[attempt - 1];
    if (delay === undefined) return { status: 'dead', at, error: `${error} (gave up after ${attempt} tries)` };
    const jittered = Math.round(delay * (1 - RETRY_JITTER + 2 * RETRY_JITTER * this.#random()));
    return { status: 'retrying', at, error, nextAttemptAt: at + jittered };
  }

  #report(mail: OutboxMail, attempt: number, outcome: TryOutcome): void {
    const { logger, metrics } = this.#deps;
    const fields = { mailId: mail.id, tenantId: mail.tenantId, kind: mail.kind, attempt };
    if (outcome.status === 'sent') {
      metrics.sent(mail.kind);
      logger.debug({ ...fields, response: outcome.response }, 'mail sent');
      return;
    }
    metrics.failed(mail.kind, outcome.status);
    if (outcome.status === 'retrying')
      logger.warn(
        { ...fields, error: outcome.error, nextAttemptAt: new Date(outcome.nextAttemptAt).toISOString() },
        'mail not sent, will retry',
      );
    else logger.error({ ...fields, error: outcome.error, status: outcome.status }, 'mail not sent, giving up');
  }
}
