import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../lib/clock.ts';
import { normaliseOrigin, type TenantDirectory } from '../domain/tenant.ts';

/** Request headers the API reads (the MCP transport's own included, so a page can be an MCP client). */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'X-API-Key',
  'X-Tenant-Subdomain',
  'X-CSRF-Token',
  'Idempotency-Key',
  'Content-Type',
  'Accept',
  'Range',
  'If-Range',
  'If-None-Match',
  'If-Match',
  'Last-Event-ID',
  'X-Request-Id',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
];
/** Response headers scripts may read. */
export const CORS_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
  'Idempotent-Replayed',
  'Location',
  'Content-Disposition',
  'Content-Range',
  'Accept-Ranges',
  'Content-Length',
  'ETag',
  'Last-Modified',
  'Mcp-Session-Id',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const CACHE_MS = 30_000;

/** Answers "does any active tenant allow this origin?" from the origin index, cached briefly per process. */
export class CorsOrigins {
  private readonly deps: { clock: Clock; tenants: TenantDirectory };
  private readonly cache = new Map<string, { allowed: boolean; until: number }>();
  constructor(deps: CorsOrigins['deps']) {
    this.deps = deps;
  }

  async anyTenantAllows(origin: string): Promise<boolean> {
    const key = normaliseOrigin(origin);
    const now = this.deps.clock.now();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.allowed;
    const allowed = await this.deps.tenants.isConfiguredOrigin(key);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { allowed, until: now + CACHE_MS });
    return allowed;
  }

  /** Forgets cached answers (a tenant's origins or status changed in this process). */
  invalidate(): void {
    this.cache.clear();
  }

  /** The origins of the tenant a request names with X-Tenant-Subdomain (for unauthenticated requests). */
  async tenantOriginsBySubdomain(subdomain: string): Promise<string[] | null> {
    const tenant = await this.deps.tenants.findBySubdomain(subdomain.trim().toLowerCase());
    return tenant ? tenant.corsOrigins : null;
  }
}

function allows(origins: string[], origin: string): boolean {
  const wanted = normaliseOrigin(origin);
  return origins.some((o) => normaliseOrigin(o) === wanted);
}

/**
 * Cross-origin browser calls (spec Authentication rule 6), allowed per tenant (`cors_origins`).
 *
 * A preflight carries no credentials and no custom header values, so it cannot name its tenant:
 * it is answered for an Origin that at least one active tenant configured. The real request is then
 * held to its own tenant: after authentication, an Origin the caller's tenant did not configure
 * gets no `Access-Control-Allow-Origin`, so the browser keeps the answer from the page. Requests
 * without credentials that name a tenant (`X-Tenant-Subdomain`, e.g. login) are held to that
 * tenant; the rest (register, refresh, password reset) to the any-tenant rule.
 * Must be installed before authentication so preflights are answered before credentials are asked for.
 */
export async function installCors(app: FastifyInstance, origins: CorsOrigins): Promise<void> {
  await app.register(cors, {
    hook: 'onRequest',
    delegator: async (request: FastifyRequest) => {
      const origin = request.headers.origin;
      if (!origin) return { origin: false };
      const allowed = await origins.anyTenantAllows(origin);
      return {
        // An empty list reflects nothing: the answer goes out without Access-Control-Allow-Origin.
        origin: allowed ? origin : [],
        methods: METHODS,
        allowedHeaders: CORS_ALLOWED_HEADERS,
        exposedHeaders: CORS_EXPOSED_HEADERS,
        maxAge: 600,
        strictPreflight: false,
      };
    },
  });
}

/** The per-tenant check of real requests; runs after authentication. */
export function installTenantCorsCheck(app: FastifyInstance, origins: CorsOrigins): void {
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || request.method === 'OPTIONS' || !reply.hasHeader('access-control-allow-origin')) return;
    let allowed: boolean | null = null;
    if (request.auth) {
      allowed = allows(request.auth.tenant.corsOrigins, origin);
    } else {
      const subdomain = request.headers['x-tenant-subdomain'];
      if (typeof subdomain === 'string' && subdomain.trim() !== '') {
        const tenantOrigins = await origins.tenantOriginsBySubdomain(subdomain);
        allowed = tenantOrigins !== null && allows(tenantOrigins, origin);
      }
    }
    if (allowed === false) reply.removeHeader('access-control-allow-origin');
  });
}
