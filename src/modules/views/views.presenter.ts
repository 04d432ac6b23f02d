import { iso } from '../../lib/clock.ts';
import type { SavedView } from './saved-views.repository.ts';

/** A saved view as the API shows it (its owner is always the caller, so not shown). */
export function presentView(v: SavedView) {
  return {
    id: v.id,
    name: v.name,
    folder_id: v.folderId,
    filters: v.filters,
    created_at: iso(v.createdAt),
    updated_at: iso(v.updatedAt),
  };
}
