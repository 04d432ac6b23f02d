import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { nodeHttp } from '../lib/node-http.ts';

/** The process's Prometheus metrics; one registry per container so tests do not share counters. */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status_code'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly jobs: Gauge<'kind' | 'state'>;
  readonly jobRuns: Counter<'kind' | 'outcome'>;
  readonly jobRunSeconds: Histogram<'kind' | 'outcome'>;
  readonly rateLimitStoreErrors: Counter<'outcome'>;
  /** Credential checks (login, refresh, password reset and change) by route and outcome: success, failure, refused (locked). */
  readonly credentialChecks: Counter<'route' | 'outcome'>;
  /** Locks started by repeated failures, by what was locked: an account or a client address. */
  readonly credentialLockouts: Counter<'scope'>;
}

export function createMetrics(
  collectJobCounts: () => Promise<{ kind: string; state: string; count: number }[]>,
): Metrics {
  const registry = new Registry();
  // prom-client's process and Node.js metrics: resident memory, heap by space, event-loop lag,
  // handles, GC, CPU, open files. What a spike in a parsing thread or a blocked loop looks like.
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const jobs = new Gauge({
    name: 'jobs',
    help: 'Jobs in the queue by kind and state',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await collectJobCounts()) this.set({ kind: row.kind, state: row.state }, row.count);
    },
  });
  const jobRuns = new Counter({
    name: 'job_runs_total',
    help: 'Job runs finished by this process, by kind and outcome',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  const jobRunSeconds = new Histogram({
    name: 'job_run_duration_seconds',
    help: 'Run time of jobs finished by this process, by kind and outcome',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const rateLimitStoreErrors = new Counter({
    name: 'rate_limit_store_errors_total',
    help: 'Requests the rate-limit store could not count, by what was done with them (allowed, refused)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const credentialChecks = new Counter({
    name: 'auth_credential_checks_total',
    help: 'Credential checks (login, refresh, password reset and change) by route and outcome: success, failure, refused (locked)',
    labelNames: ['route', 'outcome'] as const,
    registers: [registry],
  });
  const credentialLockouts = new Counter({
    name: 'auth_lockouts_total',
    help: 'Sign-in locks started by repeated failures, by scope (account, client)',
    labelNames: ['scope'] as const,
    registers: [registry],
  });
  return {
    registry,
    httpRequests,
    httpDuration,
    jobs,
    jobRuns,
    jobRunSeconds,
    rateLimitStoreErrors,
    credentialChecks,
    credentialLockouts,
  };
}

/** Times every request and labels it with its route pattern (not the raw URL, to bound cardinality). */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  // One labelled child per (method, route, status), made once: labelling on every request hashes the labels each time.
  const children = new Map<string, { count: { inc(): void }; duration: { observe(v: number): void } }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method: request.method, route, status_code: String(reply.statusCode) };
      child = { count: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
      children.set(key, child);
    }
    child.count.inc();
    child.duration.observe(reply.elapsedTime / 1000);
    done();
  });
}

/**
 * Serves `GET /metrics` of a registry on a port of its own: how a `worker` process, which has no
 * HTTP API, is scraped (WORKER_METRICS_PORT). Everything else answers 404.
 */
export async function serveMetrics(registry: Registry, options: { port: number; host: string }): Promise<Server> {
  const server = nodeHttp.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) =>
        response
          .writeHead(200, { 'content-type': registry.contentType })
          .end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
