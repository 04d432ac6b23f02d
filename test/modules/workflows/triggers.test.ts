import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { signWebhookBody } from '../../../src/lib/webhook-signature.ts';
import { uploadOk } from '../documents/helpers.ts';
import { jobsSettled, waitFor } from '../../jobs/helpers.ts';
import { ADMIN_KEY, describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { workflowApi } from './helpers.ts';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/main.ts');
const SECRET = 'hook-secret-0123456789';

function spawnWorker(t: TestApp): { child: ChildProcess; exited: Promise<unknown>; ready: Promise<void> } {
  const child = spawn(process.execPath, [MAIN, 'worker'], {
    env: {
      ...process.env,
      DATA_DIR: t.store.dataDir,
      ...(t.store.url ? { DATABASE_URL: t.store.url } : {}),
      ADMIN_API_KEY: ADMIN_KEY,
      WORKER_POLL_INTERVAL_MS: '50',
      JOB_LEASE_MS: '2000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // Its log line once it polls the queue: tests time what the worker does from then, not how long a loaded machine takes to start it.
  const ready = new Promise<void>((resolve, reject) => {
    let out: string | null = '';
    // Read to the end (a full pipe would stop the worker), keeping only what comes before the line.
    child.stdout?.on('data', (chunk: Buffer) => {
      if (out === null) return;
      out += chunk;
      if (out.includes('job worker started')) {
        out = null;
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it started`)));
  });
  ready.catch(() => {}); // a test that kills it before it is ready does not wait on this
  return { child, exited: once(child, 'exit'), ready };
}

async function scheduledRuns(t: TestApp, workflowId: string): Promise<number[]> {
  const rows = await t.container.database.db
    .selectFrom('workflow_executions')
    .select('trigger_data')
    .where('workflow_id', '=', workflowId)
    .where('trigger_type', '=', 'schedule')
    .execute();
  return rows.map((r) => Date.parse(JSON.parse(r.trigger_data).scheduled_for)).sort((a, b) => a - b);
}

/**
 * Webhook and schedule triggers, and the document trigger across a killed worker. The app runs no
 * worker: child processes do (one app per dialect for the four, rather than one for each kind).
 */
describeEachDialect(
  'workflow triggers',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    const children: { child: ChildProcess; exited: Promise<unknown> }[] = [];
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
    });
    after(async () => {
      for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
      await Promise.all(children.map((c) => c.exited));
    });
    const hook = (workflowId: string, body: string, headers: Record<string, string> = {}) =>
      ctx().app.inject({
        method: 'POST',
        url: `/api/v1/dag/hooks/${workflowId}`,
        payload: body,
        headers: { 'content-type': 'application/json', ...headers },
      });

    it('webhook: good, bad and missing signatures, schema errors, only active workflows, retries by delivery id', async () => {
      const id = await api.create({
        name: 'Hooked',
        trigger: {
          type: 'webhook',
          conditions: {
            secret: SECRET,
            validation: {
              type: 'object',
              required: ['order_id'],
              properties: { order_id: { type: 'string' }, total: { type: 'number' } },
            },
          },
        },
        nodes: [{ id: 'echo', type: 'transform', config: { expression: '$trigger' } }],
      });
      const body = JSON.stringify({ order_id: 'o-1', total: 12.5 });
      assertError(
        await hook(id, body, { 'x-service-signature': signWebhookBody(SECRET, body) }),
        404,
        'workflow_not_found',
      );
      assert.equal((await api.call('PUT', `/dag/workflows/${id}`, { status: 'active' })).statusCode, 200);

      const ok = await hook(id, body, { 'x-service-signature': signWebhookBody(SECRET, body) });
      assert.equal(ok.statusCode, 202, ok.body);
      const execution = await api.execution(ok.json().execution_id);
      assert.deepEqual([execution.trigger_type, execution.trigger_data], ['webhook', { order_id: 'o-1', total: 12.5 }]);
      assertError(
        await hook(id, body, { 'x-service-signature': signWebhookBody('another-secret-123', body) }),
        401,
        'unauthorized',
      );
      assertError(await hook(id, body), 401, 'unauthorized');
      assertError(
        await hook(id, body, { 'x-service-signature': signWebhookBody(SECRET, `${body} `) }),
        401,
        'unauthorized',
      );
      const bad = JSON.stringify({ total: 'lots' });
      const invalid = assertError(
        await hook(id, bad, { 'x-service-signature': signWebhookBody(SECRET, bad) }),
        400,
        'validation_error',
      );
      assert.deepEqual(invalid.details.errors.map((e: { field: string }) => e.field).sort(), ['body', 'total']);

      const delivery = { 'x-service-signature': signWebhookBody(SECRET, body), 'x-service-delivery': 'dlv-1' };
      assert.equal((await hook(id, body, delivery)).statusCode, 202);
      assertError(await hook(id, body, delivery), 409, 'conflict');
      const other = await createTenant(ctx(), { tier: 'team' });
      assert.equal(
        (await api.call('GET', `/dag/executions?workflow_id=${id}`, undefined, other.headers)).json().total,
        0,
        "another tenant sees none of the hook's executions",
      );
      assertError(await hook('01a00000-0000-7000-8000-000000000000', body, delivery), 404, 'workflow_not_found');
    });

    it('schedule: exactly one execution per tick with two worker processes', async () => {
      const id = await api.create(
        {
          name: 'Every second',
          trigger: { type: 'schedule', conditions: { cron_expression: '* * * * * *', timezone: 'UTC' } },
          nodes: [{ id: 'tick', type: 'transform', config: { expression: '$trigger.scheduled_for' } }],
        },
        true,
      );
      const workers = [spawnWorker(ctx()), spawnWorker(ctx())];
      children.push(...workers);
      try {
        await Promise.all(workers.map((w) => w.ready));
        await waitFor(async () => (await scheduledRuns(ctx(), id)).length >= 6, 'six ticks', 30_000);
        assert.equal((await api.call('PUT', `/dag/workflows/${id}`, { status: 'paused' })).statusCode, 200);
        // A tick job running when the workflow was paused may still start its execution: wait for it.
        await jobsSettled(ctx().container.database, 30_000);
        const ticks = await scheduledRuns(ctx(), id);
        assert.equal(new Set(ticks).size, ticks.length, 'no tick ran twice');
        // The first tick may run late while the processes start (then the next counts from then); after it, every second.
        for (let i = 2; i < ticks.length; i++)
          assert.equal(
            ticks[i]! - ticks[i - 1]!,
            1_000,
            `ticks are consecutive seconds (${ticks.map((t) => new Date(t).toISOString())})`,
          );
        const settled = ticks.length;
        // Real time passes on purpose: more than one period of the schedule, with nothing fired.
        await new Promise((r) => setTimeout(r, 1_500));
        assert.equal((await scheduledRuns(ctx(), id)).length, settled, 'a paused workflow does not fire');
      } finally {
        for (const w of workers) w.child.kill('SIGKILL');
        await Promise.all(workers.map((w) => w.exited));
      }
    });

    it('schedule: ticks missed while no worker ran fire once on start, not once each', async () => {
      const id = await api.create(
        {
          name: 'Missed',
          trigger: { type: 'schedule', conditions: { cron_expression: '* * * * * *' } },
          nodes: [{ id: 'tick', type: 'transform', config: { expression: '1' } }],
        },
        true,
      );
      await new Promise((r) => setTimeout(r, 3_500));
      assert.equal((await scheduledRuns(ctx(), id)).length, 0);
      const restartedAt = Date.now();
      const worker = spawnWorker(ctx());
      children.push(worker);
      try {
        await waitFor(async () => (await scheduledRuns(ctx(), id)).length >= 3, 'ticks after the restart', 30_000);
        assert.equal((await api.call('PUT', `/dag/workflows/${id}`, { status: 'paused' })).statusCode, 200);
        const ticks = await scheduledRuns(ctx(), id);
        assert.ok(ticks[0]! < restartedAt - 2_000, 'the missed tick ran once');
        assert.ok(
          ticks[1]! > restartedAt - 1_000,
          `the next one is a current tick, not another missed one (${ticks.map((t) => t - restartedAt)})`,
        );
      } finally {
        worker.child.kill('SIGKILL');
        await worker.exited;
      }
    });

    // Uploads into a triggered folder while the worker running the triggers is killed: none lost, none doubled.
    it('document trigger across a killed worker: 40 uploads, kill -9 in the middle, exactly 40 executions', async () => {
      const tenant = await createTenant(ctx(), { tier: 'team' });
      const api = workflowApi(ctx, () => tenant.headers);
      const folder = (await api.call('POST', '/folders', { name: 'Drop' })).json();
      const id = await api.create(
        {
          name: 'Per upload',
          trigger: { type: 'document_upload', conditions: { folder_path: '/Drop' } },
          nodes: [{ id: 'seen', type: 'transform', config: { expression: '$trigger.document_id' } }],
        },
        true,
      );
      const db = ctx().container.database.db;
      const executions = async () =>
        db.selectFrom('workflow_executions').select(['id', 'trigger_data']).where('workflow_id', '=', id).execute();
      const first = spawnWorker(ctx());
      const uploaded: string[] = [];
      let second: ReturnType<typeof spawnWorker> | undefined;
      try {
        for (let i = 0; i < 40; i++) {
          uploaded.push(
            await uploadOk(ctx(), tenant.headers, {
              filename: `f${i}.txt`,
              content: Buffer.from(`file number ${i}\n`),
              fields: { folder_id: folder.id },
            }),
          );
          if (i === 19) {
            await waitFor(async () => (await executions()).length >= 5, 'some executions before the kill', 30_000);
            first.child.kill('SIGKILL');
            await first.exited;
            second = spawnWorker(ctx());
          }
        }
        await waitFor(async () => (await executions()).length >= 40, 'an execution per upload', 90_000);
        // Until the queue is idle: a job the killed worker held runs again once its lease ends, and
        // would add a doubled execution by then.
        await jobsSettled(ctx().container.database, 30_000);
        const rows = await executions();
        assert.equal(rows.length, 40, 'none doubled');
        assert.deepEqual(
          rows.map((r) => JSON.parse(r.trigger_data).document_id).sort(),
          [...uploaded].sort(),
          'none lost',
        );
      } finally {
        for (const w of [first, second]) if (w && w.child.exitCode === null) w.child.kill('SIGKILL');
        await Promise.all([first, second].filter((w) => w !== undefined).map((w) => w!.exited));
      }
    });
  },
  // The dialects side by side: these tests wait on worker processes, schedules and leases, not on the CPU.
  { concurrentDialects: true },
);

/** The document_upload trigger, with the in-process worker processing uploads. */
describeEachDialect(
  'workflow document trigger',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
    });

    it('fires once per matching processed upload with the contract trigger_data; other uploads and tenants do not fire it', async () => {
      const invoices = (await api.call('POST', '/folders', { name: 'Invoices' })).json();
      const year = (await api.call('POST', '/folders', { name: '2025', parent_id: invoices.id })).json();
      const other = (await api.call('POST', '/folders', { name: 'Other' })).json();
      const id = await api.create(
        {
          name: 'On invoice upload',
          trigger: {
            type: 'document_upload',
            conditions: { folder_path: '/Invoices', file_types: ['txt'], metadata: { lines: 1 } },
          },
          nodes: [{ id: 'seen', type: 'transform', config: { expression: '$trigger.filename' } }],
        },
        true,
      );
      const matching = await uploadOk(ctx(), tenant.headers, {
        filename: 'inv-1.txt',
        content: Buffer.from('Invoice 1 total 10'),
        fields: { folder_id: year.id },
      });
      await uploadOk(ctx(), tenant.headers, {
        filename: 'inv-2.csv',
        content: Buffer.from('a,b\n1,2\n'),
        fields: { folder_id: year.id },
      });
      await uploadOk(ctx(), tenant.headers, {
        filename: 'inv-5.txt',
        content: Buffer.from('two\nlines\n'),
        fields: { folder_id: year.id },
      });
      await uploadOk(ctx(), tenant.headers, {
        filename: 'inv-3.txt',
        content: Buffer.from('elsewhere'),
        fields: { folder_id: other.id },
      });
      const stranger = await createTenant(ctx(), { tier: 'team' });
      await uploadOk(ctx(), stranger.headers, { filename: 'inv-4.txt', content: Buffer.from('not yours') });

      const db = ctx().container.database.db;
      const row = await waitFor(
        async () =>
          (await db.selectFrom('workflow_executions').selectAll().where('workflow_id', '=', id).executeTakeFirst()) ??
          false,
        'the triggered execution',
        30_000,
      );
      await waitFor(
        async () =>
          (
            await db
              .selectFrom('documents')
              .select('status')
              .where('tenant_id', '=', tenant.tenantId)
              .where('status', '=', 'processing')
              .execute()
          ).length === 0,
        'processing to settle',
        30_000,
      );
      // Triggers run in the event's publish job: once the queue is idle, every execution they start exists.
      await jobsSettled(ctx().container.database, 30_000);
      const all = await db.selectFrom('workflow_executions').selectAll().where('workflow_id', '=', id).execute();
      assert.equal(all.length, 1, 'only the matching upload fired, once');
      assert.equal(row.trigger_type, 'document_upload');
      const doc = (await api.call('GET', `/documents/${matching}`)).json();
      assert.equal(doc.metadata.lines, 1);
      assert.deepEqual(JSON.parse(row.trigger_data), {
        document_id: matching,
        filename: 'inv-1.txt',
        folder_id: year.id,
        folder_path: '/Invoices/2025',
        file_type: 'txt',
        metadata: doc.metadata,
      });
      const done = await api.finished(row.id);
      assert.equal(done.final_output, 'inv-1.txt');
    });

    it('document_update fires once per change of a watched field under its folder path, with the changed fields', async () => {
      const contracts = (await api.call('POST', '/folders', { name: 'Contracts' })).json();
      const archive = (await api.call('POST', '/folders', { name: 'Archive' })).json();
      const id = await api.create(
        {
          name: 'On contract edits',
          trigger: { type: 'document_update', conditions: { folder_path: '/Contracts', fields: ['filename', 'tags'] } },
          nodes: [{ id: 'seen', type: 'transform', config: { expression: '$trigger.changed_fields' } }],
        },
        true,
      );
      const doc = await uploadOk(ctx(), tenant.headers, {
        filename: 'nda.txt',
        content: Buffer.from('Mutual NDA'),
        fields: { folder_id: contracts.id },
      });
      const elsewhere = await uploadOk(ctx(), tenant.headers, {
        filename: 'misc.txt',
        content: Buffer.from('misc'),
        fields: { folder_id: archive.id },
      });
      const put = async (docId: string, body: unknown) =>
        assert.equal((await api.call('PUT', `/documents/${docId}`, body)).statusCode, 200);
      await put(doc, { filename: 'nda-signed.txt' });
      await put(doc, { filename: 'nda-signed.txt' }); // no change: nothing fires
      await put(elsewhere, { filename: 'misc-2.txt' }); // outside /Contracts
      await put(doc, { tags: ['legal'] });
      // Another tenant's edit in its own /Contracts folder never starts this tenant's workflow.
      const stranger = await createTenant(ctx(), { tier: 'team' });
      const theirFolder = (await api.call('POST', '/folders', { name: 'Contracts' }, stranger.headers)).json();
      const theirs = await uploadOk(ctx(), stranger.headers, {
        filename: 'theirs.txt',
        content: Buffer.from('theirs'),
        fields: { folder_id: theirFolder.id },
      });
      assert.equal(
        (await api.call('PUT', `/documents/${theirs}`, { filename: 'theirs-2.txt' }, stranger.headers)).statusCode,
        200,
      );

      const db = ctx().container.database.db;
      const rows = () =>
        db.selectFrom('workflow_executions').selectAll().where('workflow_id', '=', id).orderBy('started_at').execute();
      await waitFor(async () => (await rows()).length >= 2, 'two triggered executions', 30_000);
      await put(doc, { folder_id: archive.id }); // a field the workflow does not watch, and out of its folder
      await jobsSettled(ctx().container.database, 30_000); // its publish job has run
      const all = await rows();
      assert.equal(all.length, 2, 'one execution per watched change');
      assert.ok(all.every((r) => r.trigger_type === 'document_update'));
      const data = all.map((r) => JSON.parse(r.trigger_data));
      assert.deepEqual(data.map((d) => d.changed_fields).sort(), [['filename'], ['tags']]);
      assert.ok(data.every((d) => d.document_id === doc && d.folder_path === '/Contracts'));
      const done = await api.finished(all[0]!.id);
      assert.ok(Array.isArray(done.final_output));
    });
  },
  // Side by side as well: the uploads' processing runs on the in-process worker, which mostly waits for its next poll.
  { worker: true, concurrentDialects: true },
);
