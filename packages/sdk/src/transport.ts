import type { AuthState } from './auth.ts';
import { errorFromResponse, retryAfterSeconds } from './errors.ts';

/** Retry behaviour: how often, and the longest wait the client accepts from Retry-After. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** A Retry-After longer than this (ms) is not waited for: the error is thrown (default 60 s). */
  maxWaitMs?: number;
  /** First backoff without Retry-After, doubled each time with jitter (default 250 ms). */
  baseDelayMs?: number;
  /**
   * How long in all a request carrying an Idempotency-Key waits out 409 `idempotency_in_progress`
   * (an earlier attempt with the same key, e.g. from a killed process, still running on the
   * service), beside `maxRetries` (default 0: those 409s count as ordinary retries).
   */
  inProgressWaitMs?: number;
  /** Told before each wait for a retry (a command line can say it is waiting out a 429). */
  onRetry?: (notice: RetryNotice) => void;
}

/** A retry about to be waited for: the status that caused it (null after a network failure), how long, which retry. */
export interface RetryNotice {
  status: number | null;
  waitMs: number;
  retry: number;
}

/** One HTTP exchange; `body` is a factory so that a retry can send it again. */
export interface OutgoingRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: () => { body: BodyInit; headers: Record<string, string> };
  /** Safe to send twice: GET/PUT/DELETE, or a POST carrying an Idempotency-Key. */
  retryable: boolean;
  signal?: AbortSignal | undefined;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Whether a method is idempotent by itself (no Idempotency-Key needed to retry it). */
export function isIdempotentMethod(method: string): boolean {
  return IDEMPOTENT.has(method);
}

/**
 * Sends a request with the credential, refreshing a user session on 401 once, and retrying:
 * 429 always (the service refused it before doing anything) after Retry-After; 502/503/504,
 * 409 `idempotency_in_progress` (it carries Retry-After) and network failures only when the
 * request is safe to repeat. Answers the successful Response or
 * throws the typed DocuVaultError.
 */
export class Transport {
  readonly #auth: AuthState;
  readonly #fetch: typeof fetch;
  readonly #retry: Required<Omit<RetryOptions, 'onRetry'>>;
  readonly #onRetry: ((notice: RetryNotice) => void) | undefined;
  readonly #userAgent: string;

  constructor(auth: AuthState, fetchFn: typeof fetch, retry: RetryOptions, userAgent: string) {
    this.#auth = auth;
    this.#fetch = fetchFn;
    this.#retry = {
      maxRetries: retry.maxRetries ?? 3,
      maxWaitMs: retry.maxWaitMs ?? 60_000,
      baseDelayMs: retry.baseDelayMs ?? 250,
      inProgressWaitMs: retry.inProgressWaitMs ?? 0,
    };
    this.#onRetry = retry.onRetry;
    this.#userAgent = userAgent;
  }

  async send(req: OutgoingRequest): Promise<Response> {
    let refreshed = false;
    let inProgressWaited = 0;
    for (let attempt = 0; ; attempt++) {
      await this.#auth.ensureFresh();
      let res: Response;
      try {
        res = await this.#once(req);
      } catch (error) {
        if (req.signal?.aborted || !req.retryable || attempt >= this.#retry.maxRetries) throw error;
        await this.#wait(null, this.#backoff(attempt), attempt, req.signal);
        continue;
      }
      if (res.ok) return res;
      if (res.status === 401 && this.#auth.canRefresh && !refreshed) {
        refreshed = true;
        await res.body?.cancel();
        await this.#auth.refresh();
        attempt--;
        continue;
      }
      const earlierAttempt = res.status === 409 && req.retryable && res.headers.has('retry-after');
      if (earlierAttempt && inProgressWaited < this.#retry.inProgressWaitMs) {
        // At least 100 ms a round, so a Retry-After of 0 cannot spin past the budget.
        const waitMs = Math.min(
          Math.max(100, (retryAfterSeconds(res.headers.get('retry-after')) ?? 1) * 1000),
          this.#retry.inProgressWaitMs - inProgressWaited,
        );
        inProgressWaited += waitMs;
        await res.body?.cancel();
        await this.#wait(res.status, waitMs, attempt, req.signal);
        attempt--;
        continue;
      }
      const wait = this.#retryWait(res, req, attempt);
      if (wait === null) throw await errorFromResponse(res);
      await res.body?.cancel();
      await this.#wait(res.status, wait, attempt, req.signal);
    }
  }

  #wait(status: number | null, waitMs: number, attempt: number, signal: AbortSignal | undefined): Promise<void> {
    this.#onRetry?.({ status, waitMs, retry: attempt + 1 });
    return sleep(waitMs, signal);
  }

  #once(req: OutgoingRequest): Promise<Response> {
    const payload = req.body?.();
    return this.#fetch(req.url, {
      method: req.method,
      headers: {
        accept: 'application/json',
        'user-agent': this.#userAgent,
        ...this.#auth.headers(req.method),
        ...payload?.headers,
        ...req.headers,
      },
      ...(payload ? { body: payload.body, duplex: 'half' } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
    } as RequestInit);
  }

  // Milliseconds to wait before the next attempt, or null when this answer is final.
  #retryWait(res: Response, req: OutgoingRequest, attempt: number): number | null {
    if (attempt >= this.#retry.maxRetries) return null;
    // 409 with Retry-After: the same Idempotency-Key is still being processed (a retry of a request
    // whose client went away); the answer comes once the first one finishes.
    const transient =
      res.status === 429 ||
      (req.retryable &&
        ([502, 503, 504].includes(res.status) || (res.status === 409 && res.headers.has('retry-after'))));
    if (!transient) return null;
    const after = retryAfterSeconds(res.headers.get('retry-after'));
    const wait = after === undefined ? this.#backoff(attempt) : after * 1000;
    return wait > this.#retry.maxWaitMs ? null : wait;
  }

  #backoff(attempt: number): number {
    const base = this.#retry.baseDelayMs * 2 ** attempt;
    return Math.min(base / 2 + Math.random() * base, this.#retry.maxWaitMs);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
