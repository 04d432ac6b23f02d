import { type Expression, type ExpressionBuilder, expressionBuilder, type SqlBool, sql } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { DB } from '../../db/schema.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { fileTypeFilter } from '../../providers/files/file-types.ts';
import { visibilityScope, visibleDocuments } from './access/access.repository.ts';

/**
 * The library as modules that rank documents themselves read it (search): which documents a caller
 * may find under some filters, as a condition they compose into their own SQL or as a list, and the
 * few fields a result shows. The SQL over `documents`, `document_contents` and the tags stays here.
 */

/** What a document query is narrowed to; every part optional, all parts must hold. */
export interface DocumentFilters {
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
  /** Documents in this folder or in any folder below it (chat across a folder). */
  folderTree?: string;
  /** Only documents whose processing has completed (chat answers from finished text only). */
  completedOnly?: boolean;
}

/** True when the filters narrow nothing. */
export function isUnfiltered(f: DocumentFilters): boolean {
  return (
    f.folderId === undefined &&
    !f.tagIds?.length &&
    !f.tagNames?.length &&
    !f.fileTypes?.length &&
    f.createdFrom === undefined &&
    f.createdTo === undefined &&
    !f.aiCategories?.length &&
    f.folderTree === undefined &&
    !f.completedOnly
  );
}

/** A document as a search result shows it. */
export interface DocumentSummary {
  id: string;
  filename: string;
  aiSummary: string | null;
  folderId: string | null;
  createdAt: number;
}

/**
 * "The document whose id is `documentId` is the caller's tenant's, visible to them and passes the
 * filters", for a query that starts from its own table (a full-text index): one primary-key probe
 * of `documents` per row tested, as a join on the id would make.
 */
export type DocumentCondition = (documentId: Expression<string>) => Expression<SqlBool>;

/** Documents per `IN (...)` list: well under SQLite's bound-parameter limit. */
const IN_BATCH = 500;

export class DocumentQueries {
  readonly #dialect: DialectName;
  constructor(dialect: DialectName) {
    this.#dialect = dialect;
  }

  /** The condition a ranked query applies before its sort and limit (so a member's top-k is the top-k of what they may see). */
  matching(auth: AuthContext, filters: DocumentFilters): DocumentCondition {
    const where = this.#where(auth, filters);
    const tenantId = auth.tenant.id;
    return (documentId) =>
      sql<SqlBool>`exists (select 1 from documents where documents.id = ${documentId} and documents.tenant_id = ${tenantId} and ${where})`;
  }

  /** Whether the caller sees every document of the tenant (no visibility condition applies). */
  seesAll(auth: AuthContext): boolean {
    return visibilityScope(auth) === null;
  }

  /** Ids of the tenant's documents the caller may see that pass the filters. */
  async ids(db: Executor, auth: AuthContext, filters: DocumentFilters): Promise<string[]> {
    const rows = await db
      .selectFrom('documents')
      .select('documents.id')
      .where('documents.tenant_id', '=', auth.tenant.id)
      .where(this.#where(auth, filters))
      .execute();
    return rows.map((r) => r.id);
  }

  /** The summaries of these documents that the caller may still see under the filters (one deleted or hidden meanwhile drops out). */
  async summaries(
    db: Executor,
    auth: AuthContext,
    ids: string[],
    filters: DocumentFilters,
  ): Promise<Map<string, DocumentSummary>> {
    const out = new Map<string, DocumentSummary>();
    const where = this.#where(auth, filters);
    for (let i = 0; i < ids.length; i += IN_BATCH) {
      const rows = await db
        .selectFrom('documents')
        .select([
          'documents.id',
          'documents.filename',
          'documents.ai_summary',
          'documents.folder_id',
          'documents.created_at',
        ])
        .where('documents.tenant_id', '=', auth.tenant.id)
        .where('documents.id', 'in', ids.slice(i, i + IN_BATCH))
        .where(where)
        .execute();
      for (const r of rows)
        out.set(r.id, {
          id: r.id,
          filename: r.filename,
          aiSummary: r.ai_summary,
          folderId: r.folder_id,
          createdAt: Number(r.created_at),
        });
    }
    return out;
  }

  /** The extracted text of the document whose id is `documentId` (null without text), for a query's own select list (`ts_headline`). */
  contentOf(tenantId: string, documentId: Expression<string>): Expression<string | null> {
    return sql<
      string | null
    >`(select c.content from document_contents c where c.document_id = ${documentId} and c.tenant_id = ${tenantId})`;
  }

  /** The tenant's tag names by name, at most `limit`. */
  async tagNames(db: Executor, tenantId: string, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom('tags')
      .select('name')
      .where('tenant_id', '=', tenantId)
      .orderBy('name_key')
      .limit(limit)
      .execute();
    return rows.map((r) => r.name);
  }

  /** Visibility and filters as one condition over `documents`. */
  #where(auth: AuthContext, filters: DocumentFilters): Expression<SqlBool> {
    const eb = expressionBuilder<DB, 'documents'>();
    return eb.and([visibleDocuments(auth)(eb), ...filterConditions(eb, filters, this.#dialect, auth.tenant.id)]);
  }
}

/** The filters as conditions over `documents` (to AND with the visibility fragment). */
function filterConditions(
  eb: ExpressionBuilder<DB, 'documents'>,
  f: DocumentFilters,
  dialect: DialectName,
  tenantId: string,
): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (f.folderId !== undefined) out.push(eb('documents.folder_id', '=', f.folderId));
  if (f.folderTree !== undefined)
    out.push(
      sql<SqlBool>`documents.folder_id in (with recursive subtree(id) as (
        select folders.id from folders where folders.tenant_id = ${tenantId} and folders.id = ${f.folderTree}
        union all
        select folders.id from folders join subtree on folders.parent_id = subtree.id
      ) select id from subtree)`,
    );
  if (f.completedOnly) out.push(eb('documents.status', '=', 'completed'));
  if (f.createdFrom !== undefined) out.push(eb('documents.created_at', '>=', f.createdFrom));
  if (f.createdTo !== undefined) out.push(eb('documents.created_at', '<=', f.createdTo));
  if (f.fileTypes?.length) {
    const types = f.fileTypes.map(fileTypeFilter);
    out.push(
      eb.or(
        types.map((t) =>
          'mediaType' in t ? eb('documents.file_type', '=', t.mediaType) : eb('documents.extension', '=', t.extension),
        ),
      ),
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
