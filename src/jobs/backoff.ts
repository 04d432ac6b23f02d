/** Retry delay defaults: 1 s doubling up to 1 h. */
export const DEFAULT_BACKOFF = { baseMs: 1_000, maxMs: 3_600_000 } as const;

/**
 * Delay before the retry that follows failed attempt `attempt` (1-based): exponential with full
 * jitter, uniform in [0, min(maxMs, baseMs * 2^(attempt-1))], so failing jobs spread out instead
 * of retrying in step.
 */
export function backoffDelay(
  attempt: number,
  backoff: { baseMs: number; maxMs: number } = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 52);
  const cap = Math.min(backoff.maxMs, backoff.baseMs * 2 ** exponent);
  return Math.floor(random() * cap);
}
