import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config/config.ts';
import { type Database, openDatabase } from './db/database.ts';
import type { Authenticators } from './http/authenticate.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { JobQueue } from './jobs/job-queue.ts';
import type { JobDefinition } from './jobs/job-types.ts';
import { type RecurringJob, recurringDefinition, seedRecurring } from './jobs/recurring.ts';
import { Worker } from './jobs/worker.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { ApiKeysRepository } from './modules/api-keys/api-keys.repository.ts';
import { ApiKeyAuthenticator } from './modules/auth/api-key-authenticator.ts';
import { createIdentity, type Identity } from './modules/auth/identity.ts';
import { CorsOrigins } from './http/cors.ts';
import { IdempotencyRepository } from './http/idempotency.repository.ts';
import type { IdempotencyDeps } from './http/idempotency.ts';
import type { RateLimitDeps } from './http/rate-limit.ts';
import { MemoryRateLimitStore, RedisRateLimitStore } from './http/rate-limit-store.ts';
import { createDocumentsModule, type DocumentsModule } from './modules/documents/documents.module.ts';
import { sandboxResetJob } from './modules/sandbox/sandbox-reset.ts';
import { TenantsRepository } from './modules/tenants/tenants.repository.ts';
import { TenantsService } from './modules/tenants/tenants.service.ts';
import { UsersRepository } from './modules/users/users.repository.ts';
import type { BlobStore } from './providers/blobs/blob-store.ts';
import { blobMaintenanceJobs } from './providers/blobs/blob-maintenance.ts';
import { blobStoreFromConfig } from './providers/blobs/create-blob-store.ts';

/** A logger shape both pino and tests satisfy. */
export interface Logger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  debug(obj: unknown, msg?: string): void;
}

/**
 * The composition root: config -> database -> providers -> repositories -> services, built once
 * and handed explicitly to routes and job handlers (the worker has no Fastify instance).
 */
export interface Container {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  blobs: BlobStore;
  jobs: JobQueue;
  adminApiKey: string;
  repositories: { tenants: TenantsRepository; users: UsersRepository; apiKeys: ApiKeysRepository } & Identity['repositories'] &
    DocumentsModule['repositories'];
  services: { tenants: TenantsService } & Identity['services'] & DocumentsModule['services'];
  /** Identity internals (signing keys, token services), for tests and tooling. */
  identity: Identity;
  /** What the HTTP guards (CORS, rate limits, idempotency) run on. */
  guards: { cors: CorsOrigins; rateLimit: RateLimitDeps; idempotency: IdempotencyDeps };
  authenticators: Authenticators;
  /** Every job kind of every module: the worker's catalogue. */
  jobDefinitions(): JobDefinition[];
  createWorker(options?: { concurrency?: number }): Worker;
  /** Makes sure each recurring job (e.g. the sandbox reset) has its next run scheduled. */
  seedRecurringJobs(): Promise<void>;
  close(): Promise<void>;
}

/** The administrator key: configured, or generated once and kept under DATA_DIR (contract §1). */
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

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };

export async function createContainer(config: Config, options: { logger?: Logger; clock?: Clock } = {}): Promise<Container> {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const database = openDatabase({ url: config.database.url, dataDir: config.dataDir });
  const jobs = new JobQueue({ database, clock });
  const metrics = createMetrics(() => jobs.countsByKindAndState());
  const blobs = await blobStoreFromConfig(config);
  const coreRepositories = { tenants: new TenantsRepository(), users: new UsersRepository(), apiKeys: new ApiKeysRepository() };
  const corsOrigins = new CorsOrigins({ database, clock, tenants: coreRepositories.tenants });
  const tenantsService = new TenantsService({ database, clock, ...coreRepositories, onTenantChanged: () => corsOrigins.invalidate() });
  const rateLimitStore = config.redisUrl ? new RedisRateLimitStore(config.redisUrl) : new MemoryRateLimitStore(() => clock.now());
  const guards: Container['guards'] = {
    cors: corsOrigins,
    rateLimit: {
      store: rateLimitStore,
      clock,
      database,
      tenants: coreRepositories.tenants,
      logger,
      keyPrefix: config.rateLimit.redisKeyPrefix,
      enabled: config.rateLimit.enabled,
      anonymousPerMinute: config.rateLimit.anonymousPerMinute,
    },
    idempotency: { database, clock, repository: new IdempotencyRepository(), logger },
  };
  const identity = createIdentity({ config, database, clock, ...coreRepositories, tenantsService });
  const documentsModule = createDocumentsModule({ database, clock, jobs, blobs });
  const repositories = { ...coreRepositories, ...identity.repositories, ...documentsModule.repositories };
  const recurringJobs: RecurringJob[] = [
    sandboxResetJob({ database, clock, jobs, documents: documentsModule.repositories.documents }),
    ...blobMaintenanceJobs(blobs),
  ];
  const jobDefinitions: JobDefinition[] = [
    ...documentsModule.jobDefinitions,
    ...recurringJobs.map((job) => recurringDefinition({ queue: jobs, database, clock }, job)),
  ];
  const services = { tenants: tenantsService, ...identity.services, ...documentsModule.services };
  const adminApiKey = resolveAdminApiKey(config, logger);
  const apiKeyAuthenticator = new ApiKeyAuthenticator({ database, clock, apiKeys: repositories.apiKeys, tenants: repositories.tenants });

  const container: Container = {
    config,
    database,
    clock,
    logger,
    metrics,
    blobs,
    jobs,
    adminApiKey,
    repositories,
    services,
    identity,
    guards,
    authenticators: {
      adminApiKey,
      apiKey: (key, opts) => apiKeyAuthenticator.authenticate(key, opts),
      userToken: (request, token) => identity.userTokens.authenticate(request, token),
      csrf: (request, auth) => identity.userTokens.checkCsrf(request, auth),
    },
    jobDefinitions: () => jobDefinitions,
    seedRecurringJobs: () => seedRecurring(jobs, database, recurringJobs, clock.now()),
    createWorker(opts = {}) {
      return new Worker({
        database,
        queue: jobs,
        definitions: container.jobDefinitions(),
        clock,
        logger,
        concurrency: opts.concurrency ?? config.worker.concurrency,
        pollIntervalMs: config.worker.pollIntervalMs,
        leaseMs: config.worker.leaseMs,
        onJobFinished: (kind, outcome) => metrics.jobRuns.inc({ kind, outcome }),
      });
    },
    close: async () => {
      await rateLimitStore.close();
      await database.destroy();
    },
  };
  // API-only processes enqueue too: they must know each kind's retry limits, not just workers.
  jobs.register(jobDefinitions);
  return container;
}
