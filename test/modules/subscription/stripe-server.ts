import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The subset of Stripe's API the service uses (Checkout Sessions: create, expire), form-encoded like the real one. */
export interface LocalStripe {
  url: string;
  /** Every call: method, path, form fields, Idempotency-Key. */
  calls: { method: string; path: string; form: Record<string, string>; idempotencyKey: string | undefined }[];
  close(): Promise<void>;
}

export async function startLocalStripe(): Promise<LocalStripe> {
  const calls: LocalStripe['calls'] = [];
  let counter = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      const path = (req.url ?? '').split('?')[0]!;
      calls.push({
        method: req.method ?? '',
        path,
        form,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      });
      const send = (status: number, body: unknown) =>
        res
          .writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++counter}` })
          .end(JSON.stringify(body));
      if (req.headers.authorization !== 'Bearer sk_test_local')
        return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      if (req.method === 'POST' && path === '/v1/checkout/sessions') {
        const id = `cs_test_${++counter}`;
        const metadata = Object.fromEntries(
          Object.entries(form)
            .filter(([k]) => k.startsWith('metadata['))
            .map(([k, v]) => [k.slice(9, -1), v]),
        );
        return send(200, {
          id,
          object: 'checkout.session',
          mode: form['mode'],
          status: 'open',
          url: `https://checkout.stripe.test/c/pay/${id}`,
          metadata,
          expires_at: Number(form['expires_at']),
          success_url: form['success_url'],
          cancel_url: form['cancel_url'],
        });
      }
      const expire = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path);
      if (req.method === 'POST' && expire)
        return send(200, { id: expire[1], object: 'checkout.session', status: 'expired' });
      send(404, {
        error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${path})` },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
