import { type Insertable, type RawBuilder, type Selectable, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { Executor } from '../../db/executor.ts';
import type { DB } from '../../db/schema.ts';
import { parseJson } from '../../lib/json.ts';
import { type VisibilityScope, visibilityRows } from './access/access.repository.ts';
import type { DocumentsTable } from './documents.tables.ts';
import { nameContains } from './name-filter.ts';

/** Named things AI enrichment found; the API shows these three kinds (the column keeps any others, e.g. amounts). */
export interface DocumentEntities {
  people: string[];
  organizations: string[];
  dates: string[];
  [kind: string]: string[];
}

/**
 * What the last AI enrichment found beyond the spec's lists, with a confidence for every output
 * (the shapes of the AI provider: src/providers/ai/ai-provider.ts).
 */
export interface AiEnrichment {
  summaryConfidence: number;
  /** Null when a reviewer rejected it or it waits for review (`review`). */
  documentType: ({ value: string; confidence: number } & ConfirmedMark) | null;
  fields: Record<string, { value: AiFieldValue; confidence: number } & ConfirmedMark>;
  tags: { name: string; confidence: number; source: string }[];
  entities: {
    people: { name: string; confidence: number }[];
    organizations: { name: string; confidence: number }[];
    locations: { name: string; confidence: number }[];
    dates: { value: string; text: string; confidence: number; alternatives?: string[] }[];
    amounts: { value: number; currency: string; text: string; confidence: number }[];
  };
  /** Results held back for a person (the AI review queue), named `document_type`, `fields.<name>`, `tags.<name>`; null or absent when none. */
  review?: { taskId: string; pending: string[] } | null;
}

/** A key field's value, as the AI provider gives it or a reviewer corrected it. */
export type AiFieldValue =
  | string
  | string[]
  | { value: number; currency: string; text: string; period?: string }
  | { value: string; text: string };

/** Set (true) on a result a person confirmed or corrected in review: a reprocess keeps it. */
interface ConfirmedMark {
  confirmed?: true;
}

/** Why processing stopped, or why AI was skipped. */
export interface ProcessingError {
  stage: string;
  message: string;
}

/** A document as services see it: JSON columns parsed, flags as booleans. */
export interface Document {
  id: string;
  tenantId: string;
  folderId: string | null;
  /** The uploading user; null when uploaded with an API key. */
  ownerId: string | null;
  /** The batch upload it came with. */
  collectionId: string | null;
  filename: string;
  originalFilename: string;
  /** Lower-case extension without the dot (`pdf`). */
  extension: string;
  /** Media type. */
  fileType: string;
  fileSize: number;
  sha256: string;
  storageKey: string;
  thumbnailKey: string | null;
  thumbnailType: string | null;
  status: string;
  aiStatus: string;
  enableAi: boolean;
  aiSummary: string | null;
  aiTags: string[];
  entities: DocumentEntities;
  /** The AI document type (`invoice`, …), also in `aiEnrichment`; a column of its own so it can be filtered on. */
  aiDocumentType: string | null;
  aiEnrichment: AiEnrichment | null;
  metadata: Record<string, unknown>;
  processingError: ProcessingError | null;
  createdAt: number;
  updatedAt: number;
}

/** What may change after upload. */
export type DocumentPatch = Partial<Omit<Document, 'id' | 'tenantId' | 'createdAt'>>;

export function toDocument(row: Selectable<DocumentsTable>): Document {
  const entities = parseJson<Partial<DocumentEntities> | null>(row.entities, null) ?? {};
  return {
    id: row.id,
    tenantId: row.tenant_id,
    folderId: row.folder_id,
    ownerId: row.owner_id,
    collectionId: row.collection_id,
    filename: row.filename,
    originalFilename: row.original_filename,
    extension: row.extension,
    fileType: row.file_type,
    fileSize: Number(row.file_size),
    sha256: row.sha256,
    storageKey: row.storage_key,
    thumbnailKey: row.thumbnail_key,
    thumbnailType: row.thumbnail_type,
    status: row.status,
    aiStatus: row.ai_status,
    enableAi: Number(row.enable_ai) === 1,
    aiSummary: row.ai_summary,
    aiTags: parseJson<string[]>(row.ai_tags, []),
    entities: {
      ...entities,
      people: entities.people ?? [],
      organizations: entities.organizations ?? [],
      dates: entities.dates ?? [],
    },
    aiDocumentType: row.ai_document_type,
    aiEnrichment: parseJson<AiEnrichment | null>(row.ai_enrichment, null),
    metadata: parseJson<Record<string, unknown>>(row.metadata, {}),
    processingError: parseJson<ProcessingError | null>(row.processing_error, null),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** How each field is stored: the inverse of `toDocument`, field by field, for inserts and patches. */
const COLUMNS: ColumnMap<Document, DocumentsTable> = {
  id: 'id',
  tenantId: 'tenant_id',
  folderId: 'folder_id',
  ownerId: 'owner_id',
  collectionId: 'collection_id',
  filename: 'filename',
  originalFilename: 'original_filename',
  extension: 'extension',
  fileType: 'file_type',
  fileSize: 'file_size',
  sha256: 'sha256',
  storageKey: 'storage_key',
  thumbnailKey: 'thumbnail_key',
  thumbnailType: 'thumbnail_type',
  status: 'status',
  aiStatus: 'ai_status',
  enableAi: ['enable_ai', (v) => (v ? 1 : 0)],
  aiSummary: 'ai_summary',
  aiTags: ['ai_tags', (v) => JSON.stringify(v)],
  entities: ['entities', (v) => JSON.stringify(v)],
  aiDocumentType: 'ai_document_type',
  aiEnrichment: ['ai_enrichment', (v) => (v === null ? null : JSON.stringify(v))],
  metadata: ['metadata', (v) => JSON.stringify(v)],
  processingError: ['processing_error', (v) => (v === null ? null : JSON.stringify(v))],
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

export const DOCUMENT_SORTS = {
  name: 'filename',
  created_at: 'created_at',
  updated_at: 'updated_at',
  size: 'file_size',
} as const;
export type DocumentSort = keyof typeof DOCUMENT_SORTS;

/** A document's id and the key of its bytes in the blob store (what removing it needs). */
export interface StoredBlob {
  id: string;
  storageKey: string;
}

/** A document's extracted text, and the text of each page where the format has pages. */
/** A document's processing stage; `pages` (read of total) replaces the pages known, absent keeps them. */
export interface ProgressUpdate {
  tenantId: string;
  documentId: string;
  stage: string;
  pages?: { done: number; total: number } | null;
  at: number;
}

export interface StoredContent {
  text: string;
  pages: string[] | null;
}

/** How far a document's processing has got (while its `status` is `processing`). */
export interface DocumentProgress {
  /** `extraction`, `transcription`, `enrichment`, `embedding`. */
  stage: string;
  /** Pages extraction has read, of `pagesTotal`; null before it knows, and for formats without pages. */
  pagesDone: number | null;
  pagesTotal: number | null;
}

/** Filters of the document list (spec: GET /documents). */
export interface DocumentListFilter {
  /** undefined = any folder; null = top level only. */
  folderId?: string | null;
  /** Tag ids: the document carries every one (`all`) or at least one (`any`). */
  tags?: { ids: string[]; match: 'all' | 'any' };
  /** An entity whose comparison form starts with `text`'s (of this kind of `entities` list, when given). */
  entity?: { text: string; kind?: string };
  /** `status` is one of these. */
  statuses?: string[];
  /** `ai_status` is one of these. */
  aiStatuses?: string[];
  /** Case-insensitive filename substring. */
  search?: string;
  mediaType?: string;
  extension?: string;
  createdFrom?: number;
  createdTo?: number;
  /** Whose visibility rows narrow the list; null = every document of the tenant (tenant administrators). */
  scope: VisibilityScope | null;
}

export interface DocumentPage {
  sort: DocumentSort;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** The columns of `document_visibility` that copy each sort's column (same order as the documents indexes). */
const VISIBILITY_SORTS = {
  name: 'name_key',
  created_at: 'created_at',
  updated_at: 'updated_at',
  size: 'file_size',
} as const;

/** SQL for documents; every query takes the tenant. */
export class DocumentsRepository {
  async insert(db: Executor, document: Document): Promise<void> {
    // Every field of a Document maps to a column, so the values are a whole row.
    await db
      .insertInto('documents')
      .values(columnsOf(COLUMNS, document) as Insertable<DocumentsTable>)
      .execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<Document | null> {
    const row = await db
      .selectFrom('documents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toDocument(row) : null;
  }

  /** A document of the tenant with exactly this content, if any (imports skip such duplicates). */
  async findIdBySha256(db: Executor, tenantId: string, sha256: string): Promise<string | null> {
    const row = await db
      .selectFrom('documents')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('sha256', '=', sha256)
      .limit(1)
      .executeTakeFirst();
    return row?.id ?? null;
  }

  /** The tenant's documents with exactly this content, oldest first (at most `limit`): an upload's duplicates. */
  async findBySha256(db: Executor, tenantId: string, sha256: string, limit: number): Promise<Document[]> {
    const rows = await db
      .selectFrom('documents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('sha256', '=', sha256)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toDocument);
  }

  async update(db: Executor, tenantId: string, id: string, patch: DocumentPatch): Promise<void> {
    await db
      .updateTable('documents')
      .set(columnsOf(COLUMNS, patch))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** Every document of the tenant matching the filters (the lists of tenant administrators). */
  #filtered(db: Executor, tenantId: string, f: DocumentListFilter): SelectQueryBuilder<DB, 'documents', object> {
    let q = db.selectFrom('documents').where('documents.tenant_id', '=', tenantId);
    if (f.folderId !== undefined) q = q.where('documents.folder_id', f.folderId === null ? 'is' : '=', f.folderId);
    for (const c of libraryConditions(tenantId, f, sql.ref('documents.id'))) q = q.where(c);
    if (f.statuses) q = q.where('documents.status', 'in', f.statuses);
    if (f.aiStatuses) q = q.where('documents.ai_status', 'in', f.aiStatuses);
    if (f.search) {
      const at = {
        documentId: sql<string>`documents.id`,
        lowerName: sql<string>`lower(documents.filename)`,
        indexedOnPostgres: true,
      };
      q = q.where(nameContains(db, tenantId, f.search, at));
    }
    if (f.mediaType !== undefined) q = q.where('documents.file_type', '=', f.mediaType);
    if (f.extension !== undefined) q = q.where('documents.extension', '=', f.extension);
    if (f.createdFrom !== undefined) q = q.where('documents.created_at', '>=', f.createdFrom);
    if (f.createdTo !== undefined) q = q.where('documents.created_at', '<=', f.createdTo);
    return q;
  }

  /**
   * The caller's visibility rows matching the filters (the lists of everyone else): one range of a
   * `document_visibility` index per (tenant, user), with the sort keys and folder copied on the
   * rows; only the type filters look at the document itself.
   */
  #visible(db: Executor, tenantId: string, scope: VisibilityScope, f: DocumentListFilter) {
    let q = visibilityRows(db, tenantId, scope);
    if (f.folderId !== undefined) q = q.where('v.folder_id', f.folderId === null ? 'is' : '=', f.folderId);
    for (const c of libraryConditions(tenantId, f, sql.ref('v.document_id'))) q = q.where(c);
    if (f.search) {
      const at = {
        documentId: sql<string>`v.document_id`,
        lowerName: sql<string>`v.name_key`,
        indexedOnPostgres: false,
      };
      q = q.where(nameContains(db, tenantId, f.search, at));
    }
    // The visibility rows do not copy these: one primary-key probe of the document per row, except
    // for states few documents are in (`processing`, `failed`...), whose documents are read once from
    // the state index as a set to probe (a member's 5,000 rows: 7.8x the unfiltered list by probes).
    const rare = (values: string[] | undefined, common: string[]) =>
      values !== undefined && values.every((v) => !common.includes(v));
    const { mediaType, extension } = f;
    const [statuses, aiStatuses] = [f.statuses, f.aiStatuses];
    const statusSet = rare(statuses, ['completed']) ? statuses : undefined;
    const aiSet = rare(aiStatuses, ['completed', 'skipped']) ? aiStatuses : undefined;
    for (const [column, values] of [
      ['status', statusSet],
      ['ai_status', aiSet],
    ] as const) {
      if (values === undefined) continue;
      q = q.where('v.document_id', 'in', (eb) =>
        eb
          .selectFrom('documents as s')
          .select('s.id')
          .where('s.tenant_id', '=', tenantId)
          .where(`s.${column}`, 'in', values),
      );
    }
    const probedStatuses = statusSet ? undefined : statuses;
    const probedAi = aiSet ? undefined : aiStatuses;
    if ([mediaType, extension, probedStatuses, probedAi].some((v) => v !== undefined)) {
      q = q.where((eb) => {
        let d = eb
          .selectFrom('documents as d')
          .select(eb.lit(1).as('one'))
          .where('d.tenant_id', '=', tenantId)
          .whereRef('d.id', '=', 'v.document_id');
        if (mediaType !== undefined) d = d.where('d.file_type', '=', mediaType);
        if (extension !== undefined) d = d.where('d.extension', '=', extension);
        if (probedStatuses !== undefined) d = d.where('d.status', 'in', probedStatuses);
        if (probedAi !== undefined) d = d.where('d.ai_status', 'in', probedAi);
        return eb.exists(d);
      });
    }
    if (f.createdFrom !== undefined) q = q.where('v.created_at', '>=', f.createdFrom);
    if (f.createdTo !== undefined) q = q.where('v.created_at', '<=', f.createdTo);
    return q;
  }

  /** One page of the list, in the sort's index order (ties broken by id). */
  async list(db: Executor, tenantId: string, filter: DocumentListFilter, page: DocumentPage): Promise<Document[]> {
    if (filter.scope !== null)
      return (await this.#listVisible(db, tenantId, filter.scope, filter, page)).map(toDocument);
    const column = DOCUMENT_SORTS[page.sort];
    // Names sort case-insensitively, served by the lower(filename) expression indexes.
    const sortKey = column === 'filename' ? sql`lower(documents.filename)` : sql.ref(`documents.${column}`);
    const rows = await this.#filtered(db, tenantId, filter)
      .selectAll('documents')
      .orderBy(sortKey, page.order)
      .orderBy('documents.id', page.order)
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return rows.map(toDocument);
  }

  /**
   * A page of the caller's visible documents: the page's ids are read from the visibility index of
   * the sort (index order, offset skipped inside the index), then only those rows are joined.
   */
  #listVisible(db: Executor, tenantId: string, scope: VisibilityScope, filter: DocumentListFilter, page: DocumentPage) {
    const key = `v.${VISIBILITY_SORTS[page.sort]}` as const;
    const ids = this.#visible(db, tenantId, scope, filter)
      .select(['v.document_id', `${key} as sort_key`])
      .orderBy(key, page.order)
      .orderBy('v.document_id', page.order)
      .limit(page.limit)
      .offset(page.offset);
    return db
      .selectFrom(ids.as('p'))
      .innerJoin('documents', 'documents.id', 'p.document_id')
      .selectAll('documents')
      .where('documents.tenant_id', '=', tenantId)
      .orderBy('p.sort_key', page.order)
      .orderBy('p.document_id', page.order)
      .execute();
  }

  /**
   * How many documents match. Administrators' lists without filters but a folder read the kept
   * counts (the tenant's, a folder's `document_count`), so `total` does not grow with the tenant.
   * Otherwise a count over the same index range as the list: for members, the range of their
   * visibility rows (index-only unless a filter needs the document).
   */
  async count(db: Executor, tenantId: string, filter: DocumentListFilter): Promise<number> {
    const { tags, entity, statuses, aiStatuses, search, mediaType, extension, createdFrom, createdTo } = filter;
    const onlyFolder = [tags, entity, statuses, aiStatuses, search, mediaType, extension, createdFrom, createdTo].every(
      (v) => v === undefined,
    );
    if (onlyFolder && filter.scope === null) return this.#keptTenantCount(db, tenantId, filter.folderId);
    const query =
      filter.scope === null
        ? this.#filtered(db, tenantId, filter).select((eb) => eb.fn.countAll<number>().as('n'))
        : this.#visible(db, tenantId, filter.scope, filter).select((eb) => eb.fn.countAll<number>().as('n'));
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The tenant's documents (folderId undefined), a folder's, or the top level's (all but those in folders), from the kept counts. */
  async #keptTenantCount(db: Executor, tenantId: string, folderId: string | null | undefined): Promise<number> {
    if (typeof folderId === 'string') {
      const row = await db
        .selectFrom('folders')
        .select('document_count')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', folderId)
        .executeTakeFirst();
      return Number(row?.document_count ?? 0);
    }
    const all = db.selectFrom('tenant_document_counts').select('documents').where('tenant_id', '=', tenantId);
    if (folderId === undefined) return Number((await all.executeTakeFirst())?.documents ?? 0);
    const inFolders = db
      .selectFrom('folders')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('document_count'), eb.lit(0)).as('n'))
      .where('tenant_id', '=', tenantId);
    // One statement, so both counts are read from the same snapshot.
    const row = await db
      .selectNoFrom((eb) => [eb.fn.coalesce(all, eb.lit(0)).as('documents'), inFolders.as('in_folders')])
      .executeTakeFirstOrThrow();
    return Number(row.documents) - Number(row.in_folders ?? 0);
  }

  /** Documents (id and blob key) inside any of the folders, for removal with them. */
  async inFolders(db: Executor, tenantId: string, folderIds: string[]): Promise<StoredBlob[]> {
    const out: StoredBlob[] = [];
    for (let i = 0; i < folderIds.length; i += 500) {
      const rows = await db
        .selectFrom('documents')
        .select(['id', 'storage_key'])
        .where('tenant_id', '=', tenantId)
        .where('folder_id', 'in', folderIds.slice(i, i + 500))
        .execute();
      for (const row of rows) out.push({ id: row.id, storageKey: row.storage_key });
    }
    return out;
  }

  async countInFolder(db: Executor, tenantId: string, folderId: string): Promise<number> {
    const row = await db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('folder_id', '=', folderId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Up to `limit` documents of the tenant with their blob keys (sandbox reset removes them in batches). */
  async listStorageKeys(db: Executor, tenantId: string, limit: number): Promise<StoredBlob[]> {
    const rows = await db
      .selectFrom('documents')
      .select(['id', 'storage_key'])
      .where('tenant_id', '=', tenantId)
      .limit(limit)
      .execute();
    return rows.map((row) => ({ id: row.id, storageKey: row.storage_key }));
  }

  /** Rows and their tag links, shares and extracted text (the latter by foreign-key cascade). */
  async deleteMany(db: Executor, tenantId: string, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      await db
        .deleteFrom('documents')
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
    }
  }

  /** Stored bytes and document count of a tenant (quotas, usage), from the counts kept by triggers on `documents`. */
  async usage(db: Executor, tenantId: string): Promise<{ documents: number; bytes: number }> {
    const row = await db
      .selectFrom('tenant_document_counts')
      .select(['documents', 'bytes'])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return { documents: Number(row?.documents ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  /** Replaces the extracted text of a document: the whole text, and each page's where the format has pages. */
  async saveContent(
    db: Executor,
    row: { tenantId: string; documentId: string; text: string; pages: string[] | null; at: number },
  ): Promise<void> {
    await db
      .deleteFrom('document_contents')
      .where('tenant_id', '=', row.tenantId)
      .where('document_id', '=', row.documentId)
      .execute();
    await db
      .insertInto('document_contents')
      .values({
        document_id: row.documentId,
        tenant_id: row.tenantId,
        content: row.text,
        pages: row.pages === null ? null : row.pages.length,
        page_texts: row.pages === null ? null : JSON.stringify(row.pages),
        created_at: row.at,
      })
      .execute();
  }

  /**
   * Records the stage a document's processing is in; `pages` replaces the pages read (null: none
   * known), absent keeps them (a later stage shows how many pages extraction read).
   */
  async saveProgress(db: Executor, row: ProgressUpdate): Promise<void> {
    const pages =
      row.pages === undefined ? {} : { pages_done: row.pages?.done ?? null, pages_total: row.pages?.total ?? null };
    await db
      .insertInto('document_progress')
      .values({
        document_id: row.documentId,
        tenant_id: row.tenantId,
        stage: row.stage,
        pages_done: null,
        pages_total: null,
        ...pages,
        updated_at: row.at,
      })
      .onConflict((oc) => oc.column('document_id').doUpdateSet({ stage: row.stage, ...pages, updated_at: row.at }))
      .execute();
  }

  /** Processing ended: nothing in progress. */
  async clearProgress(db: Executor, tenantId: string, documentId: string): Promise<void> {
    await db
      .deleteFrom('document_progress')
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .execute();
  }

  /** The progress of those of these documents being processed, by id (others absent). */
  async progressOf(db: Executor, tenantId: string, ids: string[]): Promise<Map<string, DocumentProgress>> {
    const out = new Map<string, DocumentProgress>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db
        .selectFrom('document_progress')
        .select(['document_id', 'stage', 'pages_done', 'pages_total'])
        .where('tenant_id', '=', tenantId)
        .where('document_id', 'in', ids.slice(i, i + 500))
        .execute();
      for (const r of rows)
        out.set(r.document_id, {
          stage: r.stage,
          pagesDone: r.pages_done === null ? null : Number(r.pages_done),
          pagesTotal: r.pages_total === null ? null : Number(r.pages_total),
        });
    }
    return out;
  }

  async findContent(db: Executor, tenantId: string, documentId: string): Promise<StoredContent | null> {
    const row = await db
      .selectFrom('document_contents')
      .select(['content', 'page_texts'])
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .executeTakeFirst();
    if (!row) return null;
    return { text: row.content, pages: row.page_texts === null ? null : (JSON.parse(row.page_texts) as string[]) };
  }
}

/** The highest code point: `[p, p || MAX_CHAR)` is every string starting with `p` in byte order. */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

/**
 * The tag and entity filters over the document whose id is `documentId` (a column of the outer
 * query). An entity is found through `document_entities_value_idx` (one range of the tenant's
 * values), the tags through `document_tags_tag_idx`. The search text is put in comparison form
 * by the same SQL the triggers use, so both sides fold case alike on each dialect.
 */
function libraryConditions(
  tenantId: string,
  f: DocumentListFilter,
  documentId: RawBuilder<unknown>,
): RawBuilder<SqlBool>[] {
  const out: RawBuilder<SqlBool>[] = [];
  // `IN (subquery)`, not a correlated EXISTS: the tag's rows are read once from their index (a
  // set to probe, or the rows to start from), where EXISTS probed the tags of every document the
  // count walked (50,000 documents, two tags: 6x the unfiltered list; bench/documents/list-filters.bench.ts).
  const tagged = (ids: string[]) =>
    sql<SqlBool>`${documentId} in (select document_tags.document_id from document_tags where document_tags.tenant_id = ${tenantId} and document_tags.tag_id in (${sql.join(ids.map((id) => sql`${id}`))}))`;
  if (f.tags?.match === 'any') out.push(tagged(f.tags.ids));
  else if (f.tags) for (const id of f.tags.ids) out.push(tagged([id]));
  if (f.entity) {
    const key = sql`substr(lower(trim(cast(${f.entity.text} as text))), 1, 200)`;
    const kind = f.entity.kind === undefined ? sql`` : sql` and document_entities.kind = ${f.entity.kind}`;
    out.push(
      sql<SqlBool>`${documentId} in (select document_entities.document_id from document_entities where document_entities.tenant_id = ${tenantId} and document_entities.value_key >= ${key} and document_entities.value_key < ${key} || ${MAX_CHAR}${kind})`,
    );
  }
  return out;
}
