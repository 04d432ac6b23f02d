import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.ts';
import { eventEnvelope } from '../../../src/events/event-catalogue.ts';
import {
  BREAKER_MAX_OPEN_MS,
  BREAKER_THRESHOLD,
  breakerOpenMs,
  concurrencyLimit,
  deferUntil,
  retryDelayMs,
  shouldDisable,
} from '../../../src/modules/webhooks/delivery-policy.ts';
import { EndpointLimiter } from '../../../src/modules/webhooks/endpoint-limiter.ts';

// The delivery rules as plain functions, without a database.

describe('webhook delivery policy', () => {
  const schedule = [5_000, 300_000, 1_800_000];

  it('follows the retry schedule with ±10 % jitter and stops when it is spent', () => {
    assert.equal(
      retryDelayMs(0, schedule, () => 0.5),
      5_000,
    );
    assert.equal(
      retryDelayMs(0, schedule, () => 0),
      4_500,
    );
    assert.equal(
      retryDelayMs(0, schedule, () => 0.999_999),
      5_500,
    );
    assert.equal(
      retryDelayMs(2, schedule, () => 0.5),
      1_800_000,
    );
    assert.equal(
      retryDelayMs(3, schedule, () => 0.5),
      null,
    );
  });

  it('reads WEBHOOK_RETRY_DELAYS (fractions allowed) and the other settings, refusing nonsense', () => {
    const defaults = loadConfig({}).webhooks;
    assert.deepEqual(
      defaults.retryDelaysMs,
      [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    );
    assert.equal(defaults.disableAfterMs, 72 * 3_600_000);
    assert.equal(defaults.maxConcurrencyPerEndpoint, 4);
    const custom = loadConfig({
      WEBHOOK_RETRY_DELAYS: '0.2, 0.2',
      WEBHOOK_DISABLE_AFTER_HOURS: '0.5',
      WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: '2',
    }).webhooks;
    assert.deepEqual(custom.retryDelaysMs, [200, 200]);
    assert.equal(custom.disableAfterMs, 1_800_000);
    assert.equal(custom.maxConcurrencyPerEndpoint, 2);
    assert.throws(() => loadConfig({ WEBHOOK_RETRY_DELAYS: '5,,10' }), /WEBHOOK_RETRY_DELAYS/);
    assert.throws(() => loadConfig({ WEBHOOK_RETRY_DELAYS: '5,-1' }), /WEBHOOK_RETRY_DELAYS/);
    assert.throws(() => loadConfig({ WEBHOOK_DISABLE_AFTER_HOURS: 'soon' }), /WEBHOOK_DISABLE_AFTER_HOURS/);
    assert.throws(
      () => loadConfig({ WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: '0' }),
      /WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT/,
    );
    assert.throws(() => loadConfig({ OUTBOUND_EXTRA_CA_FILE: '/nonexistent/ca.pem' }), /OUTBOUND_EXTRA_CA_FILE/);
  });

  it('opens the circuit after repeated failures, doubling up to a cap', () => {
    assert.equal(breakerOpenMs(BREAKER_THRESHOLD - 1), 0);
    assert.ok(breakerOpenMs(BREAKER_THRESHOLD) > 0);
    assert.equal(breakerOpenMs(BREAKER_THRESHOLD + 1), 2 * breakerOpenMs(BREAKER_THRESHOLD));
    assert.equal(breakerOpenMs(BREAKER_THRESHOLD + 100), BREAKER_MAX_OPEN_MS);
  });

  it('disables only after the whole window of failures', () => {
    assert.equal(shouldDisable(null, 10_000, 1_000), false);
    assert.equal(shouldDisable(9_500, 10_000, 1_000), false);
    assert.equal(shouldDisable(9_000, 10_000, 1_000), true);
  });

  it('defers past an open circuit, longer for a failing endpoint than a busy one, and probes one at a time while failing', () => {
    assert.ok(deferUntil({ circuitOpenUntil: 50_000 }, 10_000, () => 0.5) >= 50_000);
    const busy = deferUntil({ busy: true, failing: false, typicalMs: 20 }, 0, () => 0.5);
    const failing = deferUntil({ busy: true, failing: true, typicalMs: 5_000 }, 0, () => 0.5);
    assert.ok(busy < 100 && failing >= 5_000, `${busy} / ${failing}`);
    assert.equal(concurrencyLimit(4, 0), 4);
    assert.equal(concurrencyLimit(4, 3), 1);
  });

  it('builds the two envelope forms of the spec', () => {
    const at = Date.UTC(2026, 10, 21, 10, 15, 30);
    assert.deepEqual(eventEnvelope({ id: 'evt_1', name: 'document.processed', at, data: { a: 1 } }), {
      id: 'evt_1',
      type: 'document.processed',
      timestamp: '2026-11-21T10:15:30.000Z',
      data: { a: 1 },
    });
    assert.deepEqual(
      eventEnvelope({ id: 'evt_2', name: 'chat.message.created', at, data: {} }).type,
      'chat.message.created',
    );
    assert.deepEqual(eventEnvelope({ id: 'evt_3', name: 'dag.task.escalated', at, data: { b: 2 } }), {
      event: 'dag.task.escalated',
      timestamp: '2026-11-21T10:15:30.000Z',
      data: { b: 2 },
    });
  });
});

describe('endpoint limiter', () => {
  it('holds at most the limit per endpoint, independently per endpoint', async () => {
    const limiter = new EndpointLimiter();
    const a1 = await limiter.acquire('a', 2);
    const a2 = await limiter.acquire('a', 2);
    assert.ok(a1 && a2);
    assert.equal(await limiter.acquire('a', 2), null, 'an endpoint of unknown speed is deferred, not waited for');
    const b1 = await limiter.acquire('b', 2);
    assert.ok(b1, 'another endpoint is not affected');
    a1();
    a1(); // releasing twice frees one slot only
    assert.equal(limiter.inFlight('a'), 1);
    assert.ok(await limiter.acquire('a', 2));
  });

  it('lets a call wait briefly for a fast endpoint, never for a slow one', async () => {
    const limiter = new EndpointLimiter();
    limiter.observe('fast', 5);
    limiter.observe('slow', 5_000);
    const fast = await limiter.acquire('fast', 1);
    const slow = await limiter.acquire('slow', 1);
    assert.ok(fast && slow);
    assert.equal(await limiter.acquire('slow', 1), null);
    const waiting = limiter.acquire('fast', 1);
    setTimeout(fast, 20);
    const granted = await waiting;
    assert.ok(granted, 'the freed slot went to the waiter');
    assert.equal(limiter.inFlight('fast'), 1);
  });

  it('tells the fan-out which endpoints it may call itself: fast ones, and untried ones while no call is measuring them', async () => {
    const limiter = new EndpointLimiter();
    assert.equal(limiter.isFastOrUntried('new'), true, 'never called: the call measures it');
    const release = await limiter.acquire('new', 4);
    assert.ok(release);
    assert.equal(limiter.isFastOrUntried('new'), false, 'one untried call at a time');
    release();
    limiter.observe('new', 12);
    assert.equal(limiter.isFast('new'), true);
    assert.equal(limiter.isFastOrUntried('new'), true);
    limiter.observe('new', 5_000);
    assert.equal(limiter.isFastOrUntried('new'), false, 'one timeout makes it slow (moving average above 200 ms)');
  });
});
