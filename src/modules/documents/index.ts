import type { Expression, SqlBool } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { defineModule } from '../../platform/module.ts';
import { editableDocument } from './access/access.repository.ts';
import { authorizeDocument, type DocumentAction, mayEditDocument } from './access/document-access.ts';
import { BatchJobsRepository } from './batch-jobs/batch-jobs.repository.ts';
import { batchJobRoutes } from './batch-jobs/batch-jobs.routes.ts';
import { BatchJobsService } from './batch-jobs/batch-jobs.service.ts';
import { documentFileRoutes } from './document-files.routes.ts';
import { DocumentHooks, type StoredListener } from './document-hooks.ts';
import { DocumentQueries } from './document-queries.ts';
import { removeDocuments } from './document-removal.ts';
import { documentUploadRoutes } from './document-uploads.routes.ts';
import { DocumentUploadsService } from './document-uploads.service.ts';
import { DocumentVersionsRepository } from './document-versions.repository.ts';
import { documentVersionRoutes } from './document-versions.routes.ts';
import { DocumentVersionsService } from './document-versions.service.ts';
import { DOCUMENT_EVENTS } from './documents.events.ts';
import { documentJobDefinitions } from './documents.jobs.ts';
import {
  type Document,
  type DocumentPatch,
  DocumentsRepository,
  type ProgressUpdate,
  type StoredContent,
} from './documents.repository.ts';
import { documentRoutes } from './documents.routes.ts';
import { DocumentsService } from './documents.service.ts';
import { FoldersRepository } from './folders/folders.repository.ts';
import { folderRoutes } from './folders/folders.routes.ts';
import { FoldersService } from './folders/folders.service.ts';
import { LegalHoldGuard } from './legal-hold-guard.ts';
import { RetentionLibrary } from './retention-library.ts';
import { SharesRepository } from './shares/shares.repository.ts';
import { shareRoutes } from './shares/shares.routes.ts';
import { SharesService } from './shares/shares.service.ts';
import { type StoredFileSelection, StoredFilesRepository, storedFiles } from './stored-files.repository.ts';
import { TagsRepository } from './tags/tags.repository.ts';
import { tagRoutes } from './tags/tags.routes.ts';
import { TagsService } from './tags/tags.service.ts';
import { UploadQuota } from './upload-quota.ts';

/** The document pipeline's view of the library: the documents it advances and the text it stores. */
export interface DocumentPipelineStore {
  find(db: Executor, tenantId: string, id: string): Promise<Document | null>;
  update(db: Executor, tenantId: string, id: string, patch: DocumentPatch): Promise<void>;
  saveContent(
    db: Executor,
    content: { tenantId: string; documentId: string; text: string; pages: string[] | null; at: number },
  ): Promise<void>;
  findContent(db: Executor, tenantId: string, id: string): Promise<StoredContent | null>;
  /** The stage the document's processing is in; `pages` (read of total) replaces the pages known, absent keeps them. */
  saveProgress(db: Executor, row: ProgressUpdate): Promise<void>;
  /** Processing of the document ended (completed or failed). */
  clearProgress(db: Executor, tenantId: string, documentId: string): Promise<void>;
  /** The tenant's tag names, most used first (at most `limit`): enrichment prefers them. */
  tagNames(db: Executor, tenantId: string, limit: number): Promise<string[]>;
  /** The tags of these documents, by document id (untagged documents are absent). */
  tagsOf(db: Executor, tenantId: string, documentIds: string[]): Promise<Map<string, string[]>>;
  /** Tags on at least `minDocuments` documents, with their most recently tagged documents (at most `perTag`): learned tags' training set. */
  taggedDocuments(
    db: Executor,
    tenantId: string,
    minDocuments: number,
    perTag: number,
  ): Promise<{ tag: string; documentIds: string[] }[]>;
  /** Subscribes to documents stored by an upload or sent back by a reprocess, in their transaction (document-hooks.ts). */
  onStored(listener: StoredListener): void;
}

/** Who may see and change which document: for modules that act on one document (chat) or on tasks about one (AI review). */
export interface DocumentAccess {
  /** Loads a document of the caller's tenant: 404 when invisible to them, 403 when visible but `action` is not allowed. */
  authorize(
    db: Executor,
    auth: AuthContext,
    documentId: string,
    action: DocumentAction,
  ): Promise<{ document: Document }>;
  /** Whether the caller may change the document (false when it does not exist). */
  mayEdit(db: Executor, auth: AuthContext, documentId: string): Promise<boolean>;
  /** The same as SQL over a document id another query holds (the task inbox's `source_ref`). */
  editableCondition(auth: AuthContext): (documentId: Expression<string | null>) => Expression<SqlBool>;
}

/** The library's stored files, for the storage module's migrations between providers. */
export interface DocumentFiles {
  /** Whether the tenant still has the document (it may be deleted while its bytes are copied). */
  exists(db: Executor, tenantId: string, documentId: string): Promise<boolean>;
  /** Records which provider holds the bytes of the selected documents. */
  setProvider(db: Executor, tenantId: string, provider: string, which: StoredFileSelection): Promise<void>;
}

/** Which version of a document is current, for modules that name it (chat citations). */
export interface DocumentVersionNumbers {
  /** The current version's number of each document (1 for a document never given a new version). */
  currentNumbers(db: Executor, tenantId: string, documentIds: readonly string[]): Promise<Map<string, number>>;
}

/** Folder paths by id, for modules that show or match a document's location (workflow triggers). */
export interface FolderPaths {
  /** `/Invoices/2025`; `/` for the top level. */
  pathOf(db: Executor, tenantId: string, folderId: string | null): Promise<string>;
}

export type { StoredCause, StoredListener } from './document-hooks.ts';
export { DOCUMENT_JOBS, type DocumentJobPayload } from './document-job-kinds.ts';
export type { DocumentCondition, DocumentFilters, DocumentQueries, DocumentSummary } from './document-queries.ts';
export { isUnfiltered } from './document-queries.ts';
export { documentTransitions } from './document-status.ts';
export type { DocumentUploadsService, ImportOutcome } from './document-uploads.service.ts';
export { presentDocumentDetail } from './documents.presenter.ts';
export type {
  AiEnrichment,
  AiFieldValue,
  Document,
  DocumentEntities,
  DocumentPatch,
  ProcessingError,
  StoredContent,
} from './documents.repository.ts';
export type { DocumentsService } from './documents.service.ts';
export type { FoldersService } from './folders/folders.service.ts';
export type { DeletionScope, HoldChecker, HoldMatch, LegalHoldGuard } from './legal-hold-guard.ts';
export type { RetentionBasis, RetentionCandidate, RetentionLibrary } from './retention-library.ts';
export { normaliseTagNames } from './tags/tags.service.ts';
export type { StoredFileSelection };
// A query fragment for the storage inventory's one-statement insert (see stored-files.repository.ts).
export { storedFiles };

declare module '../../platform/module.ts' {
  interface ModuleServices {
    documentPipeline: DocumentPipelineStore;
    documentAccess: DocumentAccess;
    /** What a caller may find under some filters, for modules that rank documents in their own SQL (search). */
    documentQueries: DocumentQueries;
    documents: DocumentsService;
    uploads: DocumentUploadsService;
    folders: FoldersService;
    tags: TagsService;
    shares: SharesService;
    batchJobs: BatchJobsService;
    documentFiles: DocumentFiles;
    documentVersions: DocumentVersionNumbers;
    folderPaths: FolderPaths;
    /** The check every deletion path makes (documents, folders, versions, stored copies): 409 `legal_hold` under an active hold. */
    legalHoldGuard: LegalHoldGuard;
    /** Documents a retention rule has come due for, and their removal by the rule. */
    retentionLibrary: RetentionLibrary;
    /** A tenant's stored documents and bytes, from the counters the storage quota enforces (subscription status). */
    storageUsage: { usage(tenantId: string): Promise<{ documents: number; bytes: number }> };
  }
}

/** Sandbox documents are removed in batches of this many (their bytes go through the blob-deletion job). */
const SANDBOX_DOCUMENT_BATCH = 500;

/**
 * The document library: folders, documents (uploads, downloads, thumbnails), tags, shares and
 * batch uploads, with the document access rules they share (docs/architecture.md).
 *
 * Part of its write path is database triggers on its tables (src/db/schema.sqlite.sql,
 * src/db/schema.postgres.sql, `owner: documents`): `document_visibility_*` (who may see which
 * document), `documents_folder_count_*` and `tenant_document_counts_*` (counters the quotas read),
 * and `search_contents_*` (the search index, read by the search module).
 */
export const documentsModule = defineModule({
  name: 'documents',
  setup({ config, database, clock, jobs, blobs, events, use }) {
    const repositories = {
      folders: new FoldersRepository(),
      documents: new DocumentsRepository(),
      tags: new TagsRepository(),
      shares: new SharesRepository(),
      batchJobs: new BatchJobsRepository(),
    };
    const tags = new TagsService({ database, clock, tags: repositories.tags });
    const quota = new UploadQuota({ database, documents: repositories.documents });
    const hooks = new DocumentHooks();
    // The audit trail records each upload in the transaction that stores it (docs/audit.md).
    const audit = use('audit');
    hooks.onStored(async (trx, stored, cause) => {
      if (cause === 'upload')
        for (const d of stored)
          await audit.recordIn(trx, { tenantId: d.tenantId, action: 'document.upload', targetId: d.id });
    });
    const guard = new LegalHoldGuard();
    const documents = new DocumentsService({
      database,
      clock,
      jobs,
      blobs,
      events,
      ...repositories,
      tagsService: tags,
      hooks,
      guard,
    });
    const uploads = new DocumentUploadsService({
      database,
      clock,
      jobs,
      blobs,
      events,
      ...repositories,
      tagsService: tags,
      quota,
      hooks,
    });
    const folders = new FoldersService({
      database,
      clock,
      jobs,
      folders: repositories.folders,
      documents: repositories.documents,
      guard,
    });
    const shares = new SharesService({ database, clock, shares: repositories.shares, members: use('members') });
    const batchJobs = new BatchJobsService({ database, batchJobs: repositories.batchJobs });
    const versionRows = new DocumentVersionsRepository();
    const versions = new DocumentVersionsService({
      database,
      clock,
      jobs,
      blobs,
      events,
      documents: repositories.documents,
      versions: versionRows,
      uploads,
      quota,
      hooks,
    });
    const storageUsage = { usage: (tenantId: string) => repositories.documents.usage(database.db, tenantId) };
    use('tenants').addUsage(async (tenantId) => {
      const stored = await storageUsage.usage(tenantId);
      return { documents: stored.documents, storage_bytes: stored.bytes };
    });
    return {
      eventSchemas: DOCUMENT_EVENTS,
      provides: {
        documents,
        uploads,
        folders,
        tags,
        shares,
        batchJobs,
        storageUsage,
        documentFiles: new StoredFilesRepository(),
        legalHoldGuard: guard,
        retentionLibrary: new RetentionLibrary({ documents: repositories.documents, jobs, guard }),
        documentVersions: {
          async currentNumbers(db, tenantId, documentIds) {
            const found = await versionRows.currentNumbers(db, tenantId, documentIds);
            return new Map(documentIds.map((id) => [id, found.get(id) ?? 1]));
          },
        },
        folderPaths: { pathOf: (db, tenantId, folderId) => repositories.folders.pathOf(db, tenantId, folderId) },
        documentAccess: { authorize: authorizeDocument, mayEdit: mayEditDocument, editableCondition: editableDocument },
        documentQueries: new DocumentQueries(database.dialect),
        documentPipeline: {
          find: (db, tenantId, id) => repositories.documents.findById(db, tenantId, id),
          update: (db, tenantId, id, patch) => repositories.documents.update(db, tenantId, id, patch),
          saveContent: (db, content) => repositories.documents.saveContent(db, content),
          findContent: (db, tenantId, id) => repositories.documents.findContent(db, tenantId, id),
          saveProgress: (db, row) => repositories.documents.saveProgress(db, row),
          clearProgress: (db, tenantId, id) => repositories.documents.clearProgress(db, tenantId, id),
          tagNames: (db, tenantId, limit) => repositories.tags.namesByUse(db, tenantId, limit),
          tagsOf: (db, tenantId, documentIds) => repositories.tags.namesByDocument(db, tenantId, documentIds),
          taggedDocuments: (db, tenantId, minDocuments, perTag) =>
            repositories.tags.taggedDocuments(db, tenantId, minDocuments, perTag),
          onStored: (listener) => hooks.onStored(listener),
        },
      },
      async routes(app) {
        folderRoutes(app, { folders });
        documentRoutes(app, { documents, publicBaseUrl: config.http.publicBaseUrl });
        await documentUploadRoutes(app, { uploads });
        await documentVersionRoutes(app, { versions });
        documentFileRoutes(app, { documents });
        shareRoutes(app, { shares });
        tagRoutes(app, { tags });
        batchJobRoutes(app, { batchJobs });
      },
      jobs: documentJobDefinitions({ database, blobs, documents: repositories.documents }),
      async sandboxCleanup(trx, tenantId) {
        for (;;) {
          const batch = await repositories.documents.listStorageKeys(trx, tenantId, SANDBOX_DOCUMENT_BATCH);
          if (batch.length === 0) break;
          await removeDocuments(trx, { documents: repositories.documents, jobs }, tenantId, batch);
        }
        // One statement per table over the whole tenant: folders reference their parent, which both dialects accept.
        for (const table of ['batch_jobs', 'tags', 'folders'] as const)
          await trx.deleteFrom(table).where('tenant_id', '=', tenantId).execute();
      },
    };
  },
});
