import { errorFromResponse } from './errors.ts';

/** The tokens of a signed-in user, as login and refresh hand them out. */
export interface UserTokens {
  accessToken: string;
  refreshToken: string;
  csrfToken: string;
  /** When the access token expires, epoch milliseconds. */
  expiresAt: number;
  /** The tenant's subdomain (sent as X-Tenant-Subdomain). */
  tenant: string;
}

/** How the client authenticates: an API key (servers, scripts) or a user's tokens (people). */
export type Credentials =
  | { apiKey: string }
  | { tokens: UserTokens; onTokens?: (tokens: UserTokens) => void | Promise<void> }
  | null;

// Refresh a little early, so a request never leaves with a token that expires in flight.
const EARLY_REFRESH_MS = 30_000;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The answer of login, register and refresh. */
export interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  csrf_token: string;
  expires_in: number;
}

/** Turns a token answer into UserTokens for `tenant`. */
export function tokensFrom(answer: TokenAnswer, tenant: string, now = Date.now()): UserTokens {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    csrfToken: answer.csrf_token,
    expiresAt: now + answer.expires_in * 1000,
    tenant,
  };
}

/**
 * Holds the credential and produces the headers of each request. A user session refreshes its
 * access token before it expires and after a 401; concurrent callers share one refresh, because a
 * refresh token works once (presenting a spent one revokes the whole session).
 */
export class AuthState {
  #credentials: Credentials;
  #refreshing: Promise<void> | null = null;
  readonly #refreshUrl: string;
  readonly #fetch: typeof fetch;

  constructor(credentials: Credentials, refreshUrl: string, fetchFn: typeof fetch) {
    this.#credentials = credentials;
    this.#refreshUrl = refreshUrl;
    this.#fetch = fetchFn;
  }

  /** The current tokens of a user session (to persist them), or null. */
  get tokens(): UserTokens | null {
    return this.#credentials && 'tokens' in this.#credentials ? this.#credentials.tokens : null;
  }

  set(credentials: Credentials): void {
    this.#credentials = credentials;
  }

  headers(method: string): Record<string, string> {
    const c = this.#credentials;
    if (!c) return {};
    if ('apiKey' in c) return { 'x-api-key': c.apiKey };
    return {
      authorization: `Bearer ${c.tokens.accessToken}`,
      'x-tenant-subdomain': c.tokens.tenant,
      ...(MUTATING.has(method) ? { 'x-csrf-token': c.tokens.csrfToken } : {}),
    };
  }

  /** Whether a refresh could help a 401. */
  get canRefresh(): boolean {
    return this.tokens !== null;
  }

  async ensureFresh(): Promise<void> {
    const tokens = this.tokens;
    if (tokens && tokens.expiresAt - EARLY_REFRESH_MS <= Date.now()) await this.refresh();
  }

  /** One refresh at a time; callers arriving meanwhile wait for it. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#doRefresh().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #doRefresh(): Promise<void> {
    const c = this.#credentials;
    if (!c || !('tokens' in c)) return;
    const res = await this.#fetch(this.#refreshUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ refresh_token: c.tokens.refreshToken }),
    });
    if (!res.ok) throw await errorFromResponse(res);
    const tokens = tokensFrom((await res.json()) as TokenAnswer, c.tokens.tenant);
    this.#credentials = { ...c, tokens };
    await c.onTokens?.(tokens);
  }
}
