import { nextOccurrence } from '../engine/cron.ts';
import type { NodeHandler } from '../node-handlers.ts';

/**
 * `schedule` `{cron_expression, timezone}`: waits for the first occurrence after the node started
 * (a durable timer, like `delay`), then outputs `{scheduled_for}`.
 */
export const scheduleHandler: NodeHandler = async ({ node, config, startedAt, now }) => {
  const timezone = config.timezone === undefined ? undefined : String(config.timezone);
  const due = nextOccurrence(String(config.cron_expression), timezone, startedAt);
  if (due === null)
    throw new Error(`Node "${node.id}": cron expression "${config.cron_expression}" has no next occurrence`);
  if (now < due) return { kind: 'wait', until: due };
  return { kind: 'completed', output: { scheduled_for: new Date(due).toISOString() } };
};
