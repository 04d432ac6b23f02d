import { Counter, Histogram, type Registry } from 'prom-client';
import { defineJob } from '../../jobs/job-types.ts';
import { defineModule } from '../../platform/module.ts';
import { outboundHttpFromConfig } from '../../providers/outbound/outbound-from-config.ts';
import { checkUrlTarget } from '../../providers/outbound/outbound-http.ts';
import { DeliveriesRepository } from './deliveries.repository.ts';
import { DELIVER_JOB } from './delivery-jobs.ts';
import { type DeliveryMetrics, DeliveryRunner } from './delivery-runner.ts';
import { EndpointLimiter } from './endpoint-limiter.ts';
import { webhookFanOut } from './fan-out.ts';
import { loadSecretBoxKey, SecretBox } from './secret-box.ts';
import { WebhooksRepository } from './webhooks.repository.ts';
import { webhookRoutes } from './webhooks.routes.ts';
import { WebhooksService } from './webhooks.service.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    webhooks: WebhooksService;
  }
}

/**
 * Webhooks (docs/webhooks.md): the API to manage them, the fan-out of every recorded event to the
 * webhooks subscribed to it, and delivery as durable `webhooks.deliver` jobs through the guarded
 * outbound client: signed, retried on the schedule, logged per attempt, limited per endpoint.
 */
export const webhooksModule = defineModule({
  name: 'webhooks',
  setup({ config, database, clock, logger, jobs, metrics }) {
    const allowPrivateNetwork = config.allowPrivateNetworkTargets;
    const http = outboundHttpFromConfig(config, {
      connectionsPerOrigin: Math.max(8, 2 * config.webhooks.maxConcurrencyPerEndpoint),
    });
    const webhooks = new WebhooksRepository();
    const deliveries = new DeliveriesRepository();
    const secrets = new SecretBox(() => loadSecretBoxKey(database.db, clock.now()));
    const service = new WebhooksService({
      database,
      clock,
      jobs,
      webhooks,
      deliveries,
      secrets,
      checkUrl: (url) => checkUrlTarget(url, { allowPrivateNetwork, httpsOnly: true }),
    });
    const limiter = new EndpointLimiter();
    const runner = new DeliveryRunner({
      database,
      clock,
      logger,
      jobs,
      http,
      secrets,
      webhooks,
      deliveries,
      limiter,
      settings: config.webhooks,
      metrics: deliveryMetrics(metrics.registry),
    });
    const deliver = defineJob({
      kind: DELIVER_JOB,
      handler: (job) => runner.run(job),
      // Retries of the job itself are for database trouble; failed HTTP attempts are retried on
      // the webhook schedule as new attempts, never by failing the job.
      maxAttempts: 5,
      backoff: { baseMs: 1_000, maxMs: 60_000 },
      timeoutMs: 30_000,
    });
    return {
      provides: { webhooks: service },
      routes(app) {
        webhookRoutes(app, { webhooks: service });
      },
      jobs: [deliver],
      onEvent: webhookFanOut({ database, clock, jobs, webhooks, deliveries, runner, limiter }),
      async sandboxCleanup(trx, tenantId) {
        await webhooks.deleteForTenant(trx, tenantId);
      },
      close: () => http.close(),
    };
  },
});

function deliveryMetrics(registry: Registry): DeliveryMetrics {
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const skipped = new Counter({
    name: 'webhook_deliveries_skipped_total',
    help: 'Webhook delivery runs that sent nothing: deferred (circuit open, endpoint busy) or cancelled',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'Duration of webhook delivery attempts',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return {
    attempt(outcome, durationMs) {
      attempts.inc({ outcome });
      duration.observe(durationMs / 1000);
    },
    skipped(reason) {
      skipped.inc({ reason });
    },
  };
}
