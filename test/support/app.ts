import { after, before, describe } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { type Container, createContainer } from '../../src/container.ts';
import type { DialectName } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import type { App } from '../../src/http/fastify-types.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { ModuleDefinition } from '../../src/platform/module.ts';
import { availableDialects, createTestStore, type TestStore } from './databases.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789';

/** The dialects this run covers, known at load time so suites can be declared per dialect. */
export const DIALECTS: DialectName[] = await availableDialects();

export interface TestApp {
  dialect: DialectName;
  app: App;
  container: Container;
  store: TestStore;
  worker: Worker | null;
  /** `app.inject` with the administrator key. */
  admin(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Extra environment for loadConfig (e.g. BLOB_STORE=s3). */
  env?: Record<string, string>;
  /** Start a job worker in the test process. */
  worker?: boolean;
  /** The container's clock (default: the system clock). */
  clock?: Clock;
  /** The module list (default: every module of the service). */
  modules?: readonly ModuleDefinition[];
  /** Capture the service's log (every level) here, through the same logger `npm start` uses; default: no logging. */
  logDestination?: { write(line: string): void };
}

/**
 * A real app on a fresh store of the dialect: migrated database, temp data folder, no listening.
 * `store`: one already being created for it (see describeEachDialect), else a new one.
 */
export async function startTestApp(
  dialect: DialectName,
  options: TestAppOptions = {},
  store: Promise<TestStore> = createTestStore(dialect, { migrated: true }),
): Promise<TestApp> {
  return startOnStore(dialect, options, await store);
}

async function startOnStore(dialect: DialectName, options: TestAppOptions, store: TestStore): Promise<TestApp> {
  const config = loadConfig({
    DATA_DIR: store.dataDir,
    ...(store.url ? { DATABASE_URL: store.url } : {}),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    WORKER_POLL_INTERVAL_MS: '50',
    ...options.env,
  });
  const logger = options.logDestination ? createLogger({ level: 'trace', destination: options.logDestination }) : null;
  const container = await createContainer(config, {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.modules ? { modules: options.modules } : {}),
    ...(logger ? { logger } : {}),
  });
  await migrateToLatest(container.database.db);
  const app = await buildApp(container, { logger: logger ?? false });
  await app.ready();
  const worker = options.worker ? container.createWorker() : null;
  worker?.start();
  return {
    dialect,
    app,
    container,
    store,
    worker,
    admin: (opts) => app.inject({ ...opts, headers: { authorization: `Bearer ${ADMIN_KEY}`, ...opts.headers } }),
    async close() {
      await app.close();
      await worker?.stop(2_000);
      await container.close();
      await store.drop();
    },
  };
}

/**
 * Declares `body` once per available dialect, each with its own fresh app
 * (the Kysely habit: one suite, every dialect).
 *
 * `concurrentDialects`: the dialects' suites run side by side instead of one after the other (their
 * tests still run in order within each). For files that spend their time waiting on worker
 * processes, leases, timers and schedules rather than on the CPU: the file then takes about as long
 * as its slower dialect instead of the sum of both. Only where each dialect's suite shares nothing
 * mutable with the other (module-level state, process.env, a fixed port). `TEST_DIALECTS_IN_TURN=1`
 * runs them one after the other anyway (to tell a timing flake from a failure, or to compare).
 */
export function describeEachDialect(
  name: string,
  body: (ctx: () => TestApp, dialect: DialectName) => void,
  options: TestAppOptions & {
    concurrentDialects?: boolean;
    /** Environment for one dialect's app, over `env` (e.g. the URL of a fake server of that dialect's own). */
    dialectEnv?: (dialect: DialectName) => Record<string, string>;
  } = {},
): void {
  const { concurrentDialects, dialectEnv, ...appOptions } = options;
  const stores = new Map<DialectName, Promise<TestStore>>();
  const storeOf = (dialect: DialectName): Promise<TestStore> => {
    let store = stores.get(dialect);
    if (!store) {
      store = createTestStore(dialect, { migrated: true });
      store.catch(() => {}); // awaited (and its error reported) by the suite that uses it
      stores.set(dialect, store);
    }
    return store;
  };
  const declare = () => {
    DIALECTS.forEach((dialect, index) => {
      // Concurrency 1 said outright: a suite inherits its parent's, and its tests share one app.
      describe(`${name} [${dialect}]`, { concurrency: 1 }, () => {
        let ctx: TestApp | undefined;
        before(async () => {
          const store = storeOf(dialect);
          // The next dialect's store is made while this suite runs, not when its own starts: a
          // PostgreSQL CREATE DATABASE … TEMPLATE waits on the server and the disk (~0.5 s quiet,
          // seconds when other processes write), time the SQLite suite's work now covers.
          const next = DIALECTS[index + 1];
          if (next) storeOf(next);
          ctx = await startTestApp(
            dialect,
            { ...appOptions, env: { ...appOptions.env, ...dialectEnv?.(dialect) } },
            store,
          );
        });
        after(async () => {
          await ctx?.close();
        });
        body(() => {
          if (!ctx) throw new Error('test app not started');
          return ctx;
        }, dialect);
      });
    });
  };
  if (concurrentDialects && DIALECTS.length > 1 && !process.env.TEST_DIALECTS_IN_TURN)
    describe(name, { concurrency: DIALECTS.length }, declare);
  else declare();
}
