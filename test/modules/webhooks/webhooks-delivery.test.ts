import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, it } from 'node:test';
import { PUBLISH_EVENT_JOB } from '../../../src/events/event-log.ts';
import { newId } from '../../../src/lib/ids.ts';
import { DELIVER_JOB, FAILING_ENDPOINT_PRIORITY } from '../../../src/modules/webhooks/delivery-jobs.ts';
import { uploadOk } from '../documents/helpers.ts';
import { jobsSettled, waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { httpsReceiverUnavailable, startHttpsReceiver } from '../../support/https-receiver.ts';
import {
  createWebhook,
  deliveries,
  header,
  requestsTo,
  signatureValid,
  sleep,
  uniquePath,
  waitForRequests,
} from './helpers.ts';

// Deliveries end to end: real events (a document upload), the real worker and the guarded client,
// to a real HTTPS server on localhost whose certificate the client trusts via OUTBOUND_EXTRA_CA_FILE.

const unavailable = httpsReceiverUnavailable();
if (unavailable) throw new Error(unavailable);
const receiver = await startHttpsReceiver();
after(() => receiver.close());

/** A 127.0.0.1 port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const ENV = {
  ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
  OUTBOUND_EXTRA_CA_FILE: receiver.caFile,
  // Two quick retries, then a third far away (it stays pending: the pause test cancels it).
  WEBHOOK_RETRY_DELAYS: '0.2,0.2,30',
};

describeEachDialect(
  'webhooks: delivery',
  (ctx) => {
    it('delivers a document upload as a signed document.uploaded in the general envelope', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const path = uniquePath('upload');
      const hook = await createWebhook(t, tenant, `${receiver.url}${path}`, ['document.uploaded']);
      const documentId = await uploadOk(t, tenant.headers, {
        filename: 'hello.txt',
        content: Buffer.from('hello webhooks\n'),
      });

      const [request] = await waitForRequests(receiver, path, 1);
      assert.ok(request);
      assert.equal(request.method, 'POST');
      assert.ok(signatureValid(request, hook.secret), 'the receiver’s own HMAC check passes');
      assert.ok(!signatureValid(request, 'whsec_wrong'), 'and fails with another secret');
      assert.match(header(request, 'x-service-signature'), /^sha256=[0-9a-f]{64}$/);
      assert.equal(header(request, 'content-type'), 'application/json');
      assert.equal(header(request, 'x-service-event'), 'document.uploaded');
      const sentAt = Number(header(request, 'x-service-timestamp'));
      assert.ok(Math.abs(sentAt - Date.now() / 1000) < 60, 'timestamp in unix seconds');

      const body = JSON.parse(request.body.toString('utf8'));
      assert.deepEqual(Object.keys(body), ['id', 'type', 'timestamp', 'data']);
      assert.equal(body.id, header(request, 'x-service-event-id'));
      assert.match(body.id, /^evt_/);
      assert.equal(body.type, 'document.uploaded');
      assert.equal(new Date(body.timestamp).toISOString(), body.timestamp);
      assert.equal(body.data.document_id, documentId);
      assert.equal(body.data.filename, 'hello.txt');

      const [logged] = await waitFor(async () => {
        const rows = await deliveries(t, tenant, hook.id);
        return rows[0]?.status === 'success' ? rows : undefined;
      }, 'the attempt logged as success');
      assert.equal(logged.id, header(request, 'x-service-delivery'));
      assert.equal(logged.event_id, body.id);
      assert.equal(logged.event, 'document.uploaded');
      assert.equal(logged.response_status, 200);
      assert.equal(typeof logged.duration_ms, 'number');
      assert.equal(logged.attempt, 1);
      assert.equal(logged.next_retry_at, null);
      assert.equal(logged.trigger, 'event');
      assert.equal(logged.response_excerpt, 'ok');
    });

    it('sends dag.* events in the workflow envelope, without an id in the body', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const path = uniquePath('dag');
      const hook = await createWebhook(t, tenant, `${receiver.url}${path}`, ['dag.execution.completed']);
      const data = {
        execution_id: 'exe_1',
        workflow_id: 'wf_1',
        workflow_name: 'Invoice approval',
        status: 'completed',
        duration_seconds: 31,
        final_output: { approved: true },
      };
      const event = await t.container.database.db
        .transaction()
        .execute((trx) =>
          t.container.events.record(trx, { tenantId: tenant.tenantId, name: 'dag.execution.completed', data }),
        );
      const [request] = await waitForRequests(receiver, path, 1);
      assert.ok(request && signatureValid(request, hook.secret));
      const body = JSON.parse(request.body.toString('utf8'));
      assert.deepEqual(body, {
        event: 'dag.execution.completed',
        timestamp: new Date(event.createdAt).toISOString(),
        data,
      });
      assert.equal(header(request, 'x-service-event-id'), event.id);

      // An event from before a webhook existed is not sent to it, whenever it is published.
      const latePath = uniquePath('late');
      const at = Date.parse(hook.created_at) + 1;
      const older = await t.container.events.record(t.container.database.db, {
        tenantId: tenant.tenantId,
        name: 'dag.execution.completed',
        data,
        at,
      });
      await sleep(2);
      const late = await createWebhook(t, tenant, `${receiver.url}${latePath}`, ['dag.execution.completed']);
      const delivered = await waitForRequests(receiver, path, 2);
      assert.equal(header(delivered[1]!, 'x-service-event-id'), older.id, 'the older webhook gets it');
      await jobsSettled(t.container.database);
      assert.equal(requestsTo(receiver, latePath).length, 0);
      assert.equal((await deliveries(t, tenant, late.id)).length, 0);
    });

    it('retries a failing endpoint with the same event id and a new delivery id; pausing cancels what is pending; resuming brings no backlog; redeliver sends again', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const path = uniquePath('failing');
      receiver.route(path, { status: 500, body: 'down for maintenance' });
      const hook = await createWebhook(t, tenant, `${receiver.url}${path}`, ['document.uploaded']);
      await uploadOk(t, tenant.headers);

      const attempts = await waitForRequests(receiver, path, 3);
      const eventIds = new Set(attempts.map((r) => header(r, 'x-service-event-id')));
      const deliveryIds = new Set(attempts.map((r) => header(r, 'x-service-delivery')));
      assert.equal(eventIds.size, 1, 'one event id on every retry');
      assert.equal(deliveryIds.size, 3, 'a new delivery id per attempt');
      assert.equal(new Set(attempts.map((r) => r.body.toString('utf8'))).size, 1, 'the same body every time');
      for (const r of attempts) assert.ok(signatureValid(r, hook.secret));

      // Attempt 4 waits 30 s: it is pending, with attempt 3 pointing at it.
      const log = await waitFor(async () => {
        const rows = await deliveries(t, tenant, hook.id);
        return rows.length === 4 && rows[0].status === 'pending' ? rows : undefined;
      }, 'attempt 4 scheduled');
      assert.deepEqual(
        log.map((d) => [d.attempt, d.status, d.trigger]),
        [
          [4, 'pending', 'retry'],
          [3, 'failed', 'retry'],
          [2, 'failed', 'retry'],
          [1, 'failed', 'event'],
        ],
      );
      assert.deepEqual(
        log.slice(1).map((d) => d.response_status),
        [500, 500, 500],
      );
      assert.equal(log[1].response_excerpt, 'down for maintenance');
      assert.equal(log[1].error, 'HTTP 500');
      assert.equal(log[1].next_retry_at, log[0].scheduled_at);
      const gap = Date.parse(log[0].scheduled_at) - Date.parse(log[1].sent_at);
      assert.ok(gap > 25_000 && gap < 35_000, `third delay about 30 s ±10 % (was ${gap} ms)`);
      assert.deepEqual(new Set(log.map((d) => d.event_id)), eventIds);
      assert.deepEqual(
        (await deliveries(t, tenant, hook.id, '&status=failed')).map((d) => d.attempt),
        [3, 2, 1],
      );
      assert.equal((await deliveries(t, tenant, hook.id, '&event=document.processed')).length, 0);

      const put = (status: string) =>
        t.app.inject({
          method: 'PUT',
          url: `/api/v1/webhooks/${hook.id}`,
          headers: tenant.headers,
          payload: { status },
        });
      assert.equal((await put('paused')).statusCode, 200);
      const cancelled = await deliveries(t, tenant, hook.id, '&status=cancelled');
      assert.deepEqual(
        cancelled.map((d) => [d.attempt, d.error]),
        [[4, 'webhook paused']],
      );
      assert.equal((await put('active')).statusCode, 200);

      // Redelivery: a new attempt of the same event, sent once now.
      receiver.route(path, { status: 204 });
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hook.id}/deliveries/${log[3].id}/redeliver`,
        headers: tenant.headers,
      });
      assert.equal(res.statusCode, 202, res.body);
      const redelivery = res.json();
      assert.equal(redelivery.attempt, 5);
      assert.equal(redelivery.trigger, 'redeliver');
      assert.equal(redelivery.status, 'pending');
      const all = await waitForRequests(receiver, path, 4);
      assert.equal(header(all[3]!, 'x-service-event-id'), [...eventIds][0]);
      assert.equal(header(all[3]!, 'x-service-delivery'), redelivery.id);
      await waitFor(
        async () => (await deliveries(t, tenant, hook.id))[0]?.status === 'success',
        'the redelivery logged',
      );
      await jobsSettled(t.container.database);
      assert.equal(requestsTo(receiver, path).length, 4, 'the cancelled attempt 4 was never sent');
    });

    it('sends nothing to a paused webhook, and after resuming only new events', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const pausedPath = uniquePath('paused');
      const activePath = uniquePath('active');
      const paused = await createWebhook(t, tenant, `${receiver.url}${pausedPath}`, ['document.uploaded']);
      await createWebhook(t, tenant, `${receiver.url}${activePath}`, ['document.uploaded']);
      const put = (status: string) =>
        t.app.inject({
          method: 'PUT',
          url: `/api/v1/webhooks/${paused.id}`,
          headers: tenant.headers,
          payload: { status },
        });
      assert.equal((await put('paused')).statusCode, 200);
      await uploadOk(t, tenant.headers);
      // Both webhooks are handled by the same fan-out run: once the active one has its delivery, the paused one was passed over.
      await waitForRequests(receiver, activePath, 1);
      await jobsSettled(t.container.database);
      assert.equal(requestsTo(receiver, pausedPath).length, 0);
      assert.equal((await deliveries(t, tenant, paused.id)).length, 0, 'events while paused are not queued');

      assert.equal((await put('active')).statusCode, 200);
      const newer = await uploadOk(t, tenant.headers);
      const [request] = await waitForRequests(receiver, pausedPath, 1);
      assert.equal(JSON.parse(request!.body.toString('utf8')).data.document_id, newer);
      await jobsSettled(t.container.database);
      assert.equal(requestsTo(receiver, pausedPath).length, 1, 'no backlog of the paused period');
    });

    it('sends a signed webhook.test ping', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const path = uniquePath('ping');
      const hook = await createWebhook(t, tenant, `${receiver.url}${path}`, ['document.processed'], {
        secret: 'ping-secret-0123456789abcdef',
      });
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hook.id}/test`,
        headers: tenant.headers,
      });
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(res.json().event, 'webhook.test');
      const [request] = await waitForRequests(receiver, path, 1);
      assert.ok(request && signatureValid(request, 'ping-secret-0123456789abcdef'));
      assert.equal(header(request, 'x-service-event'), 'webhook.test');
      assert.equal(header(request, 'x-service-delivery'), res.json().id);
      const body = JSON.parse(request.body.toString('utf8'));
      assert.equal(body.type, 'webhook.test');
      assert.equal(body.id, res.json().event_id);
      assert.equal(body.data.webhook_id, hook.id);
      const logged = await waitFor(
        async () => (await deliveries(t, tenant, hook.id, '&event=webhook.test'))[0],
        'logged',
      );
      assert.equal(logged.trigger, 'test');
    });

    it('does not send again an attempt already recorded, whatever runs its job again', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const path = uniquePath('once');
      const hook = await createWebhook(t, tenant, `${receiver.url}${path}`, ['document.uploaded']);
      await uploadOk(t, tenant.headers);
      await waitForRequests(receiver, path, 1);
      const [done] = await waitFor(async () => {
        const rows = await deliveries(t, tenant, hook.id);
        return rows[0]?.status === 'success' ? rows : undefined;
      }, 'success logged');
      // A second job for the same attempt (a crashed worker's job run again, in the form that carries
      // several attempts and in the older one-attempt form) and a second fan-out of the same event.
      const { jobs, database } = t.container;
      const again = await jobs.enqueue(
        database.db,
        DELIVER_JOB,
        { tenantId: tenant.tenantId, deliveryIds: [done.id] },
        { tenantId: tenant.tenantId },
      );
      const legacy = await jobs.enqueue(
        database.db,
        DELIVER_JOB,
        { tenantId: tenant.tenantId, deliveryId: done.id },
        { tenantId: tenant.tenantId },
      );
      const republish = await jobs.enqueue(
        database.db,
        PUBLISH_EVENT_JOB,
        { eventId: done.event_id },
        { tenantId: tenant.tenantId },
      );
      await waitFor(async () => (await jobs.get(again.id))?.state === 'completed', 'the duplicate job ran');
      await waitFor(
        async () => (await jobs.get(legacy.id))?.state === 'completed',
        'the duplicate job of the older form ran',
      );
      await waitFor(async () => (await jobs.get(republish.id))?.state === 'completed', 'the event published again');
      await jobsSettled(t.container.database);
      assert.equal(requestsTo(receiver, path).length, 1);
      assert.equal((await deliveries(t, tenant, hook.id)).length, 1);
    });

    it('keeps delivering to a healthy endpoint while another hangs on every call', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const deadPath = uniquePath('hang');
      const healthyPath = uniquePath('healthy');
      receiver.route(deadPath, { hang: true });
      await createWebhook(t, tenant, `${receiver.url}${deadPath}`, ['dag.task.created']);
      const healthy = await createWebhook(t, tenant, `${receiver.url}${healthyPath}`, ['dag.task.created']);
      const started = Date.now();
      for (let i = 0; i < 20; i++) {
        const data = {
          task_id: `task_${i}`,
          execution_id: 'exe',
          workflow_id: 'wf',
          title: 'Approve',
          assignee_type: 'role',
          assignee_value: 'finance',
          due_at: null,
        };
        await t.container.events.record(t.container.database.db, {
          tenantId: tenant.tenantId,
          name: 'dag.task.created',
          data,
        });
      }
      await waitForRequests(receiver, healthyPath, 20, 4_000);
      const elapsed = Date.now() - started;
      assert.ok(
        elapsed < 4_000,
        `all 20 healthy deliveries in ${elapsed} ms, well inside one 5 s timeout of the dead endpoint`,
      );
      assert.ok(
        requestsTo(receiver, deadPath).length <= 4,
        'the dead endpoint never had more than its share in flight',
      );
      // The first attempts of an event to both endpoints share a job: the healthy one's outcome is
      // written when it ends, not when the job's call to the dead endpoint gives up.
      await waitFor(
        async () => (await deliveries(t, tenant, healthy.id)).filter((d) => d.status === 'success').length === 20,
        'the healthy deliveries logged as success',
        Math.max(1, 4_500 - (Date.now() - started)),
      );
      // Done with the dead endpoint: its calls in flight and its retries fail at once instead of each
      // waiting out the 5 s timeout, which held up the next test's wait for a settled queue (~5 s).
      receiver.route(deadPath, { status: 503 });
    });

    it('sends an event itself to endpoints that are new or fast, in one job to slower healthy ones, and in a job of its own to a failing one', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const paths = {
        fast: uniquePath('fast'),
        slowA: uniquePath('slow-a'),
        slowB: uniquePath('slow-b'),
        failing: uniquePath('failing'),
      };
      receiver.route(paths.slowA, { delayMs: 300 });
      receiver.route(paths.slowB, { delayMs: 300 });
      const hooks = {
        fast: await createWebhook(t, tenant, `${receiver.url}${paths.fast}`, ['document.uploaded']),
        slowA: await createWebhook(t, tenant, `${receiver.url}${paths.slowA}`, ['document.uploaded']),
        slowB: await createWebhook(t, tenant, `${receiver.url}${paths.slowB}`, ['document.uploaded']),
        failing: await createWebhook(t, tenant, `${receiver.url}${paths.failing}`, ['document.uploaded']),
      };
      const { database, jobs } = t.container;
      // The fourth endpoint failed its last attempt (its circuit is still closed).
      await database.db
        .updateTable('webhooks')
        .set({ consecutive_failures: 1, failing_since: Date.now() })
        .where('id', '=', hooks.failing.id)
        .execute();
      const deliverJobs = async () => {
        const rows = await database.db
          .selectFrom('jobs')
          .select(['id'])
          .where('kind', '=', DELIVER_JOB)
          .where('tenant_id', '=', tenant.tenantId)
          .execute();
        return Promise.all(rows.map(async (r) => (await jobs.get(r.id))!));
      };
      const idsOf = (job: { payload: unknown }) => (job.payload as { deliveryIds: string[] }).deliveryIds;
      const attemptOf = async (hook: { id: string }, n: number) => {
        const rows = await waitFor(async () => {
          const all = await deliveries(t, tenant, hook.id);
          return all.length >= n && all.every((d) => d.status === 'success') ? all : undefined;
        }, `${n} attempt(s) logged`);
        return rows[0].id as string; // newest first
      };

      // First event: the new endpoints are called from the fan-out (the call measures them).
      await uploadOk(t, tenant.headers);
      const first = [await attemptOf(hooks.fast, 1), await attemptOf(hooks.slowA, 1), await attemptOf(hooks.slowB, 1)];
      const failingFirst = await attemptOf(hooks.failing, 1);
      let queued = await deliverJobs();
      assert.deepEqual(
        queued.filter((j) => first.some((id) => idsOf(j).includes(id))),
        [],
        'no job for new healthy endpoints',
      );
      const own = queued.filter((j) => idsOf(j).includes(failingFirst));
      assert.equal(own.length, 1);
      assert.deepEqual(idsOf(own[0]!), [failingFirst], 'the failing endpoint has its own job');
      assert.equal(own[0]!.priority, FAILING_ENDPOINT_PRIORITY);

      // Second event: the fast endpoint still from the fan-out; the two slow ones (300 ms) share one job.
      await uploadOk(t, tenant.headers);
      const second = {
        fast: await attemptOf(hooks.fast, 2),
        slowA: await attemptOf(hooks.slowA, 2),
        slowB: await attemptOf(hooks.slowB, 2),
      };
      queued = await deliverJobs();
      assert.deepEqual(
        queued.filter((j) => idsOf(j).includes(second.fast)),
        [],
        'no job for the fast endpoint',
      );
      const shared = queued.filter((j) => idsOf(j).includes(second.slowA));
      assert.equal(shared.length, 1);
      assert.deepEqual(
        [...idsOf(shared[0]!)].sort(),
        [second.slowA, second.slowB].sort(),
        'one job for both slower endpoints',
      );
      assert.equal(shared[0]!.priority, 0);
      for (const p of Object.values(paths)) assert.equal(requestsTo(receiver, p).length, 2, `two requests on ${p}`);
    });

    it('queues a job for the pending first attempts an earlier run of the fan-out inserted, and sends them with their own delivery id', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const path = uniquePath('rerun');
      const hook = await createWebhook(t, tenant, `${receiver.url}${path}`, ['dag.task.created']);
      const { database, events } = t.container;
      const data = {
        task_id: 'task_rerun',
        execution_id: 'exe',
        workflow_id: 'wf',
        title: 'Approve',
        assignee_type: 'role',
        assignee_value: 'finance',
        due_at: null,
      };
      // As if a first run of the fan-out had inserted the attempt and died before sending it.
      const earlierId = newId(Date.now());
      await database.db.transaction().execute(async (trx) => {
        const event = await events.record(trx, { tenantId: tenant.tenantId, name: 'dag.task.created', data });
        const now = Date.now();
        await trx
          .insertInto('webhook_deliveries')
          .values({
            id: earlierId,
            tenant_id: tenant.tenantId,
            webhook_id: hook.id,
            event_id: event.id,
            event: event.name,
            event_at: event.createdAt,
            payload: null,
            attempt: 1,
            trigger: 'event',
            retry_index: 0,
            status: 'pending',
            scheduled_at: now,
            created_at: now,
          })
          .execute();
      });
      const [request] = await waitForRequests(receiver, path, 1);
      assert.equal(header(request!, 'x-service-delivery'), earlierId);
      await waitFor(async () => (await deliveries(t, tenant, hook.id))[0]?.status === 'success', 'the attempt logged');
      await jobsSettled(t.container.database);
      assert.equal(requestsTo(receiver, path).length, 1);
      assert.equal((await deliveries(t, tenant, hook.id)).length, 1, 'no second attempt 1');
    });

    it('logs a redirect as a failure without following it, and a refused connection with its cause', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const path = uniquePath('redirect');
      receiver.route(path, { redirectTo: `${receiver.url}/elsewhere`, status: 301 });
      const hook = await createWebhook(t, tenant, `${receiver.url}${path}`, ['document.uploaded']);
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hook.id}/test`,
        headers: tenant.headers,
      });
      const logged = await waitFor(async () => {
        const row = (await deliveries(t, tenant, hook.id)).find((d) => d.id === res.json().id);
        return row?.status === 'failed' ? row : undefined;
      }, 'the redirect logged');
      assert.equal(logged.response_status, 301);
      assert.match(logged.error, /redirect/);
      assert.equal(receiver.requests.filter((r) => r.path === '/elsewhere').length, 0, 'not followed');
      assert.equal(logged.next_retry_at, null, 'a test ping is not retried');

      const dead = await createWebhook(t, tenant, `https://127.0.0.1:${await closedPort()}/hook`, [
        'document.uploaded',
      ]);
      const ping = await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${dead.id}/test`,
        headers: tenant.headers,
      });
      const refused = await waitFor(async () => {
        const row = (await deliveries(t, tenant, dead.id)).find((d) => d.id === ping.json().id);
        return row?.status === 'failed' ? row : undefined;
      }, 'the refused connection logged');
      assert.equal(refused.response_status, null);
      assert.match(refused.error, /^connect_failed/);
    });
  },
  // The dialects side by side: much of the time goes to retry delays, a 5 s timeout and the worker's polls.
  { worker: true, env: ENV, concurrentDialects: true },
);

describeEachDialect(
  'webhooks: failure window',
  (ctx) => {
    it('disables a webhook whose endpoint kept failing for the window, with a note, and takes it back when set active', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const path = uniquePath('dead');
      receiver.route(path, { status: 503 });
      const hook = await createWebhook(t, tenant, `${receiver.url}${path}`, ['document.uploaded']);
      await uploadOk(t, tenant.headers);
      const disabled: { status_reason: string } = await waitFor(
        async () => {
          const res = await t.app.inject({
            method: 'GET',
            url: `/api/v1/webhooks/${hook.id}`,
            headers: tenant.headers,
          });
          return res.json().status === 'disabled' ? res.json() : undefined;
        },
        'the webhook disabled',
        15_000,
      );
      assert.match(disabled.status_reason, /every delivery failed for \d+ s \(since .*\); last error: HTTP 503/);
      const log = await deliveries(t, tenant, hook.id);
      // The window (0.72 s) closes on the first failure after it: at least that one and the first,
      // however few retries (0.3 s apart) a loaded machine fits in between.
      assert.ok(log.length >= 2, `an attempt before the one that closed the window (${log.length})`);
      assert.match(log[0].error, /webhook disabled/);
      assert.equal(log.filter((d) => d.status === 'pending').length, 0);
      const sent = requestsTo(receiver, path).length;

      // Disabled: new events are not delivered.
      await uploadOk(t, tenant.headers);
      await jobsSettled(t.container.database);
      assert.equal(requestsTo(receiver, path).length, sent);

      receiver.route(path, { status: 200 });
      const put = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/webhooks/${hook.id}`,
        headers: tenant.headers,
        payload: { status: 'active' },
      });
      assert.equal(put.json().status, 'active');
      assert.equal(put.json().status_reason, null);
      await uploadOk(t, tenant.headers);
      await waitForRequests(receiver, path, sent + 1);
    });
  },
  {
    worker: true,
    env: { ...ENV, WEBHOOK_RETRY_DELAYS: '0.3,0.3,0.3,0.3,0.3,0.3', WEBHOOK_DISABLE_AFTER_HOURS: '0.0002' },
  },
);
