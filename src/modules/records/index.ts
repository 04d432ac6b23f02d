import { defineJob } from '../../jobs/job-types.ts';
import { defineModule } from '../../platform/module.ts';
import { LegalHoldsRepository } from './legal-holds.repository.ts';
import { LegalHoldsService } from './legal-holds.service.ts';
import { RECORDS_JOBS } from './records.jobs.ts';
import { recordsRoutes } from './records.routes.ts';
import { RetentionRulesRepository } from './retention-rules.repository.ts';
import { RETENTION_REVIEW_SOURCE, RetentionRulesService } from './retention-rules.service.ts';
import { RetentionRunner } from './retention-runner.ts';
import { RECORDS_EVENTS } from './records.events.ts';

export type { LegalHoldsService } from './legal-holds.service.ts';
export type { RetentionRulesService } from './retention-rules.service.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    legalHolds: LegalHoldsService;
    retentionRules: RetentionRulesService;
  }
}

const HOUR_MS = 3_600_000;

/**
 * Records management (issue 32 item 3, docs/records.md): legal holds, which the documents module's
 * `LegalHoldGuard` consults on every deletion path (this module plugs its hold lookup in), and
 * retention rules, run in the worker, whose reviews wait in the workflow task inbox. Listed after
 * documents (the library and the guard) and workflows (the inbox).
 */
export const recordsModule = defineModule({
  name: 'records',
  setup({ database, clock, jobs, events, logger, use }) {
    const holdsRepository = new LegalHoldsRepository(database.dialect);
    const rulesRepository = new RetentionRulesRepository();
    const guard = use('legalHoldGuard');
    guard.use({ matching: (db, tenantId, targets) => holdsRepository.matching(db, tenantId, targets) });
    const tasks = use('humanTasks');
    const holds = new LegalHoldsService({
      database,
      clock,
      events,
      holds: holdsRepository,
      access: use('documentAccess'),
      folders: use('folders'),
      guard,
    });
    const rules = new RetentionRulesService({
      database,
      clock,
      jobs,
      rules: rulesRepository,
      folders: use('folders'),
      tasks,
    });
    const runner = new RetentionRunner({
      database,
      clock,
      jobs,
      events,
      logger,
      rules: rulesRepository,
      library: use('retentionLibrary'),
      guard,
      tasks,
    });
    tasks.registerSource(RETENTION_REVIEW_SOURCE, runner);
    return {
      provides: { legalHolds: holds, retentionRules: rules },
      eventSchemas: RECORDS_EVENTS,
      routes(app) {
        recordsRoutes(app, { holds, rules });
      },
      jobs: [
        defineJob({
          kind: RECORDS_JOBS.runRule,
          maxAttempts: 3,
          timeoutMs: 6 * HOUR_MS,
          handler: (job) => runner.run(job),
        }),
      ],
      recurring: [{ kind: RECORDS_JOBS.due, everyMs: HOUR_MS, run: (job) => runner.tick(job) }],
      async sandboxCleanup(trx, tenantId) {
        // The sandbox's weekly reset clears everything, holds included (docs/records.md).
        await rulesRepository.deleteForTenant(trx, tenantId);
        await holdsRepository.deleteForTenant(trx, tenantId);
      },
    };
  },
});
