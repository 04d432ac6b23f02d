import { iso } from '../../lib/clock.ts';
import type { MigrationFile } from './migration-files.repository.ts';
import type { StorageMigration } from './migrations.repository.ts';
import type { StorageConfigView } from './storage-config.service.ts';
import { supportedTargetsFrom } from './storage-providers.ts';

const SECRET_MASK = '********';

export function presentMigration(m: StorageMigration) {
  return {
    id: m.id,
    tenant_id: m.tenantId,
    source_provider: m.sourceProvider,
    target_provider: m.targetProvider,
    status: m.status,
    phase: m.phase,
    total_files: m.totalFiles,
    migrated_files: m.migratedFiles,
    failed_files: m.failedFiles,
    skipped_files: m.skippedFiles,
    total_bytes: m.totalBytes,
    migrated_bytes: m.migratedBytes,
    initiated_by_email: m.initiatedByEmail,
    error: m.error,
    cancel_reason: m.cancelReason,
    created_at: iso(m.createdAt),
    started_at: iso(m.startedAt),
    completed_at: iso(m.completedAt),
    cancelled_at: iso(m.cancelledAt),
    source_purge_at: iso(m.purgeAt),
    source_purged_at: iso(m.purgedAt),
  };
}

/** The status view: the record plus progress, the file being copied and an estimate of the end. */
export function presentStatus(m: StorageMigration, now: number) {
  const total = m.totalBytes;
  const done = m.migratedBytes;
  const files = m.totalFiles;
  const settled = m.migratedFiles + m.failedFiles + m.skippedFiles;
  const finished = !['pending', 'in_progress'].includes(m.status);
  const ratio = total > 0 ? done / total : files > 0 ? settled / files : finished ? 1 : 0;
  const progress = m.status === 'completed' ? 100 : Math.min(100, Math.round(ratio * 1000) / 10);
  return {
    ...presentMigration(m),
    progress_percent: progress,
    current_file: m.status === 'in_progress' ? m.currentFile : null,
    estimated_completion: m.status === 'in_progress' ? iso(estimate(m, ratio, now)) : null,
  };
}

/** Linear in bytes copied since the start; null until something was copied. */
function estimate(m: StorageMigration, ratio: number, now: number): number | null {
  if (m.startedAt === null || ratio <= 0) return null;
  const elapsed = Math.max(0, now - m.startedAt);
  return Math.round(now + (elapsed / ratio) * (1 - ratio));
}

export function presentFailed(f: MigrationFile) {
  return {
    file_id: f.documentId,
    file_path: f.storageKey,
    error: f.error,
    attempts: f.attempts,
    last_attempt: iso(f.lastAttemptAt),
  };
}

export function presentConfig(v: StorageConfigView) {
  const c = v.customer;
  return {
    tenant_id: v.tenantId,
    current_provider: v.placement.current,
    write_provider: v.placement.write,
    read_providers: v.placement.read,
    available_targets: supportedTargetsFrom(v.placement.current),
    targets: {
      shared: { configured: true },
      dedicated: { configured: v.dedicatedLocation !== null, location: v.dedicatedLocation },
      customer: c
        ? {
            configured: true,
            endpoint: c.endpoint,
            bucket: c.bucket,
            region: c.region,
            prefix: c.prefix,
            access_key_id: maskKeyId(c.accessKeyId),
            secret_access_key: SECRET_MASK,
            force_path_style: c.forcePathStyle,
            verified_at: iso(c.verifiedAt),
          }
        : { configured: false },
    },
  };
}

function maskKeyId(id: string): string {
  return id.length <= 4 ? SECRET_MASK : `${'*'.repeat(Math.min(12, id.length - 4))}${id.slice(-4)}`;
}
