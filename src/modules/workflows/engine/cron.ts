import { Cron } from 'croner';

/**
 * Cron schedules (the `schedule` node and the schedule trigger) through croner: five or six
 * fields, evaluated in an IANA time zone (default UTC), daylight-saving changes included.
 */

/** An error message when the expression or time zone is not usable, else null. */
export function cronError(expression: unknown, timezone: unknown = 'UTC'): string | null {
  if (typeof expression !== 'string' || expression.trim() === '') return 'must be a non-empty cron expression';
  if (typeof timezone !== 'string' || !isTimeZone(timezone)) return `unknown time zone "${String(timezone)}"`;
  try {
    new Cron(expression, { timezone, paused: true });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The first occurrence strictly after `after` (epoch ms), or null when there is none. */
export function nextOccurrence(expression: string, timezone: string | undefined, after: number): number | null {
  const next = new Cron(expression, { timezone: timezone ?? 'UTC', paused: true }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
