import { AuditApi } from './audit-api.ts';
import type { ApiCaller } from './api-caller.ts';
import { AuthState, type Credentials, type UserTokens, tokensFrom } from './auth.ts';
import { DocumentsApi } from './documents-api.ts';
import { ChatApi } from './chat-api.ts';
import { RecordsApi } from './records-api.ts';
import { SavedViewsApi } from './views-api.ts';
import { OPERATIONS } from './generated/api-types.ts';
import type {
  CallOptions,
  InputArgs,
  ItemOf,
  JsonOperationId,
  OperationId,
  OperationInput,
  OperationResponse,
  PagedOperationId,
} from './operation-types.ts';
import { fillPath, queryString } from './paths.ts';
import { isIdempotentMethod, type RetryOptions, Transport } from './transport.ts';

/** How to reach and authenticate against a service. */
export interface ClientOptions {
  /** The service's origin, e.g. `https://docs.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** An API key (`ak_live_...`; `ak_test_...` with `sandbox: true`). */
  apiKey?: string;
  /** A signed-in user's tokens (see `DocuVault.login`); refreshed automatically. */
  tokens?: UserTokens;
  /** Called with new tokens after every refresh, to persist them. */
  onTokens?: (tokens: UserTokens) => void | Promise<void>;
  /** Talk to the sandbox (`/sandbox/api/v1`). */
  sandbox?: boolean;
  retry?: RetryOptions;
  fetch?: typeof fetch;
  userAgent?: string;
}

/** Options of a raw request to a path the SDK's types may not know yet. */
export interface RawRequest extends CallOptions {
  query?: Record<string, unknown>;
  body?: unknown;
}

const MUTATING_WITH_KEY = new Set(['POST', 'PATCH']);

/** The typed client: `call(operationId, input)` for every operation, plus helpers for uploads, chat and paging. */
export class DocuVault implements ApiCaller {
  readonly baseUrl: string;
  readonly documents: DocumentsApi;
  readonly chat: ChatApi;
  readonly audit: AuditApi;
  /** Legal holds and retention rules. */
  readonly records: RecordsApi;
  /** The caller's saved views of the documents page. */
  readonly savedViews: SavedViewsApi;
  readonly #auth: AuthState;
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '') + (options.sandbox ? '/sandbox' : '');
    const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#auth = new AuthState(credentialsOf(options), `${this.baseUrl}${OPERATIONS.refreshAuth.path}`, fetchFn);
    this.#transport = new Transport(
      this.#auth,
      fetchFn,
      options.retry ?? {},
      options.userAgent ?? 'docuvault-sdk/0.1.0',
    );
    this.documents = new DocumentsApi(this, this.#transport);
    this.chat = new ChatApi(this);
    this.audit = new AuditApi(this);
    this.records = new RecordsApi(this);
    this.savedViews = new SavedViewsApi(this);
  }

  /** Signs a user in and answers a client holding their tokens. */
  static async login(
    options: Omit<ClientOptions, 'apiKey' | 'tokens'> & { tenant: string; email: string; password: string },
  ): Promise<DocuVault> {
    const anonymous = new DocuVault({ ...options, onTokens: undefined });
    const answer = await anonymous.call('loginAuth', {
      body: { email: options.email, password: options.password },
      headers: { 'x-tenant-subdomain': options.tenant },
    });
    const tokens = tokensFrom(answer, options.tenant);
    await options.onTokens?.(tokens);
    return new DocuVault({ ...options, tokens });
  }

  /** The current user tokens (after refreshes), or null with an API key. */
  get tokens(): UserTokens | null {
    return this.#auth.tokens;
  }

  /** Calls one operation by its operationId and answers its typed JSON. */
  async call<K extends JsonOperationId>(op: K, ...args: InputArgs<K>): Promise<OperationResponse<K>> {
    const res = await this.send(op, ((args as unknown[])[0] ?? {}) as never);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as OperationResponse<K>;
  }

  /**
   * Like `call`, and also answers the representation's `ETag` (single resources have one): pass it
   * as `ifMatch` to an update so that it fails with PreconditionFailedError instead of overwriting
   * a change made since.
   */
  async callWithETag<K extends JsonOperationId>(
    op: K,
    ...args: InputArgs<K>
  ): Promise<{ value: OperationResponse<K>; etag: string | null }> {
    const res = await this.send(op, ((args as unknown[])[0] ?? {}) as never);
    const text = await res.text();
    return { value: (text ? JSON.parse(text) : undefined) as OperationResponse<K>, etag: res.headers.get('etag') };
  }

  /** Sends one operation and answers the raw Response (downloads, thumbnails, event streams). */
  send<K extends OperationId>(op: K, input: OperationInput<K>): Promise<Response> {
    const { method, path } = OPERATIONS[op];
    const withKey = OPERATIONS[op].idempotencyKey && MUTATING_WITH_KEY.has(method);
    return this.#request(
      method,
      fillPath(path, input.path as Record<string, string> | undefined),
      input as RawRequest,
      withKey,
    );
  }

  /** Every item of a paged list, fetching page after page as the loop goes. */
  async *paginate<K extends PagedOperationId>(
    op: K,
    ...args: InputArgs<K>
  ): AsyncGenerator<ItemOf<OperationResponse<K>>> {
    const input = (args[0] ?? {}) as OperationInput<K> & { query?: { page?: number } };
    for (let page = input.query?.page ?? 1; ; page++) {
      const answer = (await this.call(
        op,
        ...([{ ...input, query: { ...input.query, page } }] as unknown as InputArgs<K>),
      )) as Record<string, unknown>;
      const items = (Array.isArray(answer.data) ? answer.data : (answer.webhooks as unknown[])) as ItemOf<
        OperationResponse<K>
      >[];
      yield* items;
      const size = Number(answer.page_size ?? items.length);
      if (items.length === 0 || page * size >= Number(answer.total)) return;
    }
  }

  /** A JSON request to any path under the service (e.g. `/api/v1/dag/tasks` on a service newer than this SDK). */
  async request<T = unknown>(method: string, path: string, options: RawRequest = {}): Promise<T> {
    const res = await this.#request(method.toUpperCase(), path, options, MUTATING_WITH_KEY.has(method.toUpperCase()));
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Signs the user out (the session's tokens stop working at once). */
  async logout(): Promise<void> {
    await this.call('logoutAuth');
    this.#auth.set(null);
  }

  #request(method: string, path: string, options: RawRequest, withKey: boolean): Promise<Response> {
    const key = options.idempotencyKey ?? (withKey ? crypto.randomUUID() : undefined);
    const body = options.body;
    return this.#transport.send({
      method,
      url: this.baseUrl + path + queryString(options.query),
      headers: {
        ...(key ? { 'idempotency-key': key } : {}),
        ...(options.ifMatch ? { 'if-match': options.ifMatch } : {}),
        ...options.headers,
      },
      ...(body === undefined
        ? {}
        : { body: () => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) }),
      retryable: isIdempotentMethod(method) || key !== undefined,
      signal: options.signal,
    });
  }

  /** The URL of a path on this service (with the sandbox prefix when set). */
  url(path: string, query?: Record<string, unknown>): string {
    return this.baseUrl + path + queryString(query);
  }
}

function credentialsOf(options: ClientOptions): Credentials {
  if (options.apiKey) return { apiKey: options.apiKey };
  if (options.tokens) return { tokens: options.tokens, ...(options.onTokens ? { onTokens: options.onTokens } : {}) };
  return null;
}
