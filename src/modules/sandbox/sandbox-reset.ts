import type { Database } from '../../db/database.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Executor } from '../../jobs/job-types.ts';
import type { RecurringJob } from '../../jobs/recurring.ts';
import type { Clock } from '../../lib/clock.ts';
import { removeDocuments } from '../documents/document-removal.ts';
import type { DocumentsRepository } from '../documents/documents.repository.ts';

/** Contract §5: all sandbox data is cleared every 7 days. */
export const SANDBOX_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const DOCUMENT_BATCH = 500;

/**
 * Tenant-owned tables cleared with the sandbox, children first. Documents are removed apart
 * (their bytes go through the blob-deletion job); credentials (API keys) stay, and users and
 * sessions live on the live tenant. A module adding tenant data adds its table here.
 */
const SANDBOX_DATA_TABLES = ['batch_jobs', 'tags', 'folders', 'workspaces', 'events'] as const;

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  documents: DocumentsRepository;
}

/** Clears one sandbox twin's data in one transaction and marks when. */
export async function clearSandbox(deps: Deps, twinId: string): Promise<void> {
  const { database, clock } = deps;
  await database.db.transaction().execute(async (trx) => {
    for (;;) {
      const batch = await trx
        .selectFrom('documents')
        .select(['id', 'storage_key'])
        .where('tenant_id', '=', twinId)
        .limit(DOCUMENT_BATCH)
        .execute();
      if (batch.length === 0) break;
      await removeDocuments(trx, deps, twinId, batch);
    }
    for (const table of SANDBOX_DATA_TABLES) await deleteTenantRows(trx, table, twinId);
    await trx.deleteFrom('idempotency_records').where('scope', '=', twinId).execute();
    await trx.updateTable('tenants').set({ sandbox_cleared_at: clock.now() }).where('id', '=', twinId).execute();
  });
}

async function deleteTenantRows(trx: Executor, table: (typeof SANDBOX_DATA_TABLES)[number], tenantId: string): Promise<void> {
  // Folders reference their parent; a single statement over the whole tenant satisfies that on both dialects.
  await trx.deleteFrom(table).where('tenant_id', '=', tenantId).execute();
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
