import { iso } from '../../../lib/clock.ts';
import type { FolderWithCount } from './folders.service.ts';

/** A folder as the API shows it; `updated_at` only on single reads (spec). */
export function presentFolder(f: FolderWithCount, options: { withUpdatedAt: boolean }) {
  return {
    id: f.id,
    name: f.name,
    parent_id: f.parentId,
    color: f.color,
    icon: f.icon,
    ...(f.visibleDocumentCount !== undefined ? { document_count: f.visibleDocumentCount } : {}),
    created_at: iso(f.createdAt),
    ...(options.withUpdatedAt ? { updated_at: iso(f.updatedAt) } : {}),
  };
}
