import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { sql } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { fileTypeFilter } from '../../providers/files/file-types.ts';

/** What a search is narrowed to; every part optional, all parts must hold. */
export interface SearchFilters {
  /** Documents directly in this folder. */
  folderId?: string;
  /** Documents carrying at least one of these tags (by id). */
  tagIds?: string[];
  /** Documents carrying at least one of these tags (by name, case-insensitive). */
  tagNames?: string[];
  /** `file_type` values as the list filter takes them: media types or extensions; any of them. */
  fileTypes?: string[];
  /** `created_at` bounds, epoch ms, inclusive. */
  createdFrom?: number;
  createdTo?: number;
  /** Documents whose AI tags include at least one of these (case-insensitive). */
  aiCategories?: string[];
}

/** True when the filters narrow nothing. */
export function isUnfiltered(f: SearchFilters): boolean {
  return (
    f.folderId === undefined &&
    !f.tagIds?.length &&
    !f.tagNames?.length &&
    !f.fileTypes?.length &&
    f.createdFrom === undefined &&
    f.createdTo === undefined &&
    !f.aiCategories?.length
  );
}

/** The filters as conditions over `documents` (to AND with the visibility fragment). */
export function filterConditions(eb: ExpressionBuilder<DB, 'documents'>, f: SearchFilters, dialect: DialectName): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (f.folderId !== undefined) out.push(eb('documents.folder_id', '=', f.folderId));
  if (f.createdFrom !== undefined) out.push(eb('documents.created_at', '>=', f.createdFrom));
  if (f.createdTo !== undefined) out.push(eb('documents.created_at', '<=', f.createdTo));
  if (f.fileTypes?.length) {
    const types = f.fileTypes.map(fileTypeFilter);
    out.push(
      eb.or(types.map((t) => ('mediaType' in t ? eb('documents.file_type', '=', t.mediaType) : eb('documents.extension', '=', t.extension)))),
    );
  }
  if (f.tagIds?.length) {
    out.push(
      eb.exists(
        eb
          .selectFrom('document_tags')
          .select('document_tags.tag_id')
          .whereRef('document_tags.document_id', '=', 'documents.id')
          .where('document_tags.tag_id', 'in', f.tagIds),
      ),
    );
  }
  if (f.tagNames?.length) {
    const keys = f.tagNames.map((n) => n.trim().toLowerCase());
    out.push(
      eb.exists(
        eb
          .selectFrom('document_tags')
          .innerJoin('tags', 'tags.id', 'document_tags.tag_id')
          .select('document_tags.tag_id')
          .whereRef('document_tags.document_id', '=', 'documents.id')
          .where('tags.name_key', 'in', keys),
      ),
    );
  }
  if (f.aiCategories?.length) {
    const keys = f.aiCategories.map((c) => c.trim().toLowerCase());
    const list = sql.join(keys.map((k) => sql`${k}`));
    out.push(
      dialect === 'postgres'
        ? sql<SqlBool>`exists (select 1 from json_array_elements_text(documents.ai_tags::json) as t(v) where lower(t.v) in (${list}))`
        : sql<SqlBool>`exists (select 1 from json_each(documents.ai_tags) where lower(json_each.value) in (${list}))`,
    );
  }
  return out;
}
