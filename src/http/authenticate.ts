import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../domain/auth-context.ts';
import { errors } from '../lib/errors.ts';
import { routeAuthOf } from './fastify-types.ts';
import { onStateChangingRoutes } from './route-hooks.ts';

export interface Authenticators {
  adminApiKey: string;
  apiKey(key: string, options: { sandbox: boolean }): Promise<AuthContext>;
  /** Resolves `Authorization: Bearer <access token>` with `X-Tenant-Subdomain`. */
  userToken(request: FastifyRequest, token: string): Promise<AuthContext>;
  /** Throws 403 `csrf_token_invalid` for a state-changing user-token request without a valid `X-CSRF-Token`. */
  csrf(request: FastifyRequest, auth: AuthContext): Promise<void>;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time check of the administrator credential (hashing first equalises lengths). */
export function isAdminKey(presented: string, adminApiKey: string): boolean {
  return timingSafeEqual(digest(presented), digest(adminApiKey));
}

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/**
 * Authenticates every request before its body is read, by the route's `config.auth`:
 * `admin` takes only the administrator key, `tenant` an API key or a user token, `public` nothing.
 * The administrator key never works as a tenant credential and the other way round.
 */
export function installAuthentication(app: FastifyInstance, auth: Authenticators): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    const mode = routeAuthOf(request.routeOptions.url, request.routeOptions.config);
    if (mode === 'public') return;
    const bearer = bearerToken(request);
    if (mode === 'admin') {
      if (!bearer || !isAdminKey(bearer, auth.adminApiKey))
        throw errors.unauthorized('The administrator API key is required');
      return;
    }
    const apiKey = request.headers['x-api-key'];
    if (typeof apiKey === 'string' && apiKey.length > 0) {
      request.auth = await auth.apiKey(apiKey, { sandbox: request.sandbox });
      return;
    }
    if (bearer) {
      if (isAdminKey(bearer, auth.adminApiKey))
        throw errors.unauthorized('The administrator key is not a tenant credential');
      // A common slip: an API key where a user token goes. Say where it belongs instead of "invalid token".
      if (/^ak_(live|test)_/.test(bearer))
        throw errors.unauthorized('API keys are sent in the X-API-Key header, not as Authorization: Bearer');
      // docs/api-decisions.md §5: only ak_test_ keys are accepted in the sandbox.
      if (request.sandbox) throw errors.unauthorized('The sandbox accepts only test API keys (ak_test_) in X-API-Key');
      request.auth = await auth.userToken(request, bearer);
      return;
    }
    throw errors.unauthorized(
      'Send an X-API-Key header or Authorization: Bearer <access token> with X-Tenant-Subdomain',
    );
  });
}

/**
 * CSRF for user tokens (docs/api-decisions.md §3): installed after the rate limiter, so a request refused for its
 * missing or wrong `X-CSRF-Token` is counted against the tenant and carries the X-RateLimit-* headers.
 */
export function installCsrfCheck(app: FastifyInstance, auth: Authenticators): void {
  onStateChangingRoutes(app, 'onRequest', async (request: FastifyRequest) => {
    if (request.auth?.via === 'user_token') await auth.csrf(request, request.auth);
  });
}
