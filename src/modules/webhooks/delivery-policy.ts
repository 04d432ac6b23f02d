// The delivery rules as plain functions over plain numbers (tested without a database): the retry
// schedule with jitter, the circuit breaker's open time, and when a deferred delivery tries again.

/** Jitter on each retry delay: ±10 %, so endpoints failing together do not retry in step. */
export const RETRY_JITTER = 0.1;

/** Failed automatic attempts in a row after which the circuit opens. */
export const BREAKER_THRESHOLD = 5;
/** First open period; it doubles with every further failure, up to BREAKER_MAX_OPEN_MS. */
export const BREAKER_BASE_OPEN_MS = 5_000;
export const BREAKER_MAX_OPEN_MS = 60_000;

/** Delay before the automatic retry after `retryIndex` delays were used, or null when the schedule is spent. */
export function retryDelayMs(
  retryIndex: number,
  scheduleMs: readonly number[],
  random: () => number = Math.random,
): number | null {
  const base = scheduleMs[retryIndex];
  if (base === undefined) return null;
  return Math.max(0, Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random())));
}

/** How long the circuit stays open after the `consecutiveFailures`-th failure in a row (0: closed). */
export function breakerOpenMs(consecutiveFailures: number): number {
  if (consecutiveFailures < BREAKER_THRESHOLD) return 0;
  return Math.min(
    BREAKER_MAX_OPEN_MS,
    BREAKER_BASE_OPEN_MS * 2 ** Math.min(consecutiveFailures - BREAKER_THRESHOLD, 20),
  );
}

/** Whether a failure streak this long (ms) disables the webhook. */
export function shouldDisable(failingSince: number | null, now: number, disableAfterMs: number): boolean {
  return failingSince !== null && now - failingSince >= disableAfterMs;
}

/**
 * When a delivery that could not start now tries again. An open circuit: after it half-opens,
 * spread over another open period so the waiting deliveries do not all arrive at once. An endpoint already
 * at its concurrency limit: after about one of its typical calls when it is failing (probes are
 * slow), a short moment when it is merely busy.
 */
export function deferUntil(
  reason: { circuitOpenUntil: number } | { busy: true; failing: boolean; typicalMs: number },
  now: number,
  random: () => number = Math.random,
): number {
  if ('circuitOpenUntil' in reason) {
    // Spread over as long as the circuit stays open: a large backlog wakes a few at a time, not all at once.
    const spread = Math.max(1_000, reason.circuitOpenUntil - now);
    return Math.max(now, reason.circuitOpenUntil) + Math.round(random() * spread);
  }
  const base = reason.failing ? Math.max(1_000, reason.typicalMs) : Math.min(1_000, Math.max(50, reason.typicalMs));
  return now + Math.round(base * (0.5 + random()));
}

/** Per-endpoint concurrency: the configured limit while healthy, one probe at a time while failing. */
export function concurrencyLimit(configured: number, consecutiveFailures: number): number {
  return consecutiveFailures > 0 ? 1 : configured;
}

/** No failed automatic attempt since the last success, and no open circuit: nothing to reset on success. */
export function isHealthy(endpoint: {
  consecutiveFailures: number;
  failingSince: number | null;
  circuitOpenUntil: number | null;
}): boolean {
  return endpoint.consecutiveFailures === 0 && endpoint.failingSince === null && endpoint.circuitOpenUntil === null;
}
