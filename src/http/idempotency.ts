import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { errors } from '../lib/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { MultipartFingerprintCollector } from '../lib/multipart-fingerprint.ts';
import type { IdempotencyRecord, IdempotencyRepository } from './idempotency.repository.ts';
import { seal, sealFor, unseal } from './idempotency-sealing.ts';
import { assertBodyStillArriving } from './request-body.ts';
import { onStateChangingRoutes } from './route-hooks.ts';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY_RE = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A first request still "running" after this is taken for dead (crashed process) and its key freed. */
const LOCK_MS = 10 * 60 * 1000;
const PURGE_INTERVAL_MS = 10 * 60 * 1000;
/** Response headers never stored: per-response, per-connection or recomputed on replay. */
const UNSTORED_HEADERS =
  /^(x-ratelimit-|retry-after$|x-request-id$|date$|connection$|keep-alive$|content-length$|transfer-encoding$|access-control-|vary$|set-cookie$|idempotent-replayed$)/;

interface State {
  /** The caller's tenant id, or `admin`. */
  scope: string;
  /** The record's lookup hash (the key itself is never stored). */
  key: string;
  secret: Buffer;
  /** This request claimed the key and its answer will be stored. */
  owner: boolean;
  fingerprint: string | null;
}

const states = new WeakMap<FastifyRequest, State>();
/** How to store or release the claimed key of a request whose handler hijacked the reply. */
const streamSettlers = new WeakMap<FastifyRequest, (answer: StreamedAnswer | null) => Promise<void>>();

/** What a hijacked reply sent, to be replayed as it was. */
export interface StreamedAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * For handlers that hijack the reply (server-sent events), which `onSend` never sees: stores what
 * was streamed as the answer a repeat with the same Idempotency-Key replays, or (`null`: the stream
 * failed or the client left) releases the key so that a repeat is answered afresh. Harmless
 * without an Idempotency-Key.
 */
export async function settleStreamedRequest(request: FastifyRequest, answer: StreamedAnswer | null): Promise<void> {
  const settle = streamSettlers.get(request);
  streamSettlers.delete(request);
  await settle?.(answer);
}

/** The fingerprint of a JSON (or empty) body: SHA-256 of its canonical form (keys sorted). */
export function jsonFingerprint(body: unknown): string {
  return sha256(JSON.stringify({ json: canonical(body ?? null) }));
}

/**
 * Declares the fingerprint of a multipart request whose handler streamed the body itself. Call it
 * before replying (after the last part was read); the idempotency layer stores it with the answer,
 * and a repeat with the same key is compared against it. Harmless without an Idempotency-Key.
 */
export function setRequestFingerprint(request: FastifyRequest, fingerprint: string): void {
  const state = states.get(request);
  if (state?.owner) state.fingerprint = fingerprint;
}

export interface IdempotencyDeps {
  database: Database;
  clock: Clock;
  repository: IdempotencyRepository;
  logger: Logger;
}

/**
 * `Idempotency-Key` on POST, PUT, PATCH and DELETE of authenticated tenant and admin requests (spec
 * Authentication rule 5): the first answer (status, body, meaningful headers) is stored per tenant
 * and key for 24 h and replayed for repeats with `Idempotent-Replayed: true`. The same key with
 * another method, path, body or caller is 422 `idempotency_key_reused`; a repeat while the first
 * still runs is 409 `idempotency_in_progress`. Validation failures (400), rate limiting (429) and
 * server errors (5xx) store nothing: the key is released. Multipart repeats are fingerprinted here
 * by streaming the parts (files hashed, not stored) and never reach the handler.
 */
export function installIdempotency(app: FastifyInstance, deps: IdempotencyDeps): void {
  const { database, clock, repository, logger } = deps;
  let nextPurge = 0;

  onStateChangingRoutes(app, 'preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!MUTATING.has(request.method)) return;
    const header = request.headers['idempotency-key'];
    const caller = callerOf(request);
    if (header === undefined || !caller) return;
    if (typeof header !== 'string' || !KEY_RE.test(header)) {
      throw errors.field('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
    }
    const now = clock.now();
    if (now >= nextPurge) {
      nextPurge = now + PURGE_INTERVAL_MS;
      repository
        .purgeExpired(database.db, now)
        .catch((error: unknown) => logger.warn({ err: error }, 'idempotency purge failed'));
    }
    const multipart = isMultipart(request);
    const fingerprint = multipart ? null : jsonFingerprint(request.body);
    const sealing = sealFor(caller.scope, header);
    const claim = {
      scope: caller.scope,
      key: sealing.lookup,
      principal: caller.principal,
      method: request.method,
      path: request.url,
      fingerprint,
      now,
      lockMs: LOCK_MS,
      ttlMs: IDEMPOTENCY_TTL_MS,
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await repository.claim(database.db, claim)) {
        const state: State = { scope: claim.scope, key: claim.key, secret: sealing.secret, owner: true, fingerprint };
        states.set(request, state);
        streamSettlers.set(request, async (answer) => {
          if (!state.owner) return;
          state.owner = false;
          try {
            if (answer === null) await repository.release(database.db, state.scope, state.key);
            else {
              await repository.complete(database.db, state.scope, state.key, {
                fingerprint: state.fingerprint,
                statusCode: answer.statusCode,
                headers: seal(state.secret, JSON.stringify(storable(answer.headers))),
                body: seal(state.secret, `txt:${answer.body}`),
              });
            }
          } catch (error) {
            logger.error({ err: error }, 'could not store the idempotent streamed answer');
          }
        });
        return;
      }
      const record = await repository.find(database.db, claim.scope, claim.key);
      if (!record) continue;
      if (record.expiresAt <= now || (record.state === 'running' && record.lockedUntil <= now)) {
        await repository.removeStale(database.db, claim.scope, claim.key, now);
        continue;
      }
      if (record.principal !== claim.principal || record.method !== claim.method || record.path !== claim.path)
        throw reused();
      if (record.state === 'running') {
        if (fingerprint !== null && record.fingerprint !== null && record.fingerprint !== fingerprint) throw reused();
        throw inProgress();
      }
      const presented = multipart ? await fingerprintMultipartBody(request) : fingerprint;
      if (record.fingerprint !== null && record.fingerprint !== presented) throw reused();
      return replay(reply, record, sealing.secret);
    }
    throw inProgress();
  });

  onStateChangingRoutes(app, 'onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const state = states.get(request);
    if (!state?.owner) return payload;
    state.owner = false;
    const status = reply.statusCode;
    const body = storableBody(payload);
    try {
      if (status === 400 || status === 429 || status >= 500 || body === null) {
        await repository.release(database.db, state.scope, state.key);
      } else {
        await repository.complete(database.db, state.scope, state.key, {
          fingerprint: state.fingerprint,
          statusCode: status,
          headers: seal(state.secret, JSON.stringify(storableHeaders(reply))),
          body: seal(state.secret, body),
        });
      }
    } catch (error) {
      // The answer itself is fine; a repeat will find the key running until its lock lapses.
      logger.error({ err: error }, 'could not store the idempotent answer');
    }
    return payload;
  });
}

/**
 * Whose records a request reaches: its tenant's (per user or API key), or the administrator's on
 * admin routes (the authentication hook has checked the key by then), or the public scope of
 * unauthenticated routes that create something and opt in (register). Other unauthenticated calls
 * (login, password reset) have no scope and are answered afresh.
 */
function callerOf(request: FastifyRequest): { scope: string; principal: string } | null {
  const auth = request.auth;
  if (auth) return { scope: auth.tenant.id, principal: auth.userId ? `user:${auth.userId}` : `key:${auth.apiKeyId}` };
  if (request.routeOptions.config?.auth === 'admin') return { scope: 'admin', principal: 'admin' };
  if (request.routeOptions.config?.idempotency === 'public') return { scope: 'public', principal: 'public' };
  return null;
}

const reused = errors.idempotencyKeyReused;
const inProgress = errors.idempotencyInProgress;

function replay(reply: FastifyReply, record: IdempotencyRecord, secret: Buffer): FastifyReply {
  reply.code(record.statusCode ?? 200);
  const headers = record.headers ? (JSON.parse(unseal(secret, record.headers)) as Record<string, string>) : {};
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  reply.header('idempotent-replayed', 'true');
  const body = record.body ? unseal(secret, record.body) : 'txt:';
  return reply.send(body.startsWith('b64:') ? Buffer.from(body.slice(4), 'base64') : body.slice(4));
}

/** `txt:` + text or `b64:` + base64 of bytes; null for a stream (not stored). */
function storableBody(payload: unknown): string | null {
  if (payload === null || payload === undefined) return 'txt:';
  if (typeof payload === 'string') return `txt:${payload}`;
  if (Buffer.isBuffer(payload)) return `b64:${payload.toString('base64')}`;
  return null;
}

function storableHeaders(reply: FastifyReply): Record<string, string> {
  return storable(reply.getHeaders());
}

function storable(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || UNSTORED_HEADERS.test(lower)) continue;
    out[lower] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

type MultipartRequest = FastifyRequest & {
  isMultipart?: () => boolean;
  parts?: (options?: {
    limits?: Record<string, number>;
  }) => AsyncIterable<
    | { type: 'file'; fieldname: string; filename?: string; file: Readable }
    | { type: 'field'; fieldname: string; value: unknown }
  >;
};

function isMultipart(request: FastifyRequest): boolean {
  const r = request as MultipartRequest;
  return typeof r.isMultipart === 'function' && typeof r.parts === 'function' && r.isMultipart();
}

/** Streams a repeated multipart body, hashing each file without keeping it, into its fingerprint. */
async function fingerprintMultipartBody(request: FastifyRequest): Promise<string> {
  const collector = new MultipartFingerprintCollector();
  // Hashing stores nothing, so the parser's own ceilings (made for storing) need not apply here.
  const limits = {
    fileSize: Number.MAX_SAFE_INTEGER,
    files: 10_000,
    fields: 10_000,
    parts: 20_000,
    fieldSize: 16 * 1024 * 1024,
  };
  assertBodyStillArriving(request);
  for await (const part of (request as MultipartRequest).parts!({ limits })) {
    if (part.type === 'file') {
      const hash = createHash('sha256');
      for await (const chunk of part.file) hash.update(chunk as Buffer);
      collector.file(part.fieldname, part.filename ?? '', hash.digest('hex'));
    } else {
      collector.field(part.fieldname, typeof part.value === 'string' ? part.value : JSON.stringify(part.value ?? ''));
    }
  }
  return collector.digest();
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
