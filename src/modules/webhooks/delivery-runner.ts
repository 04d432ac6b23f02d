import type { Database } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/db-errors.ts';
import type { Executor } from '../../db/executor.ts';
import { eventEnvelope } from '../../events/event-catalogue.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { RunningJob } from '../../jobs/job-types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import {
  STANDARD_WEBHOOK_HEADERS,
  signStandardWebhook,
  signWebhookBody,
  WEBHOOK_HEADERS,
} from '../../lib/webhook-signature.ts';
import { OutboundError, type OutboundHttp } from '../../providers/outbound/outbound-http.ts';
import { BatchedCalls } from './batched-calls.ts';
import {
  type AttemptOutcome,
  type DeliveriesRepository,
  type Delivery,
  type DeliveryToSend,
  pendingDelivery,
} from './deliveries.repository.ts';
import { type DeliverPayload, deliverJob, payloadDeliveryIds } from './delivery-jobs.ts';
import {
  breakerOpenMs,
  concurrencyLimit,
  deferUntil,
  isHealthy,
  retryDelayMs,
  shouldDisable,
} from './delivery-policy.ts';
import type { EndpointLimiter } from './endpoint-limiter.ts';
import type { SecretBox } from './secret-box.ts';
import type { WebhooksRepository } from './webhooks.repository.ts';

/** Total time budget of one attempt (docs/api-decisions.md §8: a 2xx within 5 seconds is success). */
export const DELIVERY_TIMEOUT_MS = 5_000;
/** Bytes of the receiver's answer kept in the delivery log. */
export const RESPONSE_EXCERPT_BYTES = 512;

export interface DeliverySettings {
  retryDelaysMs: readonly number[];
  disableAfterMs: number;
  maxConcurrencyPerEndpoint: number;
}

/** What the runner reports for metrics: each attempt's outcome, and deferrals. */
export interface DeliveryMetrics {
  attempt(outcome: 'success' | 'failed', durationMs: number): void;
  skipped(reason: 'deferred' | 'cancelled'): void;
}

interface Deps {
  database: Database;
  clock: Clock;
  logger: Logger;
  jobs: JobQueue;
  http: OutboundHttp;
  secrets: SecretBox;
  webhooks: WebhooksRepository;
  deliveries: DeliveriesRepository;
  limiter: EndpointLimiter;
  settings: DeliverySettings;
  metrics?: DeliveryMetrics;
  random?: () => number;
}

/** Most outcomes written by one statement. */
const OUTCOMES_PER_WRITE = 200;

/**
 * The `webhooks.deliver` job: makes its attempts (one, or an event's first attempts to several
 * webhooks, sent at once) and writes how each went. An attempt already recorded is never sent
 * again (a re-run of the job finds it no longer pending); an automatic attempt whose webhook is no
 * longer active is cancelled; one to an endpoint whose circuit is open, or that already has its
 * share of calls in flight, is deferred to a job of its own without using an attempt. A failed
 * automatic attempt schedules the next on the retry schedule, opens the circuit after repeated
 * failures, and disables the webhook once it has failed for the configured window.
 */
export class DeliveryRunner {
  private readonly deps: Deps;
  private readonly random: () => number;
  /** Attempts on the wire in this process: a duplicate job of the same attempt (after a crash between a deferral and its job's completion) leaves it alone. */
  private readonly sending = new Set<string>();
  /**
   * The common outcome (a success at a healthy endpoint, nothing else to change) of every job
   * running in this process, written together: one statement for all those that finish while the
   * previous write is on its way.
   */
  private readonly successes: BatchedCalls<{ tenantId: string; id: string; outcome: AttemptOutcome }, boolean>;

  constructor(deps: Deps) {
    this.deps = deps;
    this.random = deps.random ?? Math.random;
    this.successes = new BatchedCalls(
      async (items) => {
        const written = await deps.deliveries.recordOutcomes(deps.database.db, items);
        return items.map((i) => written.has(i.id));
      },
      { maxBatch: OUTCOMES_PER_WRITE },
    );
  }

  async run(job: RunningJob<DeliverPayload>): Promise<void> {
    const { database, deliveries } = this.deps;
    await this.sendAll(
      await deliveries.findForSend(database.db, job.payload.tenantId, payloadDeliveryIds(job.payload)),
      job.signal,
    );
  }

  /**
   * Makes the attempts at once (a job's, or the fan-out's first attempts to fast endpoints). Each
   * is written as soon as it ends, whatever the others do; an error (the worker stopping, the
   * database failing) is thrown once all have ended, and the caller's next run sends only the
   * attempts still pending.
   */
  async sendAll(found: readonly DeliveryToSend[], signal: AbortSignal): Promise<void> {
    const results = await Promise.allSettled(found.map((f) => this.attempt(f, signal)));
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
  }

  private async attempt(found: DeliveryToSend, signal: AbortSignal): Promise<void> {
    const { database, clock, deliveries, limiter, settings } = this.deps;
    const { delivery, webhook } = found;
    if (delivery.status !== 'pending' || this.sending.has(delivery.id)) return;
    const tenantId = delivery.tenantId;
    const manual = isManual(delivery);
    if (!manual && webhook.status !== 'active') {
      await deliveries.cancel(database.db, tenantId, delivery.id, `webhook ${webhook.status}`);
      this.deps.metrics?.skipped('cancelled');
      return;
    }
    if (found.data === null) {
      await deliveries.cancel(database.db, tenantId, delivery.id, 'the event no longer exists');
      return;
    }
    const now = clock.now();
    if (!manual && webhook.circuitOpenUntil !== null && webhook.circuitOpenUntil > now) {
      return this.defer(delivery, deferUntil({ circuitOpenUntil: webhook.circuitOpenUntil }, now, this.random));
    }
    // Manual attempts (redeliver, test) are sent whatever the endpoint's health.
    const failures = manual ? 0 : webhook.consecutiveFailures;
    const failing = failures > 0;
    const release = await limiter.acquire(
      delivery.webhookId,
      concurrencyLimit(settings.maxConcurrencyPerEndpoint, failures),
    );
    if (!release) {
      const typicalMs = limiter.typicalMs(delivery.webhookId);
      return this.defer(delivery, deferUntil({ busy: true, failing, typicalMs }, clock.now(), this.random));
    }
    this.sending.add(delivery.id);
    try {
      let outcome: AttemptOutcome;
      try {
        outcome = await this.send(found, signal);
      } finally {
        release();
      }
      limiter.observe(delivery.webhookId, outcome.durationMs);
      this.deps.metrics?.attempt(outcome.status, outcome.durationMs);
      if (outcome.status === 'success' && (manual || isHealthy(webhook))) {
        // The common case: nothing about the endpoint's health changes, so the outcome joins the
        // shared write. (A failure recorded by another attempt while this one was on the wire is
        // not reset here; the next success that sees it does.)
        await this.successes.call({ tenantId, id: delivery.id, outcome });
      } else {
        await this.record(delivery, outcome, manual);
      }
    } finally {
      this.sending.delete(delivery.id);
    }
  }

  /** POSTs the signed envelope; any answer or failure becomes an outcome, except the worker stopping. */
  private async send({ delivery, webhook, data }: DeliveryToSend, signal: AbortSignal): Promise<AttemptOutcome> {
    const { clock, http, secrets } = this.deps;
    const body = JSON.stringify(
      eventEnvelope({ id: delivery.eventId, name: delivery.event, at: delivery.eventAt, data }),
    );
    const secret = await secrets.open(webhook.secret);
    const sentAt = clock.now();
    const seconds = Math.floor(sentAt / 1000);
    const headers = {
      'content-type': 'application/json',
      [WEBHOOK_HEADERS.signature]: signWebhookBody(secret, body),
      [WEBHOOK_HEADERS.eventId]: delivery.eventId,
      [WEBHOOK_HEADERS.event]: delivery.event,
      [WEBHOOK_HEADERS.delivery]: delivery.id,
      [WEBHOOK_HEADERS.timestamp]: String(seconds),
      // Standard Webhooks: the event id (the same on every retry) and this attempt's time, signed with the body.
      [STANDARD_WEBHOOK_HEADERS.id]: delivery.eventId,
      [STANDARD_WEBHOOK_HEADERS.timestamp]: String(seconds),
      [STANDARD_WEBHOOK_HEADERS.signature]: signStandardWebhook(secret, delivery.eventId, seconds, body),
    };
    const started = performance.now();
    try {
      const res = await http.request({
        url: webhook.url,
        method: 'POST',
        headers,
        body,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        maxResponseBytes: RESPONSE_EXCERPT_BYTES,
        signal,
      });
      const ok = res.status >= 200 && res.status < 300;
      return {
        status: ok ? 'success' : 'failed',
        responseStatus: res.status,
        durationMs: res.durationMs,
        responseExcerpt: excerpt(res.body, res.truncated),
        error: ok
          ? null
          : res.status >= 300 && res.status < 400
            ? `redirect (HTTP ${res.status}) not followed`
            : `HTTP ${res.status}`,
        sentAt,
      };
    } catch (error) {
      // The worker is stopping: this attempt did not happen; the job runs again elsewhere.
      if (error instanceof OutboundError && error.code === 'aborted') throw error;
      const reason = error instanceof OutboundError ? `${error.code}: ${error.message}` : `network: ${String(error)}`;
      return {
        status: 'failed',
        responseStatus: null,
        durationMs: Math.round(performance.now() - started),
        responseExcerpt: null,
        error: reason,
        sentAt,
      };
    }
  }

  /** Writes the outcome and, for automatic attempts, the endpoint's health and the next attempt. */
  private async record(delivery: Delivery, outcome: AttemptOutcome, manual: boolean): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await this.deps.database.db.transaction().execute((trx) => this.recordIn(trx, delivery, outcome, manual));
        return;
      } catch (error) {
        // A redelivery numbered its attempt at the same moment: number ours again.
        if (!isUniqueViolation(error) || tries >= 3) throw error;
      }
    }
  }

  private async recordIn(trx: Executor, delivery: Delivery, outcome: AttemptOutcome, manual: boolean): Promise<void> {
    const { clock, webhooks, deliveries, settings, logger, jobs } = this.deps;
    const { tenantId, webhookId } = delivery;
    if (!(await deliveries.recordOutcome(trx, tenantId, delivery.id, outcome))) return;
    if (manual) return;
    if (outcome.status === 'success') {
      await webhooks.recordSuccess(trx, tenantId, webhookId);
      return;
    }
    const now = clock.now();
    const streak = await webhooks.recordFailure(trx, tenantId, webhookId, now);
    if (streak?.status !== 'active') return;
    if (shouldDisable(streak.failingSince, now, settings.disableAfterMs)) {
      const span = formatSpan(now - streak.failingSince);
      const reason = `Disabled by the service: every delivery failed for ${span} (since ${new Date(streak.failingSince).toISOString()}); last error: ${outcome.error}. Set status to active once the endpoint works again.`;
      if (await webhooks.disable(trx, tenantId, webhookId, reason, now)) {
        await deliveries.cancelPending(trx, tenantId, webhookId, 'webhook disabled');
        await deliveries.appendError(
          trx,
          tenantId,
          delivery.id,
          `${outcome.error}; webhook disabled after ${span} of failures`,
        );
        logger.warn(
          { tenantId, webhookId, failingSince: streak.failingSince, lastError: outcome.error },
          'webhook disabled after its failure window',
        );
      }
      return;
    }
    const openMs = breakerOpenMs(streak.consecutiveFailures);
    if (openMs > 0) await webhooks.openCircuit(trx, tenantId, webhookId, now + openMs);
    const retryIndex = delivery.retryIndex ?? 0;
    const delay = retryDelayMs(retryIndex, settings.retryDelaysMs, this.random);
    if (delay === null) return;
    const runAt = now + delay;
    const { eventId, event, eventAt, payload } = delivery;
    const attempt = (await deliveries.lastAttempt(trx, tenantId, webhookId, eventId)) + 1;
    const retry = pendingDelivery(
      { tenantId, webhookId, eventId, event, eventAt, payload, attempt, trigger: 'retry', retryIndex: retryIndex + 1 },
      now,
    );
    const next = { ...retry, scheduledAt: runAt };
    await deliveries.insert(trx, next);
    await deliveries.setNextRetry(trx, tenantId, delivery.id, runAt);
    await jobs.enqueueMany(trx, [deliverJob(tenantId, [next.id], { runAt, failing: true })]);
  }

  /** Tries the same attempt later, in a new job (this one completes): no attempt is used up. */
  private async defer(delivery: Delivery, runAt: number): Promise<void> {
    await this.deps.jobs.enqueueMany(this.deps.database.db, [
      deliverJob(delivery.tenantId, [delivery.id], { runAt, failing: true }),
    ]);
    this.deps.metrics?.skipped('deferred');
  }
}

function isManual(delivery: Delivery): boolean {
  return delivery.trigger === 'redeliver' || delivery.trigger === 'test';
}

/** A duration for people: `3 d 2 h`, `5 h 10 min`, `4 min`, `12 s`. */
function formatSpan(ms: number): string {
  const s = Math.floor(ms / 1000);
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3_600), Math.floor((s % 3_600) / 60)];
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  return m > 0 ? `${m} min` : `${s} s`;
}

/** The start of the receiver's answer as text, for the log. */
function excerpt(body: Buffer, truncated: boolean): string | null {
  if (body.length === 0) return null;
  const text = body.toString('utf8').replace(/\uFFFD+$/, '');
  return truncated ? `${text}…` : text;
}
