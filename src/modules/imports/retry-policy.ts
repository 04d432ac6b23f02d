import { AppError } from '../../lib/errors.ts';
import { DriveError } from './drive-errors.ts';

/**
 * When a file that failed its `attempts`-th try is tried again, or null when it has failed for
 * good: after every delay of IMPORT_RETRY_DELAYS was used (3 retries by default), or at once for
 * what no retry can fix (the file is gone, too large to export, refused by the library's type,
 * size or quota checks). A rate limit waits at least as long as Drive's Retry-After asks.
 */
export function nextAttempt(input: {
  error: Error;
  attempts: number;
  now: number;
  delaysMs: readonly number[];
}): number | null {
  const { error, attempts, now, delaysMs } = input;
  if (error instanceof AppError) return null;
  if (error instanceof DriveError && error.permanent) return null;
  const delay = delaysMs[attempts - 1];
  if (delay === undefined) return null;
  const asked = error instanceof DriveError && error.rateLimited ? (error.retryAfterMs ?? 0) : 0;
  return now + Math.max(delay, asked);
}
