import assert from 'node:assert/strict';
import { buildApp } from '../../../../src/app.ts';
import { loadConfig } from '../../../../src/config/config.ts';
import { createContainer } from '../../../../src/container.ts';
import type { DialectName } from '../../../../src/db/database.ts';
import { migrateToLatest } from '../../../../src/db/migrator.ts';
import { ADMIN_KEY, type TestApp } from '../../../support/app.ts';
import { createTestStore } from '../../../support/databases.ts';
import { testSeam } from '../../../support/test-seams.ts';

/**
 * Two API "processes" on one store: two containers (each its own database pool or SQLite
 * connection, its own credential cache and change feed) and two apps, as two processes of a
 * deployment would have. Fixtures take either as a TestApp.
 */
export async function startTwoApps(
  dialect: DialectName,
  env: Record<string, string> = {},
): Promise<{ a: TestApp; b: TestApp; close(): Promise<void> }> {
  const store = await createTestStore(dialect);
  const config = loadConfig({
    DATA_DIR: store.dataDir,
    ...(store.url ? { DATABASE_URL: store.url } : {}),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    WORKER_IN_PROCESS: 'false',
    ...env,
  });
  const make = async (): Promise<TestApp> => {
    const container = await createContainer(config);
    await migrateToLatest(container.database.db);
    const app = await buildApp(container, { logger: false });
    await app.ready();
    return {
      dialect,
      app,
      container,
      store,
      worker: null,
      admin: (opts) => app.inject({ ...opts, headers: { authorization: `Bearer ${ADMIN_KEY}`, ...opts.headers } }),
      async close() {
        await app.close();
        await container.close();
      },
    };
  };
  const a = await make();
  const b = await make();
  return {
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await store.drop();
    },
  };
}

export function cacheStats(t: TestApp) {
  return testSeam(t.container, 'credentialCache').stats();
}

/** Waits (up to 3 s) until the process's change feed is live, so its cache is in use. */
export async function untilLive(t: TestApp): Promise<void> {
  const until = Date.now() + 3_000;
  while (!cacheStats(t).live) {
    assert.ok(Date.now() < until, 'the identity change feed never became live');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Makes sure `request` is answered from the process's credential cache: once the feed is live and
 * the credential was looked up, the next request must be a cache hit. Returns that answer.
 */
export async function warm<T extends { statusCode: number; body: string }>(
  t: TestApp,
  request: () => Promise<T>,
  status = 200,
): Promise<T> {
  // The first authentication starts the process's change feed; until it is live the cache is bypassed.
  const first = await request();
  assert.equal(first.statusCode, status, first.body);
  await untilLive(t);
  assert.equal((await request()).statusCode, status);
  const before = cacheStats(t).hits;
  const second = await request();
  assert.equal(second.statusCode, status, second.body);
  assert.ok(cacheStats(t).hits > before, 'the second request was answered from the credential cache');
  return second;
}

/**
 * Repeats `request` until `accept` holds, and returns how long that took from `since` (ms).
 * Fails when it takes more than `limitMs`.
 */
export async function within<T extends { statusCode: number; body: string }>(
  since: number,
  request: () => Promise<T>,
  accept: (res: T) => boolean,
  limitMs = 1_000,
): Promise<number> {
  for (;;) {
    const res = await request();
    const elapsed = performance.now() - since;
    if (accept(res)) return elapsed;
    assert.ok(elapsed < limitMs, `still ${res.statusCode} ${res.body} after ${Math.round(elapsed)} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
