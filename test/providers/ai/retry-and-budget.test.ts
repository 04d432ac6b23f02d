import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AiProviderError } from '../../../src/providers/ai/ai-provider-error.ts';
import { describeFailure, withRetry } from '../../../src/providers/ai/openai/retry.ts';
import { TokenBudget } from '../../../src/providers/ai/openai/token-budget.ts';

const httpError = (status: number, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`${status} status code`), { status, headers: new Headers(headers) });

const fast = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 1000 };

describe('withRetry', () => {
  it('classifies rate limits, timeouts, server and network errors as retryable, other statuses not', () => {
    for (const status of [408, 409, 429, 500, 502, 503])
      assert.equal(describeFailure(httpError(status))?.retryable, true, String(status));
    for (const status of [400, 401, 403, 404, 422])
      assert.equal(describeFailure(httpError(status))?.retryable, false, String(status));
    assert.equal(
      describeFailure(Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' }))?.retryable,
      true,
    );
    assert.equal(describeFailure(new RangeError('a bug')), null);
  });

  it('reads retry-after-ms, retry-after seconds and HTTP dates', () => {
    assert.equal(describeFailure(httpError(429, { 'retry-after-ms': '250' }))?.retryAfterMs, 250);
    assert.equal(describeFailure(httpError(429, { 'retry-after': '3' }))?.retryAfterMs, 3000);
    const date = describeFailure(
      httpError(503, { 'retry-after': new Date(Date.now() + 10_000).toUTCString() }),
    )?.retryAfterMs;
    assert.ok(date !== null && date !== undefined && date > 8000 && date <= 10_000, String(date));
  });

  it('backs off exponentially with jitter, capped', async () => {
    const run = async (random: number) => {
      const delays: number[] = [];
      let calls = 0;
      await assert.rejects(
        withRetry(
          'test',
          async () => {
            calls++;
            throw httpError(500);
          },
          {
            maxRetries: 4,
            baseDelayMs: 20,
            maxDelayMs: 60,
            maxRetryAfterMs: 1000,
            random: () => random,
            wait: async (ms) => void delays.push(ms),
          },
        ),
        AiProviderError,
      );
      assert.equal(calls, 5);
      return delays;
    };
    // base * 2^n, at most 60, times a jitter factor in [0.5, 1).
    assert.deepEqual(await run(0), [10, 20, 30, 30]);
    assert.deepEqual(await run(0.5), [15, 30, 45, 45]);
  });

  it('passes other errors through untouched', async () => {
    const bug = new RangeError('a bug');
    await assert.rejects(
      withRetry('test', () => Promise.reject(bug), fast),
      (e: unknown) => e === bug,
    );
  });

  it('returns the first success', async () => {
    let calls = 0;
    const value = await withRetry('test', async () => (++calls < 3 ? Promise.reject(httpError(429)) : 'ok'), fast);
    assert.equal(value, 'ok');
    assert.equal(calls, 3);
  });
});

describe('TokenBudget', () => {
  it('lets a minute of tokens through at once, then refills at the per-minute rate', () => {
    let now = 0;
    const budget = new TokenBudget(600, () => now);
    assert.equal(budget.reserve(600), 0);
    assert.equal(budget.reserve(60), 6000);
    now = 6000;
    // The debt of 60 tokens was paid back by the refill: the next 60 wait another 6 s.
    assert.equal(budget.reserve(60), 6000);
  });

  it('queues concurrent callers behind each other', () => {
    const now = 0;
    const budget = new TokenBudget(60, () => now);
    const waits = [budget.reserve(60), budget.reserve(30), budget.reserve(30)];
    assert.deepEqual(waits, [0, 30_000, 60_000]);
  });

  it('lets a call larger than the budget through once the bucket is full', () => {
    let now = 0;
    const budget = new TokenBudget(100, () => now);
    assert.equal(budget.reserve(500), 0);
    // The 400 tokens over the budget are a debt: a minute later 300 remain, and 10 more cost 310.
    now = 60_000;
    assert.equal(budget.reserve(10), 186_000);
  });

  it('books the difference between estimate and usage', () => {
    const now = 0;
    const budget = new TokenBudget(100, () => now);
    assert.equal(budget.reserve(50), 0);
    budget.settle(50, 100);
    assert.equal(budget.reserve(10), 6000);
  });

  it('waits asynchronously and honours abort', async () => {
    const budget = new TokenBudget(60_000);
    await budget.take(60_000);
    await assert.rejects(budget.take(1000, AbortSignal.timeout(20)), { name: 'TimeoutError' });
  });
});
