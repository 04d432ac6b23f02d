import { iso } from '../../../lib/clock.ts';
import type { TenantExport } from './exports.repository.ts';

/** An export as the API shows it; `downloadPath` is where its archive can be fetched (null until completed). */
export function presentExport(e: TenantExport, downloadPath: string) {
  const ready = e.status === 'completed';
  return {
    id: e.id,
    tenant_id: e.tenantId,
    status: e.status,
    phase: e.phase,
    progress: {
      entries_total: e.entriesTotal,
      entries_done: e.entriesDone,
      bytes_total: e.bytesTotal,
      bytes_done: e.bytesDone,
      percent: ready
        ? 100
        : e.bytesTotal > 0
          ? Math.min(99.9, Math.round((e.bytesDone / e.bytesTotal) * 1000) / 10)
          : 0,
    },
    size: e.size,
    sha256: e.sha256,
    download_url: ready ? downloadPath : null,
    expires_at: e.expiresAt === null ? null : iso(e.expiresAt),
    error: e.error,
    created_at: iso(e.createdAt),
    finished_at: e.finishedAt === null ? null : iso(e.finishedAt),
  };
}
