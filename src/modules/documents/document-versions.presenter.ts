import { iso } from '../../lib/clock.ts';
import type { DocumentVersion } from './document-versions.repository.ts';
import type { VersionUpload } from './document-versions.service.ts';

export function presentVersion(v: DocumentVersion) {
  return {
    document_id: v.documentId,
    number: v.number,
    current: v.current,
    filename: v.filename,
    file_type: v.fileType,
    file_size: v.fileSize,
    sha256: v.sha256,
    created_at: iso(v.createdAt),
    created_by: v.createdBy,
  };
}

export function presentVersionList(documentId: string, versions: DocumentVersion[]) {
  return {
    document_id: documentId,
    current_version: versions.find((v) => v.current)?.number ?? 1,
    versions: versions.map(presentVersion),
  };
}

export function presentVersionUpload(u: VersionUpload) {
  return {
    ...presentVersion(u.version),
    created: u.created,
    status: u.document.status,
    ai_status: u.document.aiStatus,
  };
}
