import { defineModule } from '../../platform/module.ts';
import { keepInstanceLease } from './instance-lease.ts';
import { exportRoutes } from './tenant-archive/exports.routes.ts';
import { EXPORT_JOB, ExportsService } from './tenant-archive/exports.service.ts';
import { TRANSFER_EVENTS } from './transfer.events.ts';
import './transfer.jobs.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** Tenant exports and imports (tests, benchmarks). */
    tenantExports: ExportsService;
  }
}

/**
 * Moving data between deployments (issue 35). Each process keeps a lease row so that
 * `npm run db:transfer` (scripts/db-transfer.ts) can refuse a database that is still being
 * written; and tenants are exported to one archive and imported from it (./tenant-archive/,
 * docs/tenant-export.md), reading and writing every module's tenant rows through
 * src/db/tenant-archive (the way src/db/transfer copies whole instances). An import's rows pass
 * the importing database's own triggers (document visibility, counters, the search index).
 */
export const transferModule = defineModule({
  name: 'transfer',
  setup({ config, database, clock, logger, blobs, jobs, events, use }) {
    const role = process.argv[2] === 'worker' ? 'worker' : 'serve';
    const lease = keepInstanceLease(database.db, clock, logger, role);
    const exports = new ExportsService({
      config,
      database,
      clock,
      logger,
      blobs,
      jobs,
      events,
      tenants: use('tenantDirectory'),
    });
    return {
      provides: { tenantExports: exports },
      eventSchemas: TRANSFER_EVENTS,
      routes: (app) => exportRoutes(app, { exports }),
      jobs: [
        {
          kind: EXPORT_JOB,
          handler: (job) => exports.run(job),
          maxAttempts: 3,
          backoff: { baseMs: 5_000, maxMs: 60_000 },
          concurrency: 1,
          timeoutMs: 6 * 60 * 60_000,
        },
      ],
      recurring: [
        { kind: 'transfer.expire_exports', everyMs: 5 * 60_000, run: async () => void (await exports.expire()) },
        { kind: 'transfer.sweep_imports', everyMs: 60_000, run: async () => void (await exports.sweepImports()) },
      ],
      async sandboxCleanup(trx, tenantId) {
        await exports.forgetTenant(trx, tenantId);
      },
      close: () => lease.stop(),
    };
  },
});
