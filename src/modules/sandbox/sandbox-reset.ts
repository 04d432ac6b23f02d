import type { Database } from '../../db/database.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { IdempotencyRepository } from '../../http/idempotency.repository.ts';
import type { RecurringJob } from '../../jobs/recurring.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ModuleServices, SandboxCleanup } from '../../platform/module.ts';

/** docs/api-decisions.md §5 (docs/api-decisions.md): all sandbox data is cleared every 7 days. */
export const SANDBOX_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

interface Deps {
  database: Database;
  clock: Clock;
  tenants: Pick<ModuleServices['tenants'], 'sandboxesClearedBefore' | 'markSandboxCleared'>;
  events: Pick<EventLog, 'forgetTenant'>;
  idempotency: Pick<IdempotencyRepository, 'forgetScope'>;
  /** Every module's clean-up, dependents first. */
  cleanups: () => readonly SandboxCleanup[];
}

/** Clears one sandbox twin's data in one transaction and marks when. */
export async function clearSandbox(deps: Deps, twinId: string): Promise<void> {
  await deps.database.db.transaction().execute(async (trx) => {
    for (const cleanup of deps.cleanups()) await cleanup(trx, twinId);
    // Events and idempotency records belong to the platform, not to a module.
    await deps.events.forgetTenant(trx, twinId);
    await deps.idempotency.forgetScope(trx, twinId);
    await deps.tenants.markSandboxCleared(trx, twinId);
  });
}

/** The hourly check that clears every sandbox whose 7 days are up. */
export function sandboxResetJob(deps: Deps): RecurringJob {
  return {
    kind: 'sandbox.reset_due',
    everyMs: 60 * 60 * 1000,
    timeoutMs: 30 * 60_000,
    run: async () => {
      // Twins whose data is older than the retention (last clear, or creation when never cleared).
      const due = await deps.tenants.sandboxesClearedBefore(deps.clock.now() - SANDBOX_RETENTION_MS);
      for (const twinId of due) await clearSandbox(deps, twinId);
    },
  };
}
