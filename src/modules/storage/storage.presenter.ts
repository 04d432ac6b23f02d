import { iso } from '../../lib/clock.ts';
import type { MigrationFileRow } from './migration-files.repository.ts';
import type { MigrationRow } from './migrations.repository.ts';
import type { StorageConfigView } from './storage-config.service.ts';
import { supportedTargetsFrom } from './storage-providers.ts';

const SECRET_MASK = '********';

export function presentMigration(m: MigrationRow) {
  return {
    id: m.id,
    tenant_id: m.tenant_id,
    source_provider: m.source_provider,
    target_provider: m.target_provider,
    status: m.status,
    phase: m.phase,
    total_files: Number(m.total_files),
    migrated_files: Number(m.migrated_files),
    failed_files: Number(m.failed_files),
    skipped_files: Number(m.skipped_files),
    total_bytes: Number(m.total_bytes),
    migrated_bytes: Number(m.migrated_bytes),
    initiated_by_email: m.initiated_by_email,
    error: m.error,
    cancel_reason: m.cancel_reason,
    created_at: iso(m.created_at),
    started_at: iso(m.started_at),
    completed_at: iso(m.completed_at),
    cancelled_at: iso(m.cancelled_at),
    source_purge_at: iso(m.purge_at),
    source_purged_at: iso(m.purged_at),
  };
}

/** The status view: the record plus progress, the file being copied and an estimate of the end. */
export function presentStatus(m: MigrationRow, now: number) {
  const total = Number(m.total_bytes);
  const done = Number(m.migrated_bytes);
  const files = Number(m.total_files);
  const settled = Number(m.migrated_files) + Number(m.failed_files) + Number(m.skipped_files);
  const finished = !['pending', 'in_progress'].includes(m.status);
  const ratio = total > 0 ? done / total : files > 0 ? settled / files : finished ? 1 : 0;
  const progress = m.status === 'completed' ? 100 : Math.min(100, Math.round(ratio * 1000) / 10);
  return {
    ...presentMigration(m),
    progress_percent: progress,
    current_file: m.status === 'in_progress' ? m.current_file : null,
    estimated_completion: m.status === 'in_progress' ? iso(estimate(m, ratio, now)) : null,
  };
}

/** Linear in bytes copied since the start; null until something was copied. */
function estimate(m: MigrationRow, ratio: number, now: number): number | null {
  if (m.started_at === null || ratio <= 0) return null;
  const elapsed = Math.max(0, now - Number(m.started_at));
  return Math.round(now + (elapsed / ratio) * (1 - ratio));
}

export function presentFailed(f: MigrationFileRow) {
  return { file_id: f.document_id, file_path: f.storage_key, error: f.error, attempts: Number(f.attempts), last_attempt: iso(f.last_attempt_at) };
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
            access_key_id: maskKeyId(c.access_key_id),
            secret_access_key: SECRET_MASK,
            force_path_style: c.force_path_style === 1,
            verified_at: iso(c.verified_at),
          }
        : { configured: false },
    },
  };
}

function maskKeyId(id: string): string {
  return id.length <= 4 ? SECRET_MASK : `${'*'.repeat(Math.min(12, id.length - 4))}${id.slice(-4)}`;
}
