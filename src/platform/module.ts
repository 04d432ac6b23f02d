import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import type { EventSchemas } from '../events/event-catalogue.ts';
import type { EventLog, EventSubscriber } from '../events/event-log.ts';
import type { App } from '../http/fastify-types.ts';
import type { Metrics } from '../http/metrics.ts';
import type { RateLimitStore } from '../http/rate-limit-store.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { DeclaredJobDefinition } from '../jobs/job-types.ts';
import type { RecurringJob } from '../jobs/recurring.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { BlobStore } from '../providers/blobs/blob-store.ts';
import type { TestSeams } from './test-seams.ts';

/** The shared infrastructure every module is built on, made once by the composition root. */
export interface Platform {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  blobs: BlobStore;
  jobs: JobQueue;
  /** The one way to emit an event: `events.record(trx, {...})` inside the change's transaction. */
  events: EventLog;
  /** Counters shared by every API process (Redis with REDIS_URL, else in memory): rate limits, sign-in failures. */
  rateLimitStore: RateLimitStore;
}

/**
 * The services modules publish to each other, by name. A module adds its own entries from its
 * `index.ts`, so `use('folders')` is typed without a central list:
 *
 * ```ts
 * declare module '../../platform/module.ts' {
 *   interface ModuleServices { folders: FoldersService }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from each module's entry.
export interface ModuleServices {}

/** What a module's `setup` receives: the platform, and the services of the modules listed before it. */
export interface ModuleContext extends Platform {
  /** A service another module published; that module must come earlier in the module list. */
  use<K extends keyof ModuleServices>(name: K): ModuleServices[K];
  /** Every module's sandbox clean-up, dependents first (read when a reset runs, not at setup). */
  sandboxCleanups(): readonly SandboxCleanup[];
  /** What every module reports it can do on this machine (read when asked, not at setup). */
  capabilities(): Record<string, unknown>;
}

/** Deletes one tenant's rows of a module inside the sandbox reset's transaction (docs/api-decisions.md §5: 7-day reset). */
export type SandboxCleanup = (trx: Executor, tenantId: string) => Promise<void>;

/** What a module contributes. Every part is optional: a module declares only what it has. */
export interface ModuleParts {
  /** Services for other modules (`use(name)`), and for the composition root. */
  provides?: Partial<ModuleServices>;
  /** Services for tests only (src/platform/test-seams.ts): not published, no module can `use()` them. */
  testSeams?: Partial<TestSeams>;
  /** Routes under `/api/v1` (and the sandbox prefix). Each route declares its auth and rate-limit class in `config`. */
  routes?: (app: App) => void | Promise<void>;
  /** Routes outside `/api/v1` (health probes, metrics). */
  rootRoutes?: (app: App) => void | Promise<void>;
  /** Job kinds this module's worker side runs (`<module>.<verb>`), each declared in its `<module>.jobs.ts`. */
  jobs?: readonly DeclaredJobDefinition[];
  /** Jobs run on a fixed period, once per tick across every process. */
  recurring?: readonly RecurringJob[];
  /** The data schemas of the events this module emits (its `<module>.events.ts`): the OpenAPI document's webhook payloads. */
  eventSchemas?: EventSchemas;
  /** Reacts to every recorded event after its transaction committed (at least once: be idempotent). */
  onEvent?: EventSubscriber;
  /** Removes this module's tenant data when a sandbox is reset. */
  sandboxCleanup?: SandboxCleanup;
  /** What this module can do on this machine (OCR, transcription...), for `GET /health`. */
  capabilities?: () => Record<string, unknown>;
  /** Releases what the module holds (threads, connections) when the process stops. */
  close?: () => Promise<void>;
}

/** One feature area: a name and a setup that builds its services from what it needs. */
export interface ModuleDefinition {
  name: string;
  setup(context: ModuleContext): ModuleParts | Promise<ModuleParts>;
}

/** Declares a module (an identity function that keeps the literal typed). */
export function defineModule(definition: ModuleDefinition): ModuleDefinition {
  return definition;
}
