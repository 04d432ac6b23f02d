import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { RecurringTick, RunningJob } from '../../../src/jobs/job-types.ts';
import { type RecurringJob, seedRecurring } from '../../../src/jobs/recurring.ts';
import { SANDBOX_RETENTION_MS } from '../../../src/modules/sandbox/sandbox-reset.ts';
import { uploadOk } from '../documents/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';

// A recurring kind of the test's own.
declare module '../../../src/jobs/job-types.ts' {
  interface JobPayloads {
    'test.recurring': RecurringTick;
  }
}

let now = Date.now();
const clock = { now: () => now };

function runningJob(tick: number): RunningJob<{ tick: number }> {
  return {
    id: 'j',
    kind: 'sandbox.reset_due',
    payload: { tick },
    attempt: 1,
    maxAttempts: 3,
    tenantId: null,
    priority: 0,
    signal: new AbortController().signal,
    completeIn: async () => {},
  };
}

describeEachDialect(
  'sandbox reset every 7 days',
  (ctx) => {
    it('clears only sandbox data whose 7 days are up, keeps keys and live data, and schedules the next check', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const sandbox = { 'x-api-key': tenant.testApiKey };
      const liveDoc = await uploadOk(t, tenant.headers);
      const sandboxDoc = await uploadOk(t, sandbox, { url: '/sandbox/api/v1/documents/upload' });
      const folder = await t.app.inject({
        method: 'POST',
        url: '/sandbox/api/v1/folders',
        headers: sandbox,
        payload: { name: 'Scratch' },
      });
      assert.equal(folder.statusCode, 201, folder.body);

      const definition = t.container.jobDefinitions().find((d) => d.kind === 'sandbox.reset_due');
      assert.ok(definition, 'the reset check is in the job catalogue');
      const hour = 60 * 60 * 1000;

      // Six days on: nothing is due.
      now += 6 * 24 * hour;
      await definition.handler(runningJob(Math.floor(now / hour)));
      const stillThere = await t.app.inject({
        method: 'GET',
        url: `/sandbox/api/v1/documents/${sandboxDoc}`,
        headers: sandbox,
      });
      assert.equal(stillThere.statusCode, 200);

      // Past seven days: the sandbox is cleared.
      now += 2 * 24 * hour;
      const tick = Math.floor(now / hour);
      await definition.handler(runningJob(tick));
      const gone = await t.app.inject({
        method: 'GET',
        url: `/sandbox/api/v1/documents/${sandboxDoc}`,
        headers: sandbox,
      });
      assert.equal(gone.statusCode, 404);
      const folders = await t.app.inject({ method: 'GET', url: '/sandbox/api/v1/folders', headers: sandbox });
      assert.deepEqual(folders.json().folders, []);
      // The test key still works and the live document is untouched.
      const list = await t.app.inject({ method: 'GET', url: '/sandbox/api/v1/documents', headers: sandbox });
      assert.equal(list.statusCode, 200);
      assert.equal(list.json().total, 0);
      const live = await t.app.inject({ method: 'GET', url: `/api/v1/documents/${liveDoc}`, headers: tenant.headers });
      assert.equal(live.statusCode, 200);

      // The sandbox's bytes are queued for deletion, and the next hourly check is scheduled once.
      const db = t.container.database.db;
      const deletions = await db
        .selectFrom('jobs')
        .select('payload')
        .where('kind', '=', 'documents.delete_blob')
        .execute();
      assert.ok(deletions.some((j) => j.payload.includes(sandboxDoc)));
      assert.ok(!deletions.some((j) => j.payload.includes(liveDoc)));
      const next = await db
        .selectFrom('jobs')
        .selectAll()
        .where('kind', '=', 'sandbox.reset_due')
        .where('state', '=', 'available')
        .execute();
      assert.ok(next.some((j) => j.run_at === (tick + 1) * hour));

      // Cleared just now: not due again until another 7 days pass.
      const cleared = await db
        .selectFrom('tenants')
        .select('sandbox_cleared_at')
        .where('sandbox_of', '=', tenant.tenantId)
        .executeTakeFirstOrThrow();
      assert.equal(cleared.sandbox_cleared_at, now);
      assert.ok(SANDBOX_RETENTION_MS === 7 * 24 * hour);
    });

    it('seeding from several processes yields one job per tick', async () => {
      const t = ctx();
      const definitions: RecurringJob[] = [{ kind: 'test.recurring', everyMs: 60_000, run: async () => {} }];
      // Two processes starting a second apart within one minute (not across a minute boundary,
      // where they rightly seed two different ticks).
      const at = Math.floor(now / 60_000) * 60_000 + 10_000;
      await seedRecurring(t.container.jobs, t.container.database, definitions, at);
      await seedRecurring(t.container.jobs, t.container.database, definitions, at + 1_000);
      const rows = await t.container.database.db
        .selectFrom('jobs')
        .selectAll()
        .where('kind', '=', 'test.recurring')
        .execute();
      assert.equal(rows.length, 1);
    });
  },
  { clock },
);
