import type { Readable } from 'node:stream';
import type { Config } from '../../../config/config.ts';
import type { Database } from '../../../db/database.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { isOwner, requirePermission } from '../../../domain/roles.ts';
import type { TenantDirectory } from '../../../domain/tenant.ts';
import type { Tier } from '../../../domain/tiers.ts';
import type { EventLog } from '../../../events/event-log.ts';
import type { JobQueue } from '../../../jobs/job-queue.ts';
import type { RunningJob } from '../../../jobs/job-types.ts';
import type { Clock } from '../../../lib/clock.ts';
import { iso } from '../../../lib/clock.ts';
import { errors } from '../../../lib/errors.ts';
import { newId } from '../../../lib/ids.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { BlobStore, ByteRange } from '../../../providers/blobs/blob-store.ts';
import { type ImportReport, importTenantArchive } from './archive-reader.ts';
import { writeTenantArchive } from './archive-writer.ts';
import { ExportsRepository, type TenantExport } from './exports.repository.ts';
import { sweepAbandonedImports } from './import-journal.ts';

export interface ExportsDeps {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  blobs: BlobStore;
  jobs: JobQueue;
  events: EventLog;
  tenants: TenantDirectory;
}

export const EXPORT_JOB = 'transfer.export_tenant' as const;

/** Where an export's archive is kept: under its tenant, so per-tenant storage routing applies. */
const archiveKey = (tenantId: string, id: string) => `tenants/${tenantId}/exports/${id}.tar`;

/**
 * Tenant exports and imports (issue 35, docs/tenant-export.md). An export is a row and a job: the
 * job writes the archive (archive-writer.ts) into the blob store, then the export can be
 * downloaded until EXPORT_RETENTION_HOURS have passed, when the recurring sweep deletes it. Only
 * the tenant's owner (or the administrator key, through the admin routes) starts or reads one.
 */
export class ExportsService {
  readonly #deps: ExportsDeps;
  readonly #exports = new ExportsRepository();
  constructor(deps: ExportsDeps) {
    this.#deps = deps;
  }

  /** `POST /tenant/export`: the owner of the tenant (a user token: API keys act as administrators, not as the owner). */
  async startForOwner(auth: AuthContext): Promise<TenantExport> {
    requirePermission(isOwner(auth), 'Only the tenant’s owner may export it');
    return this.#start(auth.tenant.id, auth.userId!);
  }

  /** `POST /admin/tenants/{id}/export`: the administrator key, for a live tenant. */
  async startForAdmin(tenantId: string): Promise<TenantExport> {
    const tenant = await this.#deps.tenants.findById(tenantId);
    if (!tenant || tenant.sandboxOf !== null) throw errors.notFound('tenant', tenantId);
    return this.#start(tenant.id, 'administrator');
  }

  async #start(tenantId: string, requestedBy: string): Promise<TenantExport> {
    const { database, clock, jobs } = this.#deps;
    const now = clock.now();
    const created: TenantExport = {
      id: newId(now),
      tenantId,
      requestedBy,
      status: 'queued',
      phase: 'queued',
      entriesTotal: 0,
      entriesDone: 0,
      bytesTotal: 0,
      bytesDone: 0,
      blobKey: null,
      size: null,
      sha256: null,
      error: null,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
      expiresAt: null,
    };
    await database.db.transaction().execute(async (trx) => {
      await this.#exports.insert(trx, created);
      await jobs.enqueue(trx, EXPORT_JOB, { exportId: created.id }, { tenantId });
    });
    return created;
  }

  /** An export of the caller's tenant, for its owner; 404 for another tenant's. */
  async getForOwner(auth: AuthContext, id: string): Promise<TenantExport> {
    requirePermission(isOwner(auth), 'Only the tenant’s owner may see its exports');
    return this.#get(auth.tenant.id, id);
  }

  async getForAdmin(tenantId: string, id: string): Promise<TenantExport> {
    return this.#get(tenantId, id);
  }

  async #get(tenantId: string, id: string): Promise<TenantExport> {
    const found = await this.#exports.find(this.#deps.database.db, tenantId, id);
    if (!found) throw errors.notFound('export', id);
    return found;
  }

  /** The archive of a completed export, for a download; 404 before it is complete and after it expired. */
  downloadable(e: TenantExport): { key: string; size: number; sha256: string } {
    if (e.status === 'expired' || (e.expiresAt !== null && e.expiresAt <= this.#deps.clock.now()))
      throw errors.notFound('export', e.id);
    if (e.status !== 'completed' || !e.blobKey || e.size === null || !e.sha256)
      throw errors.conflict(`The export is ${e.status}: its archive is not ready`, { status: e.status });
    return { key: e.blobKey, size: e.size, sha256: e.sha256 };
  }

  open(key: string, range?: ByteRange): Promise<Readable> {
    return this.#deps.blobs.get(key, range);
  }

  /** `POST /admin/tenants/import`: a new tenant from an archive (archive-reader.ts). */
  importArchive(archive: Readable, options: { subdomain?: string; name?: string; tier?: Tier }): Promise<ImportReport> {
    return importTenantArchive(
      { database: this.#deps.database, blobs: this.#deps.blobs, now: () => this.#deps.clock.now() },
      archive,
      options,
    );
  }

  /** The recurring sweep: deletes the files of imports killed before they committed (`now` is the clock's unless given). */
  sweepImports(now = this.#deps.clock.now()): Promise<{ imports: number; blobs: number }> {
    const { database, blobs, logger } = this.#deps;
    return sweepAbandonedImports({ db: database.db, blobs, logger }, now);
  }

  /** The job: writes the archive, then completes the export (or fails it) with its event. */
  async run(job: RunningJob<{ exportId: string }>): Promise<void> {
    const { database, clock, blobs, logger, config, events } = this.#deps;
    const e = await this.#exports.findById(database.db, job.payload.exportId);
    if (!e || (e.status !== 'queued' && e.status !== 'running')) return;
    const key = archiveKey(e.tenantId, e.id);
    await this.#exports.update(database.db, e.tenantId, e.id, { status: 'running', phase: 'rows' }, clock.now());
    let outcome: { size: number; sha256: string } | null = null;
    let failure: string | null = null;
    try {
      outcome = await writeTenantArchive({ database, blobs, now: () => clock.now() }, e.tenantId, key, async (p) => {
        await this.#exports.update(
          database.db,
          e.tenantId,
          e.id,
          {
            phase: p.phase,
            entriesTotal: p.entriesTotal,
            entriesDone: p.entriesDone,
            bytesTotal: p.bytesTotal,
            bytesDone: p.bytesDone,
          },
          clock.now(),
        );
      });
    } catch (error) {
      logger.warn({ err: error, exportId: e.id }, 'tenant export failed');
      failure = error instanceof Error ? error.message : String(error);
      await blobs.delete(key).catch(() => {});
    }
    const now = clock.now();
    const expiresAt = outcome ? now + config.tenantExports.retentionMs : null;
    await database.db.transaction().execute(async (trx) => {
      await this.#exports.update(
        trx,
        e.tenantId,
        e.id,
        outcome
          ? {
              status: 'completed',
              phase: 'done',
              blobKey: key,
              size: outcome.size,
              sha256: outcome.sha256,
              finishedAt: now,
              expiresAt,
              bytesDone: outcome.size,
            }
          : { status: 'failed', phase: 'done', error: failure, finishedAt: now },
        now,
      );
      await events.record(trx, {
        tenantId: e.tenantId,
        name: 'tenant.export.completed',
        data: {
          export_id: e.id,
          status: outcome ? 'completed' : 'failed',
          size: outcome?.size ?? null,
          sha256: outcome?.sha256 ?? null,
          expires_at: expiresAt === null ? null : iso(expiresAt),
          error: failure,
        },
      });
      await job.completeIn(trx);
    });
  }

  /** The recurring sweep: archives past their retention are deleted and their exports marked expired. */
  async expire(): Promise<number> {
    const { database, clock, blobs } = this.#deps;
    let count = 0;
    for (;;) {
      const due = await this.#exports.expired(database.db, clock.now(), 100);
      for (const e of due) {
        if (e.blobKey) await blobs.delete(e.blobKey);
        await this.#exports.update(database.db, e.tenantId, e.id, { status: 'expired', blobKey: null }, clock.now());
        count++;
      }
      if (due.length < 100) return count;
    }
  }

  async forgetTenant(trx: Parameters<ExportsRepository['deleteForTenant']>[0], tenantId: string): Promise<void> {
    await this.#exports.deleteForTenant(trx, tenantId);
  }
}
