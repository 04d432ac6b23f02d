/** Job kinds of the documents module (`<module>.<verb>`) and their payloads. */
export const DOCUMENT_JOBS = {
  /** Render the thumbnail and store it beside the file. */
  thumbnail: 'documents.thumbnail',
  /** Remove blobs of deleted documents (enqueued in the deleting transaction). */
  deleteBlobs: 'documents.delete_blob',
  /**
   * Enqueued (committed) before an upload stores any byte, due an hour later: removes the bytes if
   * no document row came to reference them, i.e. the process died between storing and committing.
   */
  collectOrphan: 'documents.collect_orphan',
} as const;

/** How long an upload may take before its unreferenced bytes count as orphaned. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

export interface DocumentJobPayload {
  tenantId: string;
  documentId: string;
}

export interface DeleteBlobsPayload {
  keys: string[];
}

/** Where a document's bytes live in the blob store. */
export function documentBlobKey(tenantId: string, documentId: string): string {
  return `tenants/${tenantId}/documents/${documentId}`;
}

/** Where a document's thumbnail lives (fixed, so deletion never depends on the job having run). */
export function thumbnailBlobKey(tenantId: string, documentId: string): string {
  return `tenants/${tenantId}/thumbnails/${documentId}`;
}
