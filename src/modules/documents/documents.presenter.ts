import { iso } from '../../lib/clock.ts';
import { parseJson } from '../../lib/json.ts';
import type { DocumentRow } from './documents.repository.ts';

export interface Entities {
  people: string[];
  organizations: string[];
  dates: string[];
}

function entitiesOf(row: DocumentRow): Entities {
  const e = parseJson<Partial<Entities>>(row.entities, {});
  return { people: e.people ?? [], organizations: e.organizations ?? [], dates: e.dates ?? [] };
}

/** A document in a list; `entities` only for the API-key variant (spec, Document). */
export function presentDocumentListItem(row: DocumentRow, tags: string[], options: { withEntities: boolean }) {
  return {
    id: row.id,
    filename: row.filename,
    original_filename: row.original_filename,
    file_type: row.file_type,
    file_size: Number(row.file_size),
    folder_id: row.folder_id,
    status: row.status,
    ai_status: row.ai_status,
    ai_summary: row.ai_summary,
    ai_tags: parseJson<string[]>(row.ai_tags, []),
    tags,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    ...(options.withEntities ? { entities: entitiesOf(row) } : {}),
  };
}

/** A document with its detail fields (single get). `apiBase` is e.g. `https://host/api/v1`. */
export function presentDocumentDetail(row: DocumentRow, tags: string[], apiBase: string) {
  return {
    ...presentDocumentListItem(row, tags, { withEntities: false }),
    storage_path: row.storage_key,
    thumbnail_url: `${apiBase}/documents/${row.id}/thumbnail`,
    ai_thumbnail_url: null,
    entities: entitiesOf(row),
    metadata: parseJson<Record<string, unknown>>(row.metadata, {}),
    processing_error: parseJson<{ stage: string; message: string } | null>(row.processing_error, null),
  };
}
