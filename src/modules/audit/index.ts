import { defineModule } from '../../platform/module.ts';
import { AuditRepository } from './audit.repository.ts';
import { auditRoutes } from './audit.routes.ts';
import { AuditService } from './audit.service.ts';
import { AuditTrail } from './audit-trail.ts';
import { installAuditHooks } from './audit-http.ts';
import './audit.jobs.ts';

export type { AuditActionName, AuditActionSpec, AuditKind, RouteAudit } from './audit-actions.ts';
export type { AuditEntry, AuditOutcome, AuditTrail } from './audit-trail.ts';
export type { AuditService } from './audit.service.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** Records acts (`recordIn(trx)` in a change's transaction, `read(...)` for reads of content): docs/audit.md. */
    audit: AuditTrail;
    /** Reads the trail and purges deleted tenants' records; `tenantDeleted` for the tenant deletion path. */
    auditLog: AuditService;
  }
}

/** How often the worker looks for deleted tenants' records past their retention. */
const PURGE_EVERY_MS = 60 * 60_000;

/**
 * The audit trail (issue 32, docs/audit.md): who read, changed or was refused what, and every
 * administrative act. It owns `audit_records` (append only) and `audit_tenant_deletions`.
 *
 * Routes declare their action (`config.audit`, or `ROUTE_ACTIONS` for the routes older than the
 * trail); one hook pair, installed on the root instance, records them. Listed right after
 * identity, so every module that records from inside a service (`use('audit')`) comes after it.
 */
export const auditModule = defineModule({
  name: 'audit',
  setup({ config, database, clock, logger, use }) {
    const repository = new AuditRepository();
    // A 404 on a document that exists hid it from the caller: a refusal. The documents module is
    // set up after this one, so its service is looked up when a 404 happens, not at setup.
    const exists = async (type: string, tenantId: string, id: string) =>
      type === 'document' && use('documentFiles').exists(database.db, tenantId, id);
    const trail = new AuditTrail({
      exists,
      repository,
      db: () => database.db,
      dialect: database.dialect,
      clock,
      logger,
      bufferSize: config.audit.batchSize,
      flushMs: config.audit.flushMs,
    });
    const tenants = use('tenantDirectory');
    const service = new AuditService({
      database,
      clock,
      logger,
      repository,
      trail,
      retentionMs: config.audit.retentionMs,
      tenantExists: async (tenantId) => (await tenants.findById(tenantId)) !== null,
    });
    return {
      provides: { audit: trail, auditLog: service },
      rootRoutes: (app) =>
        installAuditHooks(app, {
          trail,
          exists,
        }),
      routes: (app) => auditRoutes(app, { audit: service }),
      recurring: [
        { kind: 'audit.purge', everyMs: PURGE_EVERY_MS, run: async () => void (await service.purgeExpired()) },
      ],
      close: () => trail.close(),
    };
  },
});
