import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { signWebhookBody } from '../../../src/lib/webhook-signature.ts';
import { HOOK_RATE_LIMITS } from '../../../src/modules/workflows/triggers/webhook-trigger.routes.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';
import { workflowApi } from './helpers.ts';

const SECRET = 'hook-secret-0123456789';

/** A clock standing still a second into the current minute, so no test straddles a window boundary. */
const now = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;
const clock = { now: () => now };

/** The public webhook hook is limited per hook and per client IP, counted before the signature. */
describeEachDialect(
  'workflow webhook hook rate limit',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    const body = JSON.stringify({ order_id: 'o-1' });
    const good = { 'x-service-signature': signWebhookBody(SECRET, body) };
    const bad = { 'x-service-signature': signWebhookBody('not-the-secret', body) };
    const hook = (workflowId: string, ip: string, headers: Record<string, string>) =>
      ctx().app.inject({
        method: 'POST',
        url: `/api/v1/dag/hooks/${workflowId}`,
        payload: body,
        remoteAddress: ip,
        headers: { 'content-type': 'application/json', ...headers },
      });
    const webhookWorkflow = (name: string) =>
      api.create(
        {
          name,
          trigger: { type: 'webhook', conditions: { secret: SECRET } },
          nodes: [{ id: 'echo', type: 'transform', config: { expression: '$trigger' } }],
        },
        true,
      );
    let first: string;
    let second: string;
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
      first = await webhookWorkflow('Hooked');
      second = await webhookWorkflow('Hooked too');
    });

    it('one client: bad signatures count, then even a good one is 429 with Retry-After; other clients and hooks go on', async () => {
      const { perClient } = HOOK_RATE_LIMITS;
      for (let i = 1; i <= perClient; i++) {
        const res = await hook(first, '10.0.0.1', bad);
        assertError(res, 401, 'unauthorized');
        assert.equal(res.headers['x-ratelimit-limit'], String(perClient));
        assert.equal(res.headers['x-ratelimit-remaining'], String(perClient - i));
      }
      const limited = await hook(first, '10.0.0.1', good);
      const refused = assertError(limited, 429, 'rate_limit_exceeded');
      assert.equal(limited.headers['retry-after'], '59');
      assert.equal(limited.headers['x-ratelimit-reset'], String((now - 1_000 + 60_000) / 1000));
      assert.deepEqual(refused.details, {
        limit: perClient,
        remaining: 0,
        reset_at: new Date(now - 1_000 + 60_000).toISOString(),
        scope: 'hook_client',
      });

      assert.equal((await hook(first, '10.0.0.2', good)).statusCode, 202, 'another client of the same hook');
      assertError(await hook(second, '10.0.0.1', bad), 401, 'unauthorized');
      assert.equal((await hook(second, '10.0.0.1', good)).statusCode, 202, 'the same client on another hook');
    });

    it('all clients of one hook together: the per-hook limit', async () => {
      const { perHook, perClient } = HOOK_RATE_LIMITS;
      // The first test left 62 requests on this hook's counter (61 from one client, 1 from another).
      let sent = perClient + 2;
      for (let client = 3; sent < perHook; client++) {
        for (let i = 0; i < perClient - 1 && sent < perHook; i++, sent++)
          assertError(await hook(first, `10.0.1.${client}`, bad), 401, 'unauthorized');
      }
      const refused = assertError(await hook(first, '10.0.2.1', good), 429, 'rate_limit_exceeded');
      assert.equal(refused.details.scope, 'hook');
      assert.equal(refused.details.limit, perHook);
      assert.equal((await hook(second, '10.0.2.1', good)).statusCode, 202, 'other hooks are not affected');
    });
  },
  { clock },
);
