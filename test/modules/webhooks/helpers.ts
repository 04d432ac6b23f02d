import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { waitFor } from '../../jobs/helpers.ts';
import type { TestApp } from '../../support/app.ts';
import type { TestTenant } from '../../support/fixtures.ts';
import type { HttpsReceiver, ReceivedRequest } from '../../support/https-receiver.ts';

let counter = 0;

/** A receiver path no other test uses (the receiver is shared by the suites of a file). */
export function uniquePath(name: string): string {
  counter++;
  return `/hooks/${name}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Creates a webhook through the API (asserting 201) and returns the create answer. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
export async function createWebhook(
  t: TestApp,
  tenant: TestTenant,
  url: string,
  events: string[],
  extra: Record<string, unknown> = {},
): Promise<any> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: tenant.headers,
    payload: { url, events, ...extra },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** The deliveries list of a webhook (asserting 200). */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
export async function deliveries(t: TestApp, tenant: TestTenant, webhookId: string, query = ''): Promise<any[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/webhooks/${webhookId}/deliveries?page_size=100${query}`,
    headers: tenant.headers,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** The requests the receiver got on a path. */
export function requestsTo(receiver: HttpsReceiver, path: string): ReceivedRequest[] {
  return receiver.requests.filter((r) => r.path === path);
}

/** Waits until the receiver has at least `n` requests on the path, and returns them. */
export function waitForRequests(
  receiver: HttpsReceiver,
  path: string,
  n: number,
  timeoutMs = 15_000,
): Promise<ReceivedRequest[]> {
  return waitFor(
    () => {
      const got = requestsTo(receiver, path);
      return got.length >= n ? got : undefined;
    },
    `${n} request(s) on ${path}`,
    timeoutMs,
  );
}

/**
 * The receiver's own check, written independently of the service's signing code: HMAC-SHA256 of
 * the raw bytes received, keyed with the secret, compared in constant time.
 */
export function signatureValid(request: ReceivedRequest, secret: string): boolean {
  const header = request.headers['x-service-signature'];
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(request.body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function header(request: ReceivedRequest, name: string): string {
  const value = request.headers[name];
  assert.equal(typeof value, 'string', `header ${name}`);
  return value as string;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
