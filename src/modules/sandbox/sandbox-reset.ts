import type { Database } from '../../db/database.ts';
import type { RecurringJob } from '../../jobs/recurring.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SandboxCleanup } from '../../platform/module.ts';

/** docs/api-decisions.md §5 (docs/api-decisions.md): all sandbox data is cleared every 7 days. */
export const SANDBOX_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

interface Deps {
  database: Database;
  clock: Clock;
  /** Every module's clean-up, dependents first. */
  cleanups: () => readonly SandboxCleanup[];
}

/** Clears one sandbox twin's data in one transaction and marks when. */
export async function clearSandbox(deps: Deps, twinId: string): Promise<void> {
  const { database, clock } = deps;
  await database.db.transaction().execute(async (trx) => {
    for (const cleanup of deps.cleanups()) await cleanup(trx, twinId);
    // Events and idempotency records belong to the platform, not to a module.
    await trx.deleteFrom('events').where('tenant_id', '=', twinId).execute();
    await trx.deleteFrom('idempotency_records').where('scope', '=', twinId).execute();
    await trx.updateTable('tenants').set({ sandbox_cleared_at: clock.now() }).where('id', '=', twinId).execute();
  });
}

/** Twins whose data is older than the retention (last clear, or creation when never cleared). */
export async function dueSandboxes(database: Database, now: number): Promise<string[]> {
  const cutoff = now - SANDBOX_RETENTION_MS;
  const rows = await database.db
    .selectFrom('tenants')
    .select('id')
    .where('sandbox_of', 'is not', null)
    .where((eb) =>
      eb.or([
        eb('sandbox_cleared_at', '<=', cutoff),
        eb.and([eb('sandbox_cleared_at', 'is', null), eb('created_at', '<=', cutoff)]),
      ]),
    )
    .execute();
  return rows.map((r) => r.id);
}

/** The hourly check that clears every sandbox whose 7 days are up. */
export function sandboxResetJob(deps: Deps): RecurringJob {
  return {
    kind: 'sandbox.reset_due',
    everyMs: 60 * 60 * 1000,
    timeoutMs: 30 * 60_000,
    run: async () => {
      for (const twinId of await dueSandboxes(deps.database, deps.clock.now())) await clearSandbox(deps, twinId);
    },
  };
}
