import dns from 'node:dns';
import type http from 'node:http';
import type https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher, fetch as undiciFetch } from 'undici';
import { isBlockedAddress, unbracket } from './blocked-addresses.ts';
import { PRIVATE_TARGETS_HINT, refusalForHost } from './guarded-connect.ts';
import { createGuardedNodeAgents } from './guarded-node-agents.ts';
import { OutboundError, toOutboundError } from './outbound-error.ts';

// The one way the service calls other people's servers (webhooks, http_request nodes, customer
// storage, import sources, AI endpoints): a total time budget, a response size cap, no redirects,
// and SSRF protection judged on the address each socket actually connects to.

export { isBlockedAddress } from './blocked-addresses.ts';
export { OutboundError, type OutboundErrorCode } from './outbound-error.ts';

/** One call. Bodies are sent as given; the caller sets Content-Type. */
export interface OutboundRequest {
  url: string;
  /** Default GET. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Total budget (connect, headers and body), default 10 000 ms. */
  timeoutMs?: number;
  /** Bytes of body kept, default 1 MiB; the rest is not read and `truncated` is set. */
  maxResponseBytes?: number;
  /** Redirects are never followed: a 3xx comes back as the response. */
  followRedirects?: false;
  signal?: AbortSignal;
}

/** The answer. Header names are lower case; repeated headers are joined with ", ". */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
  durationMs: number;
}

/** The guarded client, one per process, built in the composition root. */
export interface OutboundHttp {
  request(req: OutboundRequest): Promise<OutboundResponse>;
  /** An undici Dispatcher with the same guard, for SDKs that take one (`fetchOptions: { dispatcher }`). */
  dispatcher(): Promise<Dispatcher>;
  /** undici's fetch bound to `dispatcher`, for SDKs that take a fetch (`new OpenAI({ fetch })`). */
  fetch: typeof undiciFetch;
  /** node:http(s) agents with the same guard, for the AWS SDK (`NodeHttpHandler({ httpAgent, httpsAgent })`). */
  agents: { http: http.Agent; https: https.Agent };
  close(): Promise<void>;
}

export interface OutboundHttpOptions {
  /** ALLOW_PRIVATE_NETWORK_TARGETS: when true nothing is refused (development and tests). */
  allowPrivateNetwork: boolean;
  /** dns.lookup-compatible resolver; tests inject one instead of real DNS. */
  lookup?: LookupFunction;
  /** Sockets per origin, default 8. */
  connectionsPerOrigin?: number;
  userAgent?: string;
  /** PEM certificates trusted on top of Node's default store (tests: a local HTTPS receiver). */
  extraCa?: string[];
  /** Tests only: replaces the blocked-address table (see GuardOptions). */
  blockedAddress?: (ip: string) => boolean;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const DEFAULT_USER_AGENT = 'DocuVault/0.1';
const CLOSE_GRACE_MS = 2_000;

/** Builds the guarded client; `close()` ends its sockets. */
export function createOutboundHttp(options: OutboundHttpOptions): OutboundHttp {
  const connections = options.connectionsPerOrigin ?? 8;
  const agents = createGuardedNodeAgents(options, connections);
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  // undici (1 MB of source) loads on the first outbound call, not in every process at start: many
  // processes never call out (issue 10 item 5, idle memory).
  let loaded: Promise<{ dispatcher: Dispatcher; fetch: typeof undiciFetch }> | null = null;
  const load = () => {
    loaded ??= Promise.all([import('undici'), import('./undici-connector.ts')]).then(([undici, guard]) => ({
      dispatcher: new undici.Agent({ connect: guard.guardedConnector(options), connections }),
      fetch: undici.fetch,
    }));
    return loaded;
  };
  return {
    dispatcher: async () => (await load()).dispatcher,
    agents,
    fetch: async (input, init) => {
      const { dispatcher, fetch } = await load();
      return fetch(input, { ...init, dispatcher });
    },
    request: async (req) => send((await load()).dispatcher, req, options, userAgent),
    async close() {
      agents.http.destroy();
      agents.https.destroy();
      if (!loaded) return;
      const { dispatcher } = await loaded;
      // Graceful first (requests in flight finish), then cut whatever an SDK left hanging.
      const closed = dispatcher.close().then(() => true);
      if (!(await Promise.race([closed, sleep(CLOSE_GRACE_MS, false, { ref: false })]))) await dispatcher.destroy();
    },
  };
}

/**
 * A fetch whose response bodies stop with `response_too_large` past `maxBytes`: for SDKs that read
 * whole answers from servers a tenant names (MCP), so one cannot fill the process's memory.
 * Streams meant to be large (Drive downloads) use the plain `fetch`.
 */
export function withResponseLimit(fetchFn: OutboundHttp['fetch'], maxBytes: number): OutboundHttp['fetch'] {
  return async (input, init) => {
    const res = await fetchFn(input, init);
    if (!res.body) return res;
    let seen = 0;
    const limited = (res.body as unknown as ReadableStream<Uint8Array>).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes)
            controller.error(new OutboundError('response_too_large', `The response is larger than ${maxBytes} bytes`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers as unknown as HeadersInit,
    }) as unknown as Awaited<ReturnType<OutboundHttp['fetch']>>;
  };
}

async function send(
  dispatcher: Dispatcher,
  req: OutboundRequest,
  policy: OutboundHttpOptions,
  userAgent: string,
): Promise<OutboundResponse> {
  const started = performance.now();
  const url = parseHttpUrl(req.url);
  if (!url) throw new OutboundError('invalid_url', 'URL must be an absolute http or https URL');
  const refusal = refusalForHost(url.hostname, policy);
  if (refusal) throw refusal;

  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
  try {
    signal.throwIfAborted();
    const res = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: (req.method ?? 'GET').toUpperCase(),
      headers: requestHeaders(req.headers, url, userAgent),
      body: req.body ?? null,
      signal,
    });
    const { body, truncated } = await readLimited(res.body, req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    return {
      status: res.statusCode,
      headers: flattenHeaders(res.headers),
      body,
      truncated,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    throw toOutboundError(error, { caller: req.signal, deadline, timeoutMs });
  }
}

function parseHttpUrl(text: string): URL | null {
  const url = URL.parse(text);
  return url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : null;
}

function requestHeaders(given: Record<string, string> | undefined, url: URL, userAgent: string) {
  const headers: Record<string, string> = { ...given };
  const has = (name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name);
  if (!has('user-agent')) headers['user-agent'] = userAgent;
  // Credentials in the URL (https://user:pass@host/) become Basic auth; undici would not send them.
  if ((url.username || url.password) && !has('authorization')) {
    const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers['authorization'] = `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  return headers;
}

/** Reads at most `limit` bytes; leaving the loop early destroys the stream (and its socket). */
async function readLimited(body: AsyncIterable<Uint8Array>, limit: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.byteLength > limit) {
      chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, limit - size));
      return { body: Buffer.concat(chunks, limit), truncated: true };
    }
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    size += chunk.byteLength;
  }
  return { body: Buffer.concat(chunks, size), truncated: false };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** How checkUrlTarget judges a URL when it is saved (webhook create and update). */
export interface UrlTargetOptions {
  allowPrivateNetwork: boolean;
  /** Refuse http:// (webhook URLs must be HTTPS: 400 INVALID_URL). */
  httpsOnly?: boolean;
  /** Resolve host names and check their addresses, default true. A name that does not resolve passes. */
  resolve?: boolean;
  lookup?: LookupFunction;
  /** Give up resolving after this long (and pass), default 2000 ms. */
  lookupTimeoutMs?: number;
}

/**
 * Early, friendly validation of a URL someone is saving. Not the security boundary: DNS can
 * change before the call is made, and the connect-time guard is what refuses it then.
 */
export async function checkUrlTarget(
  url: string,
  opts: UrlTargetOptions,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const parsed = parseHttpUrl(url);
  if (!parsed) return { ok: false, reason: 'URL must be an absolute http or https URL' };
  if (opts.httpsOnly && parsed.protocol !== 'https:') return { ok: false, reason: 'URL must use HTTPS' };
  if (opts.allowPrivateNetwork) return { ok: true };
  const refusal = refusalForHost(parsed.hostname, { allowPrivateNetwork: false });
  if (refusal) return { ok: false, reason: refusal.message };
  const host = unbracket(parsed.hostname);
  if (isIP(host) !== 0 || opts.resolve === false) return { ok: true };

  const addresses = await resolveAll(host, opts.lookup ?? (dns.lookup as LookupFunction), opts.lookupTimeoutMs ?? 2000);
  const bad = addresses?.find(isBlockedAddress);
  return bad
    ? { ok: false, reason: `Host ${host} resolves to a private or reserved address (${bad}); ${PRIVATE_TARGETS_HINT}` }
    : { ok: true };
}

/** Every address of a name, or null when it does not resolve in time. */
function resolveAll(host: string, lookup: LookupFunction, timeoutMs: number): Promise<string[] | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), timeoutMs);
    timer.unref();
    lookup(host, { all: true }, (err, result) => {
      clearTimeout(timer);
      if (err) resolve(null);
      else resolve(typeof result === 'string' ? [result] : result.map((a) => a.address));
    });
  });
}
