import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type AuditActionSpec,
  ROUTE_ACTIONS,
  ROUTES_DECLARING_AUDIT,
  type RouteAudit,
  resolveSpec,
} from './audit-actions.ts';
import {
  DENIAL_CODES,
  type AuditActor,
  type AuditEntry,
  type AuditScope,
  type AuditTrail,
  actorOf,
  type RequestOrigin,
} from './audit-trail.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What the audit trail records for this route (docs/audit.md): an action of the catalogue
     * (`src/modules/audit/audit-actions.ts`) by name, or a full spec `{action, kind, target, from}`.
     */
    audit?: RouteAudit;
  }
  interface FastifyRequest {
    /** The audit scope of a request on an audited route (or one that records reads itself). */
    auditScope: AuditScope | null;
  }
}

/** Routes that record reads from inside their handler (chat citations, MCP reads): they get a scope for the caller's origin. */
const SCOPED_ROUTES = new Set(['POST /api/v1/chat/sessions/:id/ask', 'POST /mcp']);

/** 403 codes that are access decisions (not a tier limit, a suspended tenant or a missing CSRF token). */

const USER_AGENT_MAX = 512;

interface RouteAuditInfo {
  spec: AuditActionSpec | null;
  scoped: boolean;
  key: string;
}

export interface AuditHttpDeps {
  trail: AuditTrail;
  /**
   * Whether an object a 404 named exists in the tenant (then the 404 hid it from the caller, and
   * the refusal is recorded). By resource type; types without a check are not recorded on 404.
   */
  exists: (resourceType: string, tenantId: string, id: string) => Promise<boolean>;
}

function originOf(request: FastifyRequest): RequestOrigin {
  const ua = request.headers['user-agent'];
  return {
    ip: request.ip ?? null,
    userAgent: typeof ua === 'string' ? ua.slice(0, USER_AGENT_MAX) : null,
    requestId: request.id,
  };
}

function paramsOf(request: FastifyRequest): Record<string, string> {
  return (request.params ?? {}) as Record<string, string>;
}

/** The JSON of an answer, when the hook needs it (an error's code, a creation's id); null when it is not JSON. */
function jsonOf(payload: unknown): Record<string, unknown> | null {
  if (typeof payload !== 'string' || payload.length === 0 || payload[0] !== '{') return null;
  try {
    return JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** A route parameter (`name`), or a field of the answer (`response`: its `id`; `response:a.b`: that field). */
function valueFrom(from: string, request: FastifyRequest, payload: unknown): string | null {
  if (!from.startsWith('response')) return paramsOf(request)[from] ?? null;
  const path = from.includes(':') ? from.slice(from.indexOf(':') + 1).split('.') : ['id'];
  let value: unknown = jsonOf(payload);
  for (const key of path)
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : null;
}

/** The act's target id: a route parameter or a field of the answer (creations). */
function targetIdOf(spec: AuditActionSpec, request: FastifyRequest, payload: unknown): string | null {
  return spec.target ? valueFrom(spec.from ?? 'id', request, payload) : null;
}

/** What else the request named: the other route parameters, and the fields (never values) a JSON body changed. */
function detailsOf(
  request: FastifyRequest,
  spec: AuditActionSpec | null,
  extra?: Record<string, unknown>,
): Record<string, unknown> | null {
  // Built only when something goes in: a read names its document alone, so most records have none.
  let details: Record<string, unknown> | null = extra ? { ...extra } : null;
  const targetParam = spec?.target ? (spec.from ?? 'id') : null;
  const params = paramsOf(request);
  for (const name in params) {
    if (name === targetParam) continue;
    details ??= {};
    details[name] = params[name];
  }
  const body = request.body;
  if (
    spec &&
    spec.kind !== 'read' &&
    body &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    request.isMultipart?.() !== true
  ) {
    const fields = Object.keys(body);
    if (fields.length > 0) {
      details ??= {};
      details['fields'] = fields;
    }
  }
  return details && Object.keys(details).length > 0 ? details : null;
}

/**
 * The one hook pair that records what routes declare (docs/audit.md): installed once, on the root
 * instance, so it covers `/api/v1`, the sandbox prefix and `/mcp`.
 *
 * - `onRequest` finds the route's declaration (cached per route) and, for audited routes only,
 *   runs the rest of the request inside an audit scope (AsyncLocalStorage), so services can
 *   record in their transaction (`recordIn`) or record reads with the caller's origin.
 * - `onSend` records: a successful change or administrative act before the answer leaves (unless
 *   it was recorded in its transaction), a read into the batch, a refusal (403, or 404 on a
 *   document that exists) and a failed change into the batch.
 */
export function installAuditHooks(app: FastifyInstance, deps: AuditHttpDeps): void {
  const { trail } = deps;
  const routes = new WeakMap<object, RouteAuditInfo>();
  const infoOf = (request: FastifyRequest): RouteAuditInfo => {
    const config = request.routeOptions.config as { audit?: RouteAudit } & object;
    let info = routes.get(config);
    if (!info) {
      const key = `${request.method} ${request.routeOptions.url ?? ''}`;
      const declared = config.audit ?? ROUTE_ACTIONS[key];
      info = { spec: declared ? resolveSpec(declared) : null, scoped: SCOPED_ROUTES.has(key), key };
      routes.set(config, info);
    }
    return info;
  };

  app.decorateRequest('auditScope', null);
  // Routes registered from now on (every module's /api/v1 routes) that declare their action themselves.
  app.addHook('onRoute', (route) => {
    if (!(route.config as { audit?: unknown } | undefined)?.audit) return;
    for (const method of Array.isArray(route.method) ? route.method : [route.method])
      ROUTES_DECLARING_AUDIT.add(`${method} ${route.url}`);
  });

  app.addHook('onRequest', (request, _reply, done) => {
    const info = infoOf(request);
    if (!info.spec && !info.scoped) return done();
    const scope: AuditScope = {
      auth: request.auth,
      origin: originOf(request),
      spec: info.spec,
      recordedInTransaction: false,
    };
    request.auditScope = scope;
    // A declared read is recorded by onSend from the scope on the request: nothing in its handler
    // records against the scope, so it runs without entering AsyncLocalStorage.
    if (info.spec?.kind === 'read' && !info.scoped) return done();
    trail.enter(scope, done);
  });

  // Callback style, not async: the common answers (a success on a route without a declaration, a
  // change recorded in its transaction, a recorded read) are decided synchronously, without a
  // promise per request.
  app.addHook(
    'onSend',
    (
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (err: Error | null, payload?: unknown) => void,
    ) => {
      const status = reply.statusCode;
      const scope = request.auditScope;
      const spec = scope?.spec;
      if (status < 400 && spec?.kind === 'read' && request.auth) {
        recordRead(request, spec, status, payload);
        return done(null, payload);
      }
      // A change already recorded in its transaction needs nothing more: decided here, before its
      // answer's JSON would be parsed again for a target id the record already has.
      if (status < 400 && (!spec || scope?.recordedInTransaction)) return done(null, payload);
      onSendSlow(request, reply, payload).then(
        (out) => done(null, out),
        (err: Error) => done(err),
      );
    },
  );

  /** A successful declared read of an authenticated caller: into the batch. */
  const recordRead = (request: FastifyRequest, spec: AuditActionSpec, status: number, payload: unknown): void => {
    const auth = request.auth as NonNullable<FastifyRequest['auth']>;
    trail.buffer(
      trail.row({
        tenantId: auth.tenant.id,
        actor: actorOf(auth),
        action: spec.action,
        targetType: spec.target ?? null,
        targetId: targetIdOf(spec, request, payload),
        outcome: 'success',
        status,
        origin: request.auditScope?.origin ?? originOf(request),
        details: detailsOf(request, spec),
      }),
    );
  };

  const onSendSlow = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const status = reply.statusCode;
    const info = infoOf(request);
    const spec = info.spec;
    const auth = request.auth;
    // Tenant routes act in the caller's tenant; administrator-key routes name theirs.
    let tenantId = auth?.tenant.id ?? null;
    let actor: AuditActor = auth ? actorOf(auth) : { type: 'platform_admin', id: null };
    if (!auth && spec) {
      tenantId = valueFrom(spec.tenantFrom ?? 'tenant_id', request, payload);
      actor = { type: 'platform_admin', id: null };
    }
    if (!tenantId) return payload;
    const origin = request.auditScope?.origin ?? originOf(request);

    if (status < 400) {
      if (!spec) return payload;
      const entry: AuditEntry = {
        tenantId,
        actor,
        action: spec.action,
        targetType: spec.target ?? null,
        targetId: targetIdOf(spec, request, payload),
        outcome: 'success',
        status,
        origin,
        details: detailsOf(request, spec),
      };
      if (spec.kind === 'read') trail.buffer(trail.row(entry));
      else if (!request.auditScope?.recordedInTransaction) await trail.record(trail.database(), entry);
      return payload;
    }

    // Refusals and failures go to the batch: they changed nothing.
    const body = jsonOf(payload);
    // `error` is the lower-case code (`code` repeats it in upper case).
    const code = typeof body?.['error'] === 'string' ? body['error'] : null;
    const params = paramsOf(request);
    const refusal = (targetType: string | null, targetId: string | null): void =>
      trail.buffer(
        trail.row({
          tenantId: tenantId as string,
          actor,
          action: 'access.denied',
          targetType,
          targetId,
          outcome: 'denied',
          status,
          origin,
          details: detailsOf(request, null, { route: info.key, ...(spec ? { attempted: spec.action } : {}) }),
        }),
      );
    if (status === 403 && code !== null && DENIAL_CODES.has(code) && auth) {
      refusal(spec?.target ?? null, spec ? targetIdOf(spec, request, null) : (params['id'] ?? null));
      return payload;
    }
    const details = body?.['details'] as { resource_type?: unknown; resource_id?: unknown } | undefined;
    if (
      status === 404 &&
      code === 'not_found' &&
      auth &&
      typeof details?.resource_type === 'string' &&
      typeof details.resource_id === 'string'
    ) {
      const type = details.resource_type;
      const id = details.resource_id;
      // After the answer: a 404 costs the caller nothing more.
      void deps.exists(type, tenantId, id).then(
        (exists) => (exists ? refusal(type, id) : undefined),
        () => undefined,
      );
      return payload;
    }
    if (spec && spec.kind !== 'read') {
      trail.buffer(
        trail.row({
          tenantId,
          actor,
          action: spec.action,
          targetType: spec.target ?? null,
          targetId: spec.from?.startsWith('response') ? null : targetIdOf(spec, request, null),
          outcome: 'failed',
          status,
          origin,
          details: detailsOf(request, spec, code ? { error: code } : undefined),
        }),
      );
    }
    return payload;
  };
}
