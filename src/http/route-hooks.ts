import type { FastifyInstance, RouteOptions } from 'fastify';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type HookName = 'onRequest' | 'preHandler' | 'onSend';

/**
 * Attaches `hook` to every route registered from now on whose method changes state. Hooks that
 * only concern such requests (CSRF, idempotency) then cost reads nothing, instead of running as
 * global hooks on every request. Route-level hooks run after the global ones of the same kind.
 */
export function onStateChangingRoutes(app: FastifyInstance, name: HookName, hook: unknown): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => STATE_CHANGING.has(m))) return;
    const existing = route[name] as unknown;
    const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    (route as unknown as Record<HookName, unknown[]>)[name] = [...hooks, hook];
  });
}
