import { AiProviderError } from '../ai-provider-error.ts';

/** How `withRetry` retries. */
export interface RetryOptions {
  /** Retries after the first attempt (so at most maxRetries + 1 calls). */
  maxRetries: number;
  /** First backoff step; doubled each retry, with jitter. */
  baseDelayMs: number;
  /** Longest backoff between two attempts. */
  maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for: the error is thrown at once, still retryable. */
  maxRetryAfterMs: number;
  signal?: AbortSignal;
  /** Random in [0, 1); injectable for tests. */
  random?: () => number;
  /** Waits between attempts; injectable so tests read the backoff instead of timing it. */
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** What went wrong with one call, as far as retrying is concerned. */
interface Failure {
  retryable: boolean;
  status: number | null;
  retryAfterMs: number | null;
  message: string;
}

/**
 * Runs `attempt` until it succeeds, retrying rate limits (429), timeouts and server errors (5xx)
 * and network failures with exponential backoff and jitter, waiting what `retry-after-ms` or
 * `retry-after` asks when the endpoint says. Gives up with an `AiProviderError` (`retryable`
 * true for transient causes) after `maxRetries` retries; other HTTP errors are not retried.
 * An aborted signal rejects with the signal's reason, also while waiting.
 */
export async function withRetry<T>(what: string, attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const random = options.random ?? Math.random;
  const wait = options.wait ?? sleep;
  for (let retry = 0; ; retry++) {
    options.signal?.throwIfAborted();
    try {
      return await attempt();
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (isUserAbort(error)) throw abortReason(options.signal);
      const failure = describeFailure(error);
      if (!failure) throw error;
      const tooLong = failure.retryAfterMs !== null && failure.retryAfterMs > options.maxRetryAfterMs;
      if (!failure.retryable || retry >= options.maxRetries || tooLong) {
        const tries = retry + 1;
        throw new AiProviderError(`${what} failed${tries > 1 ? ` after ${tries} attempts` : ''}: ${failure.message}`, {
          retryable: failure.retryable,
          status: failure.status,
          retryAfterMs: failure.retryAfterMs,
          cause: error,
        });
      }
      const backoff = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry) * (0.5 + random() / 2);
      await wait(failure.retryAfterMs ?? backoff, options.signal);
    }
  }
}

/** Classifies an error of the OpenAI SDK (or of fetch); null when it is not a call failure at all. */
export function describeFailure(error: unknown): Failure | null {
  if (!(error instanceof Error)) return null;
  const e = error as Error & { status?: unknown; headers?: unknown };
  const status = typeof e.status === 'number' ? e.status : null;
  if (status !== null) {
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    return { retryable, status, retryAfterMs: retryAfterOf(e.headers), message: e.message };
  }
  // The SDK's connection errors (refused, reset, timed out) and fetch's TypeError.
  if (
    e.name === 'APIConnectionError' ||
    e.name === 'APIConnectionTimeoutError' ||
    e.name === 'TypeError' ||
    'code' in e
  ) {
    const cause = e.cause instanceof Error ? `: ${e.cause.message}` : '';
    return { retryable: true, status: null, retryAfterMs: null, message: `${e.message}${cause}` };
  }
  return null;
}

function retryAfterOf(headers: unknown): number | null {
  if (!headers || typeof (headers as Headers).get !== 'function') return null;
  const h = headers as Headers;
  const ms = Number(h.get('retry-after-ms'));
  if (h.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const value = h.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function isUserAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'APIUserAbortError' || error.name === 'AbortError');
}

/** The signal's reason, or a DOMException AbortError when there is no signal to ask. */
export function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
