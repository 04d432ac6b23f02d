import { expressionBuilder, type Insertable, type Selectable, sql } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { Executor } from '../../db/executor.ts';
import type { DB } from '../../db/schema.ts';
import type { DocumentVersionsTable } from './versions.tables.ts';

/** One version of a document's file (docs/versions.md). */
export interface DocumentVersion {
  id: string;
  tenantId: string;
  documentId: string;
  number: number;
  storageKey: string;
  /** The uploaded file's own name. */
  filename: string;
  extension: string;
  fileType: string;
  fileSize: number;
  sha256: string;
  current: boolean;
  /** The uploading user; null with an API key. */
  createdBy: string | null;
  createdAt: number;
}

export function toDocumentVersion(row: Selectable<DocumentVersionsTable>): DocumentVersion {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    documentId: row.document_id,
    number: Number(row.number),
    storageKey: row.storage_key,
    filename: row.filename,
    extension: row.extension,
    fileType: row.file_type,
    fileSize: Number(row.file_size),
    sha256: row.sha256,
    current: Number(row.is_current) === 1,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
  };
}

const COLUMNS: ColumnMap<DocumentVersion, DocumentVersionsTable> = {
  id: 'id',
  tenantId: 'tenant_id',
  documentId: 'document_id',
  number: 'number',
  storageKey: 'storage_key',
  filename: 'filename',
  extension: 'extension',
  fileType: 'file_type',
  fileSize: 'file_size',
  sha256: 'sha256',
  current: ['is_current', (v) => (v ? 1 : 0)],
  createdBy: 'created_by',
  createdAt: 'created_at',
};

/**
 * Query fragment for the storage inventory: the stored files of the tenant's versions other than
 * the current one (the current one is the document's own row), in the shape of `storedFiles`,
 * each under its version id.
 */
export function storedVersionFiles(tenantId: string) {
  return expressionBuilder<DB, never>()
    .selectFrom('document_versions')
    .select([
      'document_versions.id as document_id',
      'document_versions.tenant_id',
      'document_versions.storage_key',
      sql<string | null>`null`.as('thumbnail_key'),
      'document_versions.file_size as size',
      'document_versions.sha256',
    ])
    .where('document_versions.tenant_id', '=', tenantId)
    .where('document_versions.is_current', '=', 0);
}

/** SQL of document versions; every query takes the tenant. */
export class DocumentVersionsRepository {
  async insert(db: Executor, version: DocumentVersion): Promise<void> {
    await db
      .insertInto('document_versions')
      .values(columnsOf(COLUMNS, version) as Insertable<DocumentVersionsTable>)
      .execute();
  }

  /** The document's versions, oldest first; empty while it has only its first. */
  async list(db: Executor, tenantId: string, documentId: string): Promise<DocumentVersion[]> {
    const rows = await db
      .selectFrom('document_versions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .orderBy('number')
      .execute();
    return rows.map(toDocumentVersion);
  }

  async findByNumber(
    db: Executor,
    tenantId: string,
    documentId: string,
    number: number,
  ): Promise<DocumentVersion | null> {
    const row = await db
      .selectFrom('document_versions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .where('number', '=', number)
      .executeTakeFirst();
    return row ? toDocumentVersion(row) : null;
  }

  /** Makes version `number` the document's only current one. */
  async setCurrent(db: Executor, tenantId: string, documentId: string, number: number): Promise<void> {
    await db
      .updateTable('document_versions')
      .set({ is_current: sql<number>`case when number = ${number} then 1 else 0 end` })
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .where((eb) => eb.or([eb('is_current', '=', 1), eb('number', '=', number)]))
      .execute();
  }

  /** The number of each document's current version (documents without version rows are at 1, and absent). */
  async currentNumbers(db: Executor, tenantId: string, documentIds: readonly string[]): Promise<Map<string, number>> {
    if (documentIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('document_versions')
      .select(['document_id', 'number'])
      .where('tenant_id', '=', tenantId)
      .where('document_id', 'in', documentIds)
      .where('is_current', '=', 1)
      .execute();
    return new Map(rows.map((r) => [r.document_id, Number(r.number)]));
  }

  /** The blob keys of the documents' versions other than their current one (removal). */
  async otherKeys(db: Executor, tenantId: string, documentIds: readonly string[]): Promise<string[]> {
    if (documentIds.length === 0) return [];
    const rows = await db
      .selectFrom('document_versions')
      .select('storage_key')
      .where('tenant_id', '=', tenantId)
      .where('document_id', 'in', documentIds)
      .where('is_current', '=', 0)
      .execute();
    return rows.map((r) => r.storage_key);
  }

  /** Whether a version is stored under this id (the orphan guard of a version upload). */
  async exists(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const row = await db
      .selectFrom('document_versions')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }
}
