import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AuthContext } from '../domain/auth-context.ts';

/** Where the versioned API is mounted. */
export const API_PREFIX = '/api/v1';

/** How a route is authenticated. */
export type RouteAuth = 'tenant' | 'admin' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Default: 'tenant'. */
    auth?: RouteAuth;
    /** Rate-limit class of the route; default derived from its path. */
    rateLimit?: string | false;
    /**
     * `public`: an unauthenticated route that creates something (register) honours Idempotency-Key
     * too, in a scope of its own (the stored answer is sealed under the key, so only its holder replays it).
     */
    idempotency?: 'public';
  }
  interface FastifyRequest {
    /** Set by the authentication hook on 'tenant' routes. */
    auth: AuthContext | null;
    /** True for requests that came through `/sandbox/api/v1` or SANDBOX_PORT. */
    sandbox: boolean;
  }
}

/** A route's authentication: as declared, else `tenant` under `/api/` and `public` elsewhere (docs, health). */
export function routeAuthOf(url: string | undefined, config: { auth?: RouteAuth } | undefined): RouteAuth {
  return config?.auth ?? (url?.startsWith('/api/') ? 'tenant' : 'public');
}

/** The Fastify instance every route module receives, with TypeBox typing. */
export type App = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** The caller's context on an authenticated route (the hook guarantees it). */
export function authOf(request: { auth: AuthContext | null }): AuthContext {
  if (!request.auth) throw new Error('route used authOf() without tenant authentication');
  return request.auth;
}
