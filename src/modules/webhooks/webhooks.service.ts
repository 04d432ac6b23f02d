import type { Database } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/db-errors.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { requireTenantAdmin } from '../../domain/roles.ts';
import { type EventData, WEBHOOK_TEST_EVENT } from '../../events/event-catalogue.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId, prefixedId } from '../../lib/ids.ts';
import { type DeliveriesRepository, type Delivery, pendingDelivery } from './deliveries.repository.ts';
import { deliverJob } from './delivery-jobs.ts';
import { generateWebhookSecret, type SecretBox } from './secret-box.ts';
import { checkEventFilter, checkSubscribedEvents } from './webhook-events.ts';
import type { Webhook, WebhookPatch, WebhooksRepository } from './webhooks.repository.ts';
import type { DeliveryStatus } from './webhooks.tables.ts';

/** Webhooks one tenant may have: every event fans out to each, so the count is bounded. */
export const MAX_WEBHOOKS_PER_TENANT = 100;

/** Judges a URL being saved: HTTPS, and not a private or reserved target unless allowed (outbound-http checkUrlTarget). */
export type UrlCheck = (url: string) => Promise<{ ok: true } | { ok: false; reason: string }>;

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  webhooks: WebhooksRepository;
  deliveries: DeliveriesRepository;
  secrets: SecretBox;
  checkUrl: UrlCheck;
}

/**
 * Webhook management (spec "Endpoints > Webhooks", docs/api-decisions.md §8): create, list, read,
 * update, delete, the delivery log, redelivery and the test ping. Only tenant administrators
 * (owners, admins, API keys) manage webhooks; members and viewers get 403, since a webhook sends
 * every matching event of the tenant, not just what they can see.
 */
export class WebhooksService {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  /** Creates an active webhook; the secret (given or generated `whsec_...`) is in this answer only. */
  async create(
    auth: AuthContext,
    input: { url: string; events: string[]; secret?: string | undefined },
  ): Promise<{ webhook: Webhook; secret: string }> {
    authorise(auth);
    const { database, clock, webhooks, secrets } = this.deps;
    const events = checkSubscribedEvents(input.events);
    await this.checkUrl(input.url);
    const secret = input.secret ?? generateWebhookSecret();
    const now = clock.now();
    const webhook: Webhook = {
      id: newId(now),
      tenantId: auth.tenant.id,
      url: input.url,
      events,
      secret: await secrets.seal(secret),
      status: 'active',
      statusReason: null,
      failingSince: null,
      consecutiveFailures: 0,
      circuitOpenUntil: null,
      createdAt: now,
      updatedAt: now,
    };
    await database.db.transaction().execute(async (trx) => {
      if ((await webhooks.count(trx, auth.tenant.id)) >= MAX_WEBHOOKS_PER_TENANT) {
        throw errors.conflict(`A tenant can have at most ${MAX_WEBHOOKS_PER_TENANT} webhooks`, {
          limit: MAX_WEBHOOKS_PER_TENANT,
        });
      }
      await webhooks.insert(trx, webhook);
    });
    return { webhook, secret };
  }

  list(auth: AuthContext, page: { limit: number; offset: number }) {
    authorise(auth);
    return this.deps.webhooks.list(this.deps.database.db, auth.tenant.id, page);
  }

  async get(auth: AuthContext, id: string): Promise<Webhook> {
    authorise(auth);
    return this.find(this.deps.database.db, auth.tenant.id, id);
  }

  /**
   * Partial update of `url`, `events` and `status` (`active` / `paused`). Pausing cancels the
   * attempts not yet sent, so resuming starts from new events with no backlog. Setting `active`
   * (also on a webhook the service disabled) or changing the URL starts its health afresh.
   */
  async update(
    auth: AuthContext,
    id: string,
    input: { url?: string | undefined; events?: string[] | undefined; status?: 'active' | 'paused' | undefined },
  ): Promise<Webhook> {
    authorise(auth);
    const { database, clock, webhooks, deliveries } = this.deps;
    const events = input.events === undefined ? undefined : checkSubscribedEvents(input.events);
    if (input.url !== undefined) await this.checkUrl(input.url);
    return database.db.transaction().execute(async (trx) => {
      const current = await this.find(trx, auth.tenant.id, id);
      // An imported webhook arrives without its secret (not portable): it cannot sign, so it stays paused until given one.
      if (input.status === 'active' && current.secret === '') {
        throw errors.field(
          'status',
          'this webhook has no signing secret (imported from a tenant export): set one with POST /api/v1/webhooks/{id}/secret first',
        );
      }
      const patch: WebhookPatch = { updatedAt: clock.now() };
      if (input.url !== undefined) patch.url = input.url;
      if (events !== undefined) patch.events = events;
      const fresh =
        (input.status === 'active' && current.status !== 'active') ||
        (input.url !== undefined && input.url !== current.url);
      if (input.status !== undefined) patch.status = input.status;
      if (fresh)
        Object.assign(patch, {
          statusReason: null,
          failingSince: null,
          consecutiveFailures: 0,
          circuitOpenUntil: null,
        } satisfies WebhookPatch);
      await webhooks.update(trx, auth.tenant.id, id, patch);
      if (input.status === 'paused' && current.status !== 'paused')
        await deliveries.cancelPending(trx, auth.tenant.id, id, 'webhook paused');
      return this.find(trx, auth.tenant.id, id);
    });
  }

  /** A new signing secret (given or generated), in this answer only; later deliveries are signed with it. */
  async setSecret(
    auth: AuthContext,
    id: string,
    given: string | undefined,
  ): Promise<{ webhook: Webhook; secret: string }> {
    authorise(auth);
    const { database, clock, webhooks, secrets } = this.deps;
    const secret = given ?? generateWebhookSecret();
    const sealed = await secrets.seal(secret);
    const webhook = await database.db.transaction().execute(async (trx) => {
      await this.find(trx, auth.tenant.id, id);
      await webhooks.update(trx, auth.tenant.id, id, { secret: sealed, updatedAt: clock.now() });
      return this.find(trx, auth.tenant.id, id);
    });
    return { webhook, secret };
  }

  /** Deletes the webhook and its delivery log; attempts not yet sent are dropped. */
  async delete(auth: AuthContext, id: string): Promise<void> {
    authorise(auth);
    const deleted = await this.deps.database.db
      .transaction()
      .execute((trx) => this.deps.webhooks.delete(trx, auth.tenant.id, id));
    if (!deleted) throw errors.notFound('webhook', id);
  }

  async listDeliveries(
    auth: AuthContext,
    id: string,
    filter: { status?: DeliveryStatus | undefined; event?: string | undefined },
    page: { limit: number; offset: number },
  ) {
    authorise(auth);
    const event = checkEventFilter(filter.event);
    const db = this.deps.database.db;
    await this.find(db, auth.tenant.id, id);
    return this.deps.deliveries.list(db, auth.tenant.id, id, { status: filter.status, event }, page);
  }

  /**
   * Sends an attempt again as a new attempt of the same event (same X-Service-Event-Id, new
   * X-Service-Delivery), once, even while the webhook is paused or disabled: it was asked for.
   * A failed redelivery is not retried automatically; automatic retries already scheduled stay.
   */
  async redeliver(auth: AuthContext, id: string, deliveryId: string): Promise<Delivery> {
    authorise(auth);
    const tenantId = auth.tenant.id;
    return this.withAttemptNumber(async (trx) => {
      await this.find(trx, tenantId, id);
      const original = await this.deps.deliveries.findById(trx, tenantId, id, deliveryId);
      if (!original) throw errors.notFound('delivery', deliveryId);
      const attempt = (await this.deps.deliveries.lastAttempt(trx, tenantId, id, original.eventId)) + 1;
      return this.schedule(trx, { ...eventOf(original), attempt, trigger: 'redeliver' });
    });
  }

  /** Sends a signed `webhook.test` event to the webhook once, whatever its status. */
  async test(auth: AuthContext, id: string): Promise<Delivery> {
    authorise(auth);
    const tenantId = auth.tenant.id;
    const now = this.deps.clock.now();
    const data: EventData<typeof WEBHOOK_TEST_EVENT> = {
      webhook_id: id,
      message: 'This is a test event sent from the webhook settings.',
    };
    return this.deps.database.db.transaction().execute(async (trx) => {
      await this.find(trx, tenantId, id);
      return this.schedule(trx, {
        tenantId,
        webhookId: id,
        eventId: prefixedId('evt'),
        event: WEBHOOK_TEST_EVENT,
        eventAt: now,
        payload: data,
        attempt: 1,
        trigger: 'test',
      });
    });
  }

  /** Inserts a manual attempt, due now, and its job in the caller's transaction. */
  private async schedule(
    trx: Executor,
    input: Pick<
      Delivery,
      'tenantId' | 'webhookId' | 'eventId' | 'event' | 'eventAt' | 'payload' | 'attempt' | 'trigger'
    >,
  ): Promise<Delivery> {
    const now = this.deps.clock.now();
    const delivery = pendingDelivery({ ...input, retryIndex: null }, now);
    await this.deps.deliveries.insert(trx, delivery);
    await this.deps.jobs.enqueueMany(trx, [deliverJob(delivery.tenantId, [delivery.id])]);
    return delivery;
  }

  /** Runs a transaction that numbers a new attempt, again if a concurrent one took the same number. */
  private async withAttemptNumber<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.deps.database.db.transaction().execute(work);
      } catch (error) {
        if (!isUniqueViolation(error) || tries >= 3) throw error;
      }
    }
  }

  private async find(db: Executor, tenantId: string, id: string): Promise<Webhook> {
    const webhook = await this.deps.webhooks.findById(db, tenantId, id);
    if (!webhook) throw errors.notFound('webhook', id);
    return webhook;
  }

  private async checkUrl(url: string): Promise<void> {
    const result = await this.deps.checkUrl(url);
    if (!result.ok) throw errors.invalidUrl(`Invalid webhook URL: ${result.reason}`, { field: 'url' });
  }
}

function authorise(auth: AuthContext): void {
  requireTenantAdmin(auth, 'Only owners, admins and API keys manage webhooks');
}

/** The event a delivery carries, to attempt it again. */
function eventOf(d: Delivery) {
  return {
    tenantId: d.tenantId,
    webhookId: d.webhookId,
    eventId: d.eventId,
    event: d.event,
    eventAt: d.eventAt,
    payload: d.payload,
  };
}
