import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../lib/logger.ts';
import type { Clock } from '../lib/clock.ts';
import {
  ENDPOINT_TYPES,
  type EndpointType,
  TIER_LIMITS,
  type Tier,
  WORKFLOW_CATEGORIES,
  type WorkflowCategory,
} from '../domain/tiers.ts';
import { clientNetwork } from '../lib/client-network.ts';
import { AppError, errors } from '../lib/errors.ts';
import { type RouteAuth, routeAuthOf } from './fastify-types.ts';
import type { RateLimitStore } from './rate-limit-store.ts';

export const WINDOW_MS = 60_000;

/**
 * A public route's own per-minute counters, counted before its handler (the workflow webhook hook:
 * a flood of bad signatures is limited too). `scope` names what the request is for (`hook:<id>`);
 * a `perClient` counter is kept per client IP inside it. One scope keeps its keys in one Redis
 * Cluster slot, as a tenant's do.
 */
export interface PublicRateLimit {
  scope(request: FastifyRequest): string;
  counters: readonly { name: string; limit: number; perClient?: boolean }[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public route limited by what it names rather than by tenant (PublicRateLimit). */
    publicRateLimit?: PublicRateLimit;
    /**
     * An unauthenticated credential check (login) limited by its failures, per account and per
     * client (the identity module's sign-in limits), rather than per minute: counting its attempts
     * per client would let one account's guesser block every account signing in from that address.
     */
    limitedByFailures?: true;
  }
}

/**
 * The rate-limit class of a route: an endpoint type (`failuresOnly`: not counted per minute
 * when unauthenticated, see `limitedByFailures`), a workflow category, a public route's own
 * counters, or not limited.
 */
export type RateLimitClass =
  | { type: EndpointType; failuresOnly?: true }
  | { workflow: WorkflowCategory }
  | { public: PublicRateLimit }
  | false;

/**
 * The class a route declares in `config.rateLimit` (docs/api-decisions.md §5): an endpoint type
 * (`authentication`, `document_upload`, `ai_processing`, `chat`, `search`, `general`), a workflow
 * category, or `false`. Tenant routes that declare nothing are `general`; admin and public routes
 * are not limited unless they declare a class (the public auth routes declare `authentication`)
 * or counters of their own in `config.publicRateLimit` (the workflow webhook hook).
 */
export function classifyRoute(
  url: string,
  config:
    | { auth?: RouteAuth; rateLimit?: string | false; publicRateLimit?: PublicRateLimit; limitedByFailures?: true }
    | undefined,
): RateLimitClass {
  if (config?.publicRateLimit) return { public: config.publicRateLimit };
  const declared = config?.rateLimit;
  if (declared === false) return false;
  if (typeof declared === 'string') {
    if ((ENDPOINT_TYPES as readonly string[]).includes(declared))
      return { type: declared as EndpointType, ...(config?.limitedByFailures ? { failuresOnly: true as const } : {}) };
    if ((WORKFLOW_CATEGORIES as readonly string[]).includes(declared))
      return { workflow: declared as WorkflowCategory };
    throw new Error(`unknown rate-limit class "${declared}" on ${url}`);
  }
  return routeAuthOf(url, config) === 'tenant' ? { type: 'general' } : false;
}

const routeClasses = new WeakMap<FastifyInstance, Map<string, RateLimitClass>>();

/** The rate-limit class of a registered route (`GET`, `/api/v1/documents/:id`), for tests and tooling. */
export function rateLimitClassOf(app: FastifyInstance, method: string, url: string): RateLimitClass | undefined {
  return routeClasses.get(app)?.get(`${method} ${url}`);
}

/** Sandbox limits: half the tier's, at least 5 a minute (docs/api-decisions.md §5). */
export function sandboxLimit(limit: number): number {
  return Math.max(5, Math.floor(limit / 2));
}

interface Counter {
  name: string;
  limit: number;
  /** Its key within the scope when that is not its name (a public route's per-client counter). */
  key?: string;
}

/** The counters a request is held to: tier-wide and its class, in the tenant's tier. */
export function countersFor(
  tier: Tier,
  sandbox: boolean,
  cls: { type: EndpointType } | { workflow: WorkflowCategory },
  unlimitedCeiling = 10_000,
): Counter[] {
  const limits = TIER_LIMITS[tier];
  const out: Counter[] = [];
  const add = (name: string, limit: number | null) => {
    if (limit !== null) out.push({ name, limit: sandbox ? sandboxLimit(limit) : limit });
  };
  // Unlimited tiers still get a (high) tier-wide ceiling: every answer carries real X-RateLimit-* values.
  add('tier', limits.requestsPerMinute ?? unlimitedCeiling);
  if ('type' in cls) add(cls.type, limits.endpointTypes[cls.type]);
  else add(cls.workflow, limits.workflowCategories[cls.workflow]);
  return out;
}

export interface RateLimitDeps {
  store: RateLimitStore;
  clock: Clock;
  logger: Logger;
  keyPrefix: string;
  enabled: boolean;
  /** Per-client limit of unauthenticated auth requests (register, refresh, password forgot and reset). */
  anonymousPerMinute: number;
  /** What to do with a request the store cannot count (see config.rateLimit.onStoreFailure). */
  onStoreFailure: 'open' | 'closed' | 'auto';
  /** Tier-wide ceiling of tiers the spec calls unlimited. */
  unlimitedTierPerMinute: number;
  onStoreError?: (outcome: 'allowed' | 'refused') => void;
}

/**
 * Per-tenant fixed one-minute windows (docs/api-decisions.md §5), checked after authentication. Every limited
 * answer carries `X-RateLimit-Limit`, `-Remaining` and `-Reset` (Unix seconds) of the tighter
 * counter; over the limit the answer is 429 `rate_limit_exceeded` with `Retry-After`.
 * Unauthenticated auth requests (register, refresh, password forgot and reset) are counted per
 * client IP, never against the tenant `X-Tenant-Subdomain` names: a caller who has not shown who
 * they are must not spend a tenant's budget (ten wrong logins would lock its every user out).
 * Login is not counted here: its failures are, per account and per client, by the sign-in limits
 * (identity module).
 */
export function installRateLimit(app: FastifyInstance, deps: RateLimitDeps): void {
  // Each route's class is resolved once, as it is registered: an unknown class fails the start.
  const classes = new Map<string, RateLimitClass>();
  routeClasses.set(app, classes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) classes.set(`${method} ${route.url}`, classifyRoute(route.url, route.config));
  });
  if (!deps.enabled) return;
  const classOf = (request: FastifyRequest): RateLimitClass => {
    const url = request.routeOptions.url;
    return url ? (classes.get(`${request.method} ${url}`) ?? false) : false;
  };

  app.addHook('onRequest', async (request, reply) => {
    const cls = classOf(request);
    if (cls === false) return;
    const scope = scopeOf(request, cls, deps);
    if (!scope) return;
    const counters = scope.counters;
    if (counters.length === 0) return;

    const now = deps.clock.now();
    const window = Math.floor(now / WINDOW_MS);
    const resetMs = (window + 1) * WINDOW_MS;
    // A hash tag keeps one scope's keys in one Redis Cluster slot (the script touches them together).
    const keys = counters.map((c) => `${deps.keyPrefix}{${scope.key}}:${c.key ?? c.name}:${window}`);
    let counts: number[];
    try {
      counts = await deps.store.hit(keys, resetMs - now + 1_000);
    } catch (error) {
      // Open: an unreachable store must not take the API down. Closed (auth routes by default):
      // credential guessing must not get unlimited tries while counters are down.
      const refuse =
        deps.onStoreFailure === 'closed' ||
        (deps.onStoreFailure === 'auto' && 'type' in cls && cls.type === 'authentication');
      deps.onStoreError?.(refuse ? 'refused' : 'allowed');
      deps.logger.warn({ err: error, refused: refuse }, 'rate-limit store unavailable');
      if (refuse) throw errors.unavailable('Rate limiting is unavailable; retry shortly', 5);
      return;
    }
    let tightest = 0;
    let exceeded = -1;
    for (let i = 0; i < counters.length; i++) {
      const remaining = counters[i]!.limit - counts[i]!;
      const best = counters[tightest]!.limit - counts[tightest]!;
      if (remaining < best || (remaining === best && counters[i]!.limit < counters[tightest]!.limit)) tightest = i;
      if (remaining < 0 && (exceeded < 0 || counters[i]!.limit < counters[exceeded]!.limit)) exceeded = i;
    }
    const shown = exceeded >= 0 ? exceeded : tightest;
    const limit = counters[shown]!.limit;
    const remaining = Math.max(0, limit - counts[shown]!);
    const headers = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(Math.ceil(resetMs / 1000)),
    };
    reply.headers(headers);
    if (exceeded >= 0) {
      const retryAfter = Math.max(1, Math.ceil((resetMs - now) / 1000));
      throw new AppError(
        429,
        'rate_limit_exceeded',
        `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfter} s`,
        {
          details: { limit, remaining: 0, reset_at: new Date(resetMs).toISOString(), scope: counters[shown]!.name },
          headers: { ...headers, 'retry-after': String(retryAfter) },
        },
      );
    }
  });
}

function scopeOf(
  request: FastifyRequest,
  cls: Exclude<RateLimitClass, false>,
  deps: RateLimitDeps,
): { key: string; counters: Counter[] } | null {
  if ('public' in cls) {
    const counters = cls.public.counters.map((c) => ({
      name: c.name,
      limit: c.limit,
      ...(c.perClient ? { key: `${c.name}:${clientNetwork(request.ip)}` } : {}),
    }));
    return { key: cls.public.scope(request), counters };
  }
  const auth = request.auth;
  if (auth)
    return {
      key: auth.tenant.id,
      counters: countersFor(auth.tenant.tier, auth.tenant.sandboxOf !== null, cls, deps.unlimitedTierPerMinute),
    };
  // Only unauthenticated auth endpoints are limited without a tenant; other public routes are not.
  if (!('type' in cls) || cls.type !== 'authentication' || cls.failuresOnly) return null;
  return { key: `ip:${clientNetwork(request.ip)}`, counters: [{ name: 'anonymous', limit: deps.anonymousPerMinute }] };
}
