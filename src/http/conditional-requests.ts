import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { errors } from '../lib/errors.ts';

/*
 * Conditional requests on JSON resources (RFC 9110 §13), docs/api-decisions.md §15:
 *
 * - every single-resource GET (a path ending in a parameter: `/documents/{id}`, `/folders/{id}`...)
 *   answers an `ETag` computed from the representation it returns, and `Last-Modified` from its
 *   `updated_at` when it has one; `If-None-Match` with a current tag is 304 without a body;
 * - updates that take `If-Match` (documents, folders, workflows: `ifMatchUpdate`) compare it with the
 *   tag of the current representation, as GET would answer it, and answer 412
 *   `precondition_failed` when it is stale; their answer carries the new tag.
 *
 * The tag is a hash of the presented object (keys sorted), so it changes exactly when the answer
 * does, whatever changed it (an edit, processing, a counter), and needs no version column.
 */

/** The strong entity tag of a JSON representation. */
export function representationTag(value: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(value)).digest('base64url').slice(0, 32)}"`;
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function tagsOf(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, ''));
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The handler runs its update through `ifMatchUpdate` (the OpenAPI document shows If-Match and 412). */
    ifMatch?: boolean;
  }
}

/** A GET of one resource, answered with an ETag: its path ends in a parameter. */
export function isSingleResourceRead(method: string, url: string): boolean {
  return (method === 'GET' || method === 'HEAD') && /\/:[^/]+$/.test(url);
}

async function tagRead(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode !== 200 || !isPlainObject(payload) || reply.hasHeader('etag')) return payload;
  const etag = representationTag(payload);
  reply.header('etag', etag);
  const updatedAt = typeof payload['updated_at'] === 'string' ? Date.parse(payload['updated_at']) : Number.NaN;
  if (Number.isFinite(updatedAt)) reply.header('last-modified', new Date(updatedAt).toUTCString());
  const noneMatch = headerText(request.headers['if-none-match']);
  if (noneMatch !== undefined && (noneMatch.trim() === '*' || tagsOf(noneMatch).includes(etag))) {
    reply.code(304);
    return null;
  }
  return payload;
}

/** Drops the body of a 304 (Fastify would otherwise send the serialised `null`). */
async function emptyNotModified(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode !== 304) return payload;
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  return '';
}

/** Attaches the tagging hooks to every single-resource GET registered from now on. */
export function installConditionalGets(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.every((m) => isSingleResourceRead(m, route.url ?? ''))) return;
    const add = (name: 'preSerialization' | 'onSend', hook: unknown) => {
      const existing = route[name] as unknown;
      const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
      (route as unknown as Record<string, unknown[]>)[name] = [...hooks, hook];
    };
    add('preSerialization', tagRead);
    add('onSend', emptyNotModified);
  });
}

// Updates of one resource in this process, one after another per resource, so that two requests
// carrying the same If-Match cannot both pass the check before either has written.
const queues = new Map<string, Promise<unknown>>();

async function serially<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.then(work, work);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  try {
    return await run;
  } finally {
    if (queues.get(key) === settled) queues.delete(key);
  }
}

/**
 * Runs an update under `If-Match`: `current` presents the resource exactly as its GET does (a
 * missing resource throws its 404 first); a tag that is not current is 412 `precondition_failed`
 * (`*` matches any existing resource). Without If-Match the update simply runs. The answer
 * carries the ETag of the resource after the update.
 */
export async function ifMatchUpdate<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
  current: () => Promise<unknown>,
  update: () => Promise<T>,
): Promise<T> {
  const header = headerText(request.headers['if-match']);
  return serially(key, async () => {
    if (header !== undefined) {
      const etag = representationTag(await current());
      if (header.trim() !== '*' && !header.split(',').some((t) => t.trim() === etag)) {
        throw errors.preconditionFailed(etag);
      }
    }
    const result = await update();
    reply.header('etag', representationTag(await current()));
    return result;
  });
}
