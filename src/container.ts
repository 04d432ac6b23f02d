import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config/config.ts';
import { openDatabase } from './db/database.ts';
import type { Authenticators } from './http/authenticate.ts';
import { CorsOrigins } from './http/cors.ts';
import { IdempotencyRepository } from './http/idempotency.repository.ts';
import type { IdempotencyDeps } from './http/idempotency.ts';
import { createMetrics } from './http/metrics.ts';
import type { RateLimitDeps } from './http/rate-limit.ts';
import { MemoryRateLimitStore, RedisRateLimitStore } from './http/rate-limit-store.ts';
import { EventLog } from './events/event-log.ts';
import { JobQueue } from './jobs/job-queue.ts';
import type { JobDefinition } from './jobs/job-types.ts';
import { recurringDefinition, seedRecurring } from './jobs/recurring.ts';
import { Worker } from './jobs/worker.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { type Logger, silentLogger } from './lib/logger.ts';
import { MODULES } from './modules.ts';
import { type AssembledModules, assembleModules } from './platform/assemble-modules.ts';
import type { ModuleDefinition, Platform } from './platform/module.ts';
import { blobMaintenanceJobs } from './providers/blobs/blob-maintenance.ts';
import { blobStoreFromConfig } from './providers/blobs/create-blob-store.ts';
import { TenantRoutingBlobStore } from './providers/blobs/tenant-routing-blob-store.ts';

/**
 * The composition root: config -> database -> platform (blobs, jobs, metrics) -> modules, built
 * once and handed explicitly to the HTTP app and the worker (the worker has no Fastify instance).
 */
export interface Container extends Platform {
  adminApiKey: string;
  /** Every module, set up in order: `modules.use('documents')` reaches a module's published service. */
  modules: AssembledModules;
  /** What the HTTP guards (CORS, rate limits, idempotency) run on. */
  guards: { cors: CorsOrigins; rateLimit: RateLimitDeps; idempotency: IdempotencyDeps };
  authenticators: Authenticators;
  /** Every job kind of every module: the worker's catalogue. */
  jobDefinitions(): readonly JobDefinition[];
  createWorker(options?: { concurrency?: number }): Worker;
  /** Makes sure each recurring job (e.g. the sandbox reset) has its next run scheduled. */
  seedRecurringJobs(): Promise<void>;
  close(): Promise<void>;
}

/** The administrator key: configured, or generated once and kept under DATA_DIR (docs/api-decisions.md §1). */
function resolveAdminApiKey(config: Config, logger: Logger): string {
  if (config.adminApiKey) return config.adminApiKey;
  const file = path.join(config.dataDir, 'admin-api-key');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(config.dataDir, { recursive: true });
    const key = `adm_${randomBytes(32).toString('base64url')}`;
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    // Printed once, on the start that created it; later starts read the file.
    process.stdout.write(`\nGenerated ADMIN_API_KEY (stored in ${file}):\n  ${key}\n\n`);
    logger.info({ file }, 'generated the administrator API key');
    return key;
  }
}

export interface ContainerOptions {
  logger?: Logger;
  clock?: Clock;
  /** The module list (default: every module of the service); tests add their own. */
  modules?: readonly ModuleDefinition[];
}

export async function createContainer(config: Config, options: ContainerOptions = {}): Promise<Container> {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const database = openDatabase({
    url: config.database.url,
    dataDir: config.dataDir,
    preparedStatements: config.database.preparedStatements,
  });
  const jobs = new JobQueue({ database, clock });
  const metrics = createMetrics(() => jobs.countsByKindAndState());
  // Each tenant's blobs go to its storage provider (the storage module installs the routing).
  const blobs = new TenantRoutingBlobStore(await blobStoreFromConfig(config));
  const events = new EventLog({ jobs, clock });
  const rateLimitStore = config.redisUrl
    ? new RedisRateLimitStore(config.redisUrl)
    : new MemoryRateLimitStore(() => clock.now());
  const modules = await assembleModules(
    { config, database, clock, logger, metrics, blobs, jobs, events, rateLimitStore },
    options.modules ?? MODULES,
  );
  events.setSubscribers(modules.eventSubscribers);

  const tenantDirectory = modules.use('tenantDirectory');
  const cors = new CorsOrigins({ clock, tenants: tenantDirectory });
  modules.use('tenantChanges').subscribe(() => cors.invalidate());
  const guards: Container['guards'] = {
    cors,
    rateLimit: {
      store: rateLimitStore,
      clock,
      logger,
      keyPrefix: config.rateLimit.redisKeyPrefix,
      enabled: config.rateLimit.enabled,
      anonymousPerMinute: config.rateLimit.anonymousPerMinute,
      onStoreFailure: config.rateLimit.onStoreFailure,
      unlimitedTierPerMinute: config.rateLimit.unlimitedTierPerMinute,
      onStoreError: (outcome) => metrics.rateLimitStoreErrors.inc({ outcome }),
    },
    idempotency: { database, clock, repository: new IdempotencyRepository(), logger },
  };
  const recurringJobs = [...modules.recurring, ...blobMaintenanceJobs(blobs.shared)];
  const jobDefinitions: JobDefinition[] = [
    ...modules.jobs,
    events.publishJob(database),
    ...recurringJobs.map((job) => recurringDefinition({ queue: jobs, database, clock }, job)),
  ];
  const adminApiKey = resolveAdminApiKey(config, logger);

  const container: Container = {
    config,
    database,
    clock,
    logger,
    metrics,
    blobs,
    jobs,
    events,
    rateLimitStore,
    adminApiKey,
    modules,
    guards,
    authenticators: { adminApiKey, ...modules.use('authenticators') },
    jobDefinitions: () => jobDefinitions,
    seedRecurringJobs: () => seedRecurring(jobs, database, recurringJobs, clock.now()),
    createWorker(opts = {}) {
      return new Worker({
        database,
        queue: jobs,
        definitions: jobDefinitions,
        clock,
        logger,
        concurrency: opts.concurrency ?? config.worker.concurrency,
        pollIntervalMs: config.worker.pollIntervalMs,
        leaseMs: config.worker.leaseMs,
        onJobFinished: (kind, outcome, seconds) => {
          metrics.jobRuns.inc({ kind, outcome });
          metrics.jobRunSeconds.observe({ kind, outcome }, seconds);
        },
      });
    },
    close: async () => {
      await modules.close();
      await rateLimitStore.close();
      await database.destroy();
    },
  };
  // API-only processes enqueue too: they must know each kind's retry limits, not just workers.
  jobs.register(jobDefinitions);
  return container;
}
