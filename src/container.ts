import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from './config/config.ts';
import { type Database, openDatabase } from './db/database.ts';
import { errors } from './http/errors.ts';
import type { Authenticators } from './http/authenticate.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { JobQueue } from './jobs/job-queue.ts';
import type { JobDefinition } from './jobs/job-types.ts';
import { Worker } from './jobs/worker.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { ApiKeysRepository } from './modules/api-keys/api-keys.repository.ts';
import { ApiKeyAuthenticator } from './modules/auth/api-key-authenticator.ts';
import { TenantsRepository } from './modules/tenants/tenants.repository.ts';
import { TenantsService } from './modules/tenants/tenants.service.ts';
import { UsersRepository } from './modules/users/users.repository.ts';
import type { BlobStore } from './providers/blobs/blob-store.ts';
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
  repositories: { tenants: TenantsRepository; users: UsersRepository; apiKeys: ApiKeysRepository };
  services: { tenants: TenantsService };
  authenticators: Authenticators;
  /** Every job kind of every module: the worker's catalogue. */
  jobDefinitions(): JobDefinition[];
  createWorker(options?: { concurrency?: number }): Worker;
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

export function createContainer(config: Config, options: { logger?: Logger; clock?: Clock } = {}): Container {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const database = openDatabase({ url: config.database.url, dataDir: config.dataDir });
  const jobs = new JobQueue({ database, clock });
  const metrics = createMetrics(() => jobs.countsByKindAndState());
  const blobs = blobStoreFromConfig(config);
  const repositories = { tenants: new TenantsRepository(), users: new UsersRepository(), apiKeys: new ApiKeysRepository() };
  const services = { tenants: new TenantsService({ database, clock, ...repositories }) };
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
    authenticators: {
      adminApiKey,
      apiKey: (key, opts) => apiKeyAuthenticator.authenticate(key, opts),
      userToken: async (_request: FastifyRequest, _token: string) => {
        throw errors.unauthorized('Invalid or expired access token');
      },
    },
    jobDefinitions: () => [],
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
    close: () => database.destroy(),
  };
  return container;
}
