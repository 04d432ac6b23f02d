import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { requireTenantAdmin } from '../../domain/roles.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { headerText, isMailAddress } from '../../lib/mail-headers.ts';
import type { MailFilter, MailOutboxRepository, MailStatus, OutboxMail } from './mail-outbox.repository.ts';
import { sendJob } from './mail-sender.ts';
import { MAIL_TEMPLATES, type MailData, type MailKind } from './templates/catalogue.ts';
import { renderLayout } from './templates/layout.ts';
import type { MailLinks } from './templates/links.ts';
import type { MailTemplate } from './templates/template.ts';

/** A mail to write: its kind, recipient and the data of its template. */
export type MailRequest = {
  [K in MailKind]: {
    /** The tenant it is about (its name, sender name and people's opt-outs apply); null for the service's own mail. */
    tenantId: string | null;
    kind: K;
    to: string;
    /** The user it is for, when known: greeted by name; an invitation's state is read through the id. */
    user?: { id: string; name: string } | null | undefined;
    data: MailData[K];
    at: number;
  };
}[MailKind];

/** The longest sender name a tenant may set (a display name, not a place for a message). */
export const SENDER_NAME_MAX = 64;

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  outbox: MailOutboxRepository;
  links: MailLinks;
  /** MAIL_FROM's display name, for mail of no tenant. */
  defaultSenderName: string;
}

/**
 * The outbox's front door (docs/mail.md). Every module writes mail with `enqueue` inside the
 * transaction of what caused it: the mail is rendered there (the tenant's name and sender name,
 * text and HTML), a recipient who turned notification mail off gets it `suppressed`, and its
 * first `mail.send` job commits with it. Also the administrator's view and the tenant's settings.
 */
export class MailService {
  readonly #deps: Deps;

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async enqueue(db: Executor, request: MailRequest): Promise<{ id: string; status: MailStatus }> {
    const { outbox, links, jobs } = this.#deps;
    const template = MAIL_TEMPLATES[request.kind] as MailTemplate<unknown>;
    const to = request.to.trim();
    const facts = request.tenantId
      ? await outbox.recipient(db, request.tenantId, to)
      : { tenantName: null, senderName: null, optedOut: false };
    const content = template.render(request.data, {
      tenantName: facts.tenantName,
      recipientName: request.user?.name ?? null,
      links,
    });
    const { text, html } = renderLayout(content, {
      tenantName: facts.tenantName,
      category: template.category,
      profileUrl: links.profile(),
    });
    const valid = isMailAddress(to);
    const suppressed = valid && template.category === 'notification' && facts.optedOut;
    const status: MailStatus = !valid ? 'failed' : suppressed ? 'suppressed' : 'pending';
    const id = newId(request.at);
    await outbox.insert(db, {
      id,
      tenantId: request.tenantId,
      kind: request.kind,
      category: template.category,
      to,
      userId: request.user?.id ?? null,
      fromName: headerText(facts.senderName ?? facts.tenantName ?? this.#deps.defaultSenderName, 100),
      subject: headerText(content.subject),
      // A suppressed mail is never sent: there is no reason to keep what it said.
      body: suppressed ? '' : text,
      html: suppressed ? null : html,
      status,
      lastError: !valid
        ? `not one e-mail address: ${JSON.stringify(to.slice(0, 300))}`
        : suppressed
          ? 'the recipient turned notification mail off'
          : null,
      nextAttemptAt: status === 'pending' ? request.at : null,
      createdAt: request.at,
    });
    if (status === 'pending') {
      await jobs.enqueueMany(db, [sendJob(id, 1, request.at, request.tenantId)]);
    }
    return { id, status };
  }

  /** The administrator's listing: what was sent, failed or waits (never the bodies). */
  list(filter: MailFilter, page: { limit: number; offset: number }) {
    return this.#deps.outbox.list(this.#deps.database.db, filter, page);
  }

  /** Sends a failed or dead mail again, with a fresh retry schedule. 404 unknown, 409 in any other state. */
  async retry(id: string): Promise<OutboxMail> {
    const { database, clock, outbox, jobs } = this.#deps;
    const at = clock.now();
    const mail = await database.db.transaction().execute(async (trx) => {
      const found = await outbox.find(trx, id);
      if (!found) throw errors.notFound('mail', id);
      if (!(await outbox.requeue(trx, id, at))) {
        throw errors.conflict(`Only failed or dead mail can be retried; this one is ${found.status}`, {
          status: found.status,
        });
      }
      await jobs.enqueueMany(trx, [sendJob(id, 1, at, found.tenantId)]);
      return outbox.find(trx, id);
    });
    return mail!;
  }

  /** The newest invitation of each of these users (identity shows its state on the user). */
  invitations(db: Executor, tenantId: string, userIds: readonly string[]): Promise<Map<string, OutboxMail>> {
    return this.#deps.outbox.latestForUsers(db, tenantId, userIds, 'invitation');
  }

  /** The tenant's sender name as set (null: its name is used). */
  async settings(auth: AuthContext): Promise<{ senderName: string | null }> {
    return { senderName: await this.#deps.outbox.senderName(this.#deps.database.db, liveTenantOf(auth)) };
  }

  /** Owners, admins and API keys set the display name their tenant's mail is sent under (null: the tenant's name). */
  async updateSettings(
    auth: AuthContext,
    patch: { senderName: string | null },
  ): Promise<{ senderName: string | null }> {
    requireTenantAdmin(auth, 'Only an owner or admin may change mail settings');
    const name = patch.senderName === null ? null : headerText(patch.senderName, SENDER_NAME_MAX);
    if (name === '') throw errors.field('sender_name', 'must not be blank (send null to use the tenant name)');
    await this.#deps.outbox.setSenderName(this.#deps.database.db, liveTenantOf(auth), name, this.#deps.clock.now());
    return { senderName: name };
  }
}

/** Settings belong to the live tenant; its sandbox twin sends under the same name. */
function liveTenantOf(auth: AuthContext): string {
  return auth.tenant.sandboxOf ?? auth.tenant.id;
}
