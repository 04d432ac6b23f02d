/**
 * A failed call to an AI endpoint. `retryable` says whether trying again later may succeed
 * (rate limits, server errors, network) or not (bad request, authentication, unusable output);
 * the provider has already retried `maxRetries` times before throwing.
 */
export class AiProviderError extends Error {
  readonly retryable: boolean;
  /** HTTP status when the endpoint answered. */
  readonly status: number | null;
  /** How long the endpoint asked to wait, when it said. */
  readonly retryAfterMs: number | null;
  constructor(
    message: string,
    options: { retryable: boolean; status?: number | null; retryAfterMs?: number | null; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.name = 'AiProviderError';
    this.retryable = options.retryable;
    this.status = options.status ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}
