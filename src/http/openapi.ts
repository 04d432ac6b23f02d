import { type FastifyDynamicSwaggerOptions, formatParamUrl } from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBody } from './common-schemas.ts';
import { isSingleResourceRead } from './conditional-requests.ts';
import { API_PREFIX, type RouteAuth, routeAuthOf } from './fastify-types.ts';
import {
  ERROR_RESPONSES,
  type ErrorResponseName,
  OPENAPI_HEADERS,
  OPENAPI_PARAMETERS,
  OPENAPI_SECURITY_SCHEMES,
  type OperationExamples,
  SUCCESS_DESCRIPTIONS,
  TAG_DESCRIPTIONS,
} from './openapi-content.ts';
import { classifyRoute } from './rate-limit.ts';

/*
 * The OpenAPI document, completed centrally (docs/api.md links to it). Route files declare what
 * only they know (summary, tags, description, params, body and answer schemas, `config.auth`,
 * `config.rateLimit`); everything that follows from those is added here, for every route, including
 * routes added later by any module:
 *
 * - an `operationId` per operation, derived from method + path (`listDocuments`, `getDocument`,
 *   `createChatSession`, `askChatSession`); `schema.operationId` overrides it;
 * - the security requirement from `config.auth` (`routeAuthOf`): API key or user token for tenant
 *   routes, the administrator key for `admin`, none for `public`;
 * - the error answers the platform gives around the handler (401/403 from authentication, 429 from
 *   the rate limiter, 400 from validation, 409/422 from Idempotency-Key...), as shared `$ref`s;
 * - the `Idempotency-Key` and `X-CSRF-Token` headers of state-changing calls, the `X-RateLimit-*`
 *   headers of rate-limited answers;
 * - tag descriptions, the declared examples, and a request body for routes that stream their own
 *   body (multipart uploads declare `schema.documentedBody`: shown in the document, never validated).
 *
 * An `onRoute` hook installed before any route records every route (`registeredRoutes(app)`, which
 * the completeness test walks); `openApiSwaggerOptions` hands @fastify/swagger the two transforms.
 */

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The request body as the OpenAPI document shows it, for handlers that read the body themselves
     * (multipart streams). Documentation only: Fastify does not validate it.
     */
    documentedBody?: unknown;
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** One method of one registered route, as the document must show it. */
export interface RegisteredRoute {
  method: string;
  /** The URL as Fastify has it (`/api/v1/documents/:id`). */
  url: string;
  /** The OpenAPI path (`/api/v1/documents/{id}`). */
  path: string;
  auth: RouteAuth;
  /** `schema.hide`, or a HEAD route: not in the document. */
  hidden: boolean;
  /** Null for hidden routes. */
  operationId: string | null;
  rateLimited: boolean;
  /** A GET answered with an ETag, and 304 for a current If-None-Match (src/http/conditional-requests.ts). */
  conditionalRead: boolean;
  /** An update that takes If-Match (412 when stale). */
  ifMatch: boolean;
}

export interface OpenApiRegistry {
  readonly routes: RegisteredRoute[];
  /** Operation ids that two routes would share: the later one got a suffix; the completeness test fails on them. */
  readonly problems: string[];
  find(method: string, path: string): RegisteredRoute | undefined;
}

const registries = new WeakMap<FastifyInstance, OpenApiRegistry>();

/** Every route registered on `app` since `installOpenApiRegistry`, for tests and tooling. */
export function registeredRoutes(app: FastifyInstance): OpenApiRegistry {
  const registry = registries.get(app);
  if (!registry) throw new Error('installOpenApiRegistry(app) was not called');
  return registry;
}

/**
 * Records every route registered from now on and gives it an operationId. Install it first, before
 * any plugin or module registers a route: a route registered earlier is invisible to it.
 */
export function installOpenApiRegistry(app: FastifyInstance): OpenApiRegistry {
  const routes: RegisteredRoute[] = [];
  const problems: string[] = [];
  const byKey = new Map<string, RegisteredRoute>();
  const owners = new Map<string, string>();
  const registry: OpenApiRegistry = {
    routes,
    problems,
    find: (method, path) => byKey.get(`${method.toUpperCase()} ${path}`),
  };
  registries.set(app, registry);

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
    const documented = methods.filter((m) => m !== 'HEAD');
    const explicit = route.schema?.operationId;
    for (const method of methods) {
      const hidden = route.schema?.hide === true || method === 'HEAD';
      let operationId: string | null = null;
      if (!hidden) {
        // One explicit id for a route of several methods: each method gets it with its own suffix.
        const wanted = explicit
          ? documented.length > 1
            ? `${explicit}${pascal([method.toLowerCase()])}`
            : explicit
          : deriveOperationId(method, route.url);
        operationId = wanted;
        const owner = owners.get(wanted);
        if (owner) {
          // Still unique, so the document stays valid; the completeness test fails on `problems`.
          operationId = `${wanted}${pascal([method.toLowerCase()])}`;
          while (owners.has(operationId)) operationId = `${operationId}Again`;
          problems.push(
            `operationId "${wanted}" of ${method} ${route.url} is already used by ${owner}: set schema.operationId on one of them`,
          );
        }
        owners.set(operationId, `${method} ${route.url}`);
      }
      const entry: RegisteredRoute = {
        method,
        url: route.url,
        path: formatParamUrl(route.url),
        auth: routeAuthOf(route.url, route.config),
        hidden,
        operationId,
        rateLimited: classifyRoute(route.url, route.config) !== false,
        conditionalRead: isSingleResourceRead(method, route.url),
        ifMatch: route.config?.ifMatch === true,
      };
      routes.push(entry);
      byKey.set(`${method} ${entry.path}`, entry);
    }
  });
  return registry;
}

// ---------------------------------------------------------------------------------------------
// operationId derivation

/** First words of a path segment read as the operation's verb (`/documents/{id}/download`). */
const ACTION_VERBS = new Set([
  'accept',
  'activate',
  'apply',
  'approve',
  'archive',
  'ask',
  'cancel',
  'change',
  'confirm',
  'copy',
  'deactivate',
  'download',
  'export',
  'forgot',
  'import',
  'invite',
  'login',
  'logout',
  'move',
  'pause',
  'preview',
  'publish',
  'redeliver',
  'refresh',
  'register',
  'reject',
  'reprocess',
  'reset',
  'restore',
  'resume',
  'retry',
  'revoke',
  'rotate',
  'run',
  'search',
  'send',
  'share',
  'start',
  'stop',
  'test',
  'upload',
  'verify',
]);

function wordsOf(segment: string): string[] {
  return segment
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

function pascal(words: readonly string[]): string {
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

function singular(word: string): string {
  if (word.length > 3 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(x|ch|sh|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 1 && word.endsWith('s')) return word.slice(0, -1);
  return word;
}

const singularLast = (words: readonly string[]) => [...words.slice(0, -1), singular(words.at(-1) ?? '')];
const isParam = (segment: string) => segment.startsWith(':') || segment.startsWith('*') || segment.startsWith('{');

/**
 * A stable camelCase id from method and path, under `/api/v1` or at the root:
 * `GET /documents` listDocuments, `GET /documents/{id}` getDocument, `PUT` updateDocument,
 * `DELETE` deleteDocument, `POST /chat/sessions` createChatSession, `POST /chat/sessions/{id}/ask`
 * askChatSession, `GET /documents/{id}/download` downloadDocument, `GET /documents/{id}/content`
 * getDocumentContent, `POST /auth/login` loginAuth. A collection named before a parameter is
 * singular (`/webhooks/{id}/deliveries` listWebhookDeliveries).
 */
export function deriveOperationId(method: string, url: string): string {
  const m = method.toUpperCase();
  const rest = url === API_PREFIX || url.startsWith(`${API_PREFIX}/`) ? url.slice(API_PREFIX.length) : url;
  const segments = rest.split('/').filter(Boolean);
  const nouns: string[][] = [];
  segments.forEach((segment, i) => {
    if (isParam(segment)) return;
    const words = wordsOf(segment);
    if (words.length === 0) return;
    const next = segments[i + 1];
    nouns.push(next !== undefined && isParam(next) ? singularLast(words) : words);
  });
  const itemVerb: Record<string, string> = {
    GET: 'get',
    PUT: 'update',
    PATCH: 'update',
    DELETE: 'delete',
    POST: 'create',
  };
  if (nouns.length === 0) return `${itemVerb[m] ?? m.toLowerCase()}Root`;
  if (isParam(segments.at(-1) ?? '')) return (itemVerb[m] ?? m.toLowerCase()) + pascal(nouns.flat());

  const last = nouns.pop()!;
  const context = pascal(nouns.flat());
  const [first, ...others] = last as [string, ...string[]];
  if (ACTION_VERBS.has(first)) return first + context + pascal(others);
  const plural = singular(last.at(-1)!) !== last.at(-1);
  switch (m) {
    case 'GET':
      return (plural ? 'list' : 'get') + context + pascal(last);
    case 'POST':
      return (plural ? 'create' : 'post') + context + pascal(plural ? singularLast(last) : last);
    case 'PUT':
    case 'PATCH':
      return `update${context}${pascal(last)}`;
    case 'DELETE':
      return `delete${context}${pascal(last)}`;
    default:
      return m.toLowerCase() + context + pascal(last);
  }
}

// ---------------------------------------------------------------------------------------------
// The document

type Json = Record<string, unknown>;
type Operation = Json & {
  responses?: Record<string, Json>;
  parameters?: Json[];
  tags?: string[];
  operationId?: string;
};

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Structural equality of two JSON values, key order ignored. */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameJson(a[k], b[k]));
  }
  return a === b;
}

/** The error body as JSON (TypeBox's symbols dropped). */
const ERROR_SCHEMA = JSON.parse(JSON.stringify(ErrorBody)) as Json;

function isErrorBodyResponse(response: Json): boolean {
  const content = response['content'];
  if (!isObject(content)) return false;
  const types = Object.keys(content);
  if (types.length !== 1 || types[0] !== 'application/json') return false;
  const media = content['application/json'];
  return isObject(media) && sameJson(media['schema'], ERROR_SCHEMA);
}

function isBinary(schema: unknown): boolean {
  return (
    isObject(schema) &&
    schema['type'] === 'string' &&
    (schema['format'] === 'binary' || schema['contentMediaType'] !== undefined)
  );
}

const SECURITY: Record<RouteAuth, Record<string, string[]>[]> = {
  tenant: [{ apiKey: [] }, { bearer: [], tenantSubdomain: [] }],
  admin: [{ adminKey: [] }],
  public: [],
};

/** The platform's error answers an operation can give, by what the route is. */
function platformErrors(route: RegisteredRoute, op: Operation): ErrorResponseName[] {
  const names: ErrorResponseName[] = [];
  const hasInput = Boolean(op['requestBody']) || (op.parameters ?? []).length > 0;
  const hasPathParams = (op.parameters ?? []).some((p) => p['in'] === 'path');
  const jsonBody =
    isObject(op['requestBody']) &&
    isObject(op['requestBody']['content']) &&
    'application/json' in op['requestBody']['content'];
  const credentialed = route.auth !== 'public';
  const idempotent = credentialed && STATE_CHANGING.has(route.method);
  if (hasInput) names.push('BadRequest');
  if (credentialed) names.push('Unauthorized');
  if (route.auth === 'tenant') names.push('Forbidden');
  if (hasPathParams) names.push('NotFound');
  if (idempotent) names.push('Conflict', 'IdempotencyKeyReused');
  if (jsonBody) names.push('PayloadTooLarge', 'UnsupportedMediaType');
  if (route.rateLimited) names.push('TooManyRequests');
  if (route.ifMatch) names.push('PreconditionFailed');
  // Anything that reads the database or the blob store can find it unreachable for a moment.
  if (credentialed || route.path.startsWith(`${API_PREFIX}/auth/`)) names.push('ServiceUnavailable');
  return names;
}

function ref(kind: 'responses' | 'headers' | 'parameters' | 'schemas', name: string): { $ref: string } {
  return { $ref: `#/components/${kind}/${name}` };
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  license: { name: string; identifier?: string; url?: string };
  contact?: { name?: string; email?: string; url?: string };
}

export interface OpenApiOptions {
  info: OpenApiInfo;
  servers: { url: string; description: string }[];
  /** Examples of answers, by operationId then status (checked by the completeness test). */
  examples?: OperationExamples;
  /** The document's `webhooks` and the component schemas they use (src/http/openapi-webhooks.ts). */
  webhooks?: { webhooks: Json; schemas: Json };
}

/** Completes the document @fastify/swagger generated (see the comment at the top of this file). */
export function completeDocument(doc: Json, registry: OpenApiRegistry, options: OpenApiOptions): Json {
  const used = {
    responses: new Set<string>(),
    headers: new Set<string>(),
    parameters: new Set<string>(),
    tags: new Set<string>(),
  };
  const useHeader = (name: keyof typeof OPENAPI_HEADERS) => {
    used.headers.add(name);
    return ref('headers', name);
  };
  const paths = (doc['paths'] ?? {}) as Record<string, Json>;

  const seen = new Set<unknown>();
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      let op = item[method] as Operation | undefined;
      if (!op) continue;
      // A route of several methods shares one operation object between them: each gets its own.
      if (seen.has(op)) {
        op = structuredClone(op);
        item[method] = op;
      }
      seen.add(op);
      const route = registry.find(method, path);
      for (const tag of op.tags ?? []) used.tags.add(tag);
      if (!route) continue; // not registered through the registry (cannot happen when it is installed first)
      if (route.operationId) op.operationId = route.operationId;
      op['security'] = SECURITY[route.auth];

      op.responses ??= {};
      const responses = op.responses;
      for (const [status, response] of Object.entries(responses)) {
        // Error answers of the contract's shape become the shared, described responses.
        const shared = ERROR_RESPONSES.find((r) => r.status === status);
        if (shared && !('$ref' in response) && isErrorBodyResponse(response)) {
          responses[status] = ref('responses', shared.name);
          used.responses.add(shared.name);
          continue;
        }
        if (!/^[23]/.test(status)) continue;
        if (response['description'] === 'Default Response')
          response['description'] = SUCCESS_DESCRIPTIONS[status] ?? 'Success';
        const content = response['content'];
        if (status === '204' || status === '304') delete response['content'];
        else if (
          isObject(content) &&
          Object.keys(content).length === 1 &&
          isObject(content['application/json']) &&
          isBinary(content['application/json']['schema'])
        ) {
          // A file, not JSON: its own media type is in Content-Type.
          response['content'] = { 'application/octet-stream': content['application/json'] };
        }
        if (status === '200' && (route.conditionalRead || route.ifMatch)) {
          response['headers'] = {
            ...(isObject(response['headers']) ? response['headers'] : {}),
            ETag: useHeader('ETag'),
            ...(route.conditionalRead ? { 'Last-Modified': useHeader('LastModified') } : {}),
          };
        }
        if (route.rateLimited && status.startsWith('2')) {
          response['headers'] = {
            ...(isObject(response['headers']) ? response['headers'] : {}),
            'X-RateLimit-Limit': useHeader('RateLimitLimit'),
            'X-RateLimit-Remaining': useHeader('RateLimitRemaining'),
            'X-RateLimit-Reset': useHeader('RateLimitReset'),
          };
        }
      }
      if (route.conditionalRead && !responses['304']) responses['304'] = { description: SUCCESS_DESCRIPTIONS['304'] };
      if (route.conditionalRead || route.ifMatch) {
        op.parameters ??= [];
        const name = route.conditionalRead ? 'IfNoneMatch' : 'IfMatch';
        op.parameters.push(ref('parameters', name));
        used.parameters.add(name);
      }
      for (const name of platformErrors(route, op)) {
        const shared = ERROR_RESPONSES.find((r) => r.name === name)!;
        if (responses[shared.status]) continue;
        responses[shared.status] = ref('responses', name);
        used.responses.add(name);
      }
      if (!Object.keys(responses).some((s) => s.startsWith('4'))) {
        responses['4XX'] = ref('responses', 'ClientError');
        used.responses.add('ClientError');
      }

      // Headers the platform reads on state-changing calls.
      if (route.auth !== 'public' && STATE_CHANGING.has(route.method)) {
        op.parameters ??= [];
        const parameters = op.parameters;
        const named = new Set(parameters.map((p) => String(p['name']).toLowerCase()));
        const wanted: (keyof typeof OPENAPI_PARAMETERS)[] =
          route.auth === 'tenant' ? ['IdempotencyKey', 'CsrfToken'] : ['IdempotencyKey'];
        for (const name of wanted) {
          if (named.has(OPENAPI_PARAMETERS[name].name.toLowerCase())) continue;
          parameters.push(ref('parameters', name));
          used.parameters.add(name);
        }
      }

      const examples = route.operationId ? options.examples?.[route.operationId] : undefined;
      for (const [status, example] of Object.entries(examples ?? {})) {
        const media = (responses[status]?.['content'] as Json | undefined)?.['application/json'];
        if (isObject(media)) media['examples'] = { [example.name]: { summary: example.summary, value: example.value } };
      }
    }
  }

  // The 429 answer carries the rate-limit headers; the shared responses reference them.
  const responses: Json = {};
  for (const shared of ERROR_RESPONSES) {
    if (!used.responses.has(shared.name)) continue;
    const headers: Json = {};
    for (const h of shared.headers ?? []) headers[OPENAPI_HEADERS[h].name] = useHeader(h);
    responses[shared.name] = {
      description: shared.description,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: {
        'application/json': {
          schema: ref('schemas', 'Error'),
          examples: { [shared.example.error]: { summary: shared.example.message, value: shared.example } },
        },
      },
    };
  }
  const pick = <T extends Record<string, unknown>>(all: T, names: Set<string>) =>
    Object.fromEntries(
      Object.entries(all)
        .filter(([name]) => names.has(name))
        .map(([name, value]) => [name, stripName(value)]),
    );

  const { schemas: generated, ...components } = (isObject(doc['components']) ? doc['components'] : {}) as Json;
  const schemas: Json = { ...(isObject(generated) ? generated : {}) };
  if (used.responses.size > 0) schemas['Error'] = { ...ERROR_SCHEMA, examples: [ERROR_RESPONSES[0]!.example] };
  Object.assign(schemas, options.webhooks?.schemas);
  doc['components'] = {
    ...components,
    securitySchemes: OPENAPI_SECURITY_SCHEMES,
    ...(Object.keys(schemas).length > 0 ? { schemas } : {}),
    ...(Object.keys(responses).length > 0 ? { responses } : {}),
    ...(used.parameters.size > 0 ? { parameters: pick(OPENAPI_PARAMETERS, used.parameters) } : {}),
    ...(used.headers.size > 0 ? { headers: pick(OPENAPI_HEADERS, used.headers) } : {}),
  };

  // Every tag used, described; the known ones in the order of TAG_DESCRIPTIONS, then the others.
  const known = Object.keys(TAG_DESCRIPTIONS).filter((t) => used.tags.has(t));
  const others = [...used.tags].filter((t) => !(t in TAG_DESCRIPTIONS)).sort();
  doc['tags'] = [...known, ...others].map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? `Operations on ${name}.`,
  }));
  doc['info'] = options.info;
  doc['servers'] = options.servers;
  doc['security'] = SECURITY.tenant;
  if (options.webhooks && Object.keys(options.webhooks.webhooks).length > 0)
    doc['webhooks'] = options.webhooks.webhooks;
  return doc;
}

/** Header components carry their wire name for the `headers` maps; the component itself must not. */
function stripName(value: unknown): unknown {
  if (!isObject(value) || !('name' in value) || 'in' in value) return value;
  const { name: _name, ...rest } = value;
  return rest;
}

/** The options of @fastify/swagger: the document's frame and the two transforms completing it. */
export function openApiSwaggerOptions(
  registry: OpenApiRegistry,
  options: OpenApiOptions,
): FastifyDynamicSwaggerOptions {
  const swaggerOptions = {
    openapi: {
      openapi: '3.1.0',
      info: options.info,
      servers: options.servers,
      components: { securitySchemes: OPENAPI_SECURITY_SCHEMES },
      security: SECURITY.tenant,
    },
    // A route that streams its own body documents it as `documentedBody`.
    transform: ({ schema, url }: { schema: Json | undefined; url: string }) => {
      if (!schema || schema['documentedBody'] === undefined || schema['body'] !== undefined) return { schema, url };
      const { documentedBody, ...rest } = schema;
      return { schema: { ...rest, body: documentedBody }, url };
    },
    transformObject: (input: { openapiObject?: unknown }) =>
      completeDocument(input.openapiObject as Json, registry, options),
  };
  // The document is plain JSON built here; @fastify/swagger's own types are narrower than its transforms need.
  return swaggerOptions as unknown as FastifyDynamicSwaggerOptions;
}
