import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../support/app.ts';

/** Makes the test app listen on a free port (once) and answers its origin, as a client would reach it. */
export async function origin(t: TestApp): Promise<string> {
  const address = t.app.server.address();
  if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

/** An answer the proxy gives instead of forwarding. */
export interface Fault {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** One request that reached the proxy. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  faulted: boolean;
}

/**
 * A plain HTTP proxy in front of the real service that answers the next requests matching a path
 * with scripted faults (a 429 with Retry-After, a 503) before forwarding, the way a load balancer or
 * an overloaded service would. Everything else reaches the real app.
 */
export async function faultProxy(target: string) {
  const faults: { match: RegExp; fault: Fault }[] = [];
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const index = faults.findIndex((f) => f.match.test(req.url ?? ''));
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, faulted: index >= 0 });
    if (index >= 0) {
      const { fault } = faults.splice(index, 1)[0] as { fault: Fault };
      req.resume();
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(
        fault.body ??
          JSON.stringify({ error: 'service_unavailable', code: 'SERVICE_UNAVAILABLE', message: 'try again' }),
      );
      return;
    }
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    /** The next request whose path matches gets this answer instead of the service's. */
    failNext(match: RegExp, fault: Fault) {
      faults.push({ match, fault });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
