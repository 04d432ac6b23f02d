import type { Readable } from 'node:stream';
import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { lockTenant } from '../../db/locks.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { BlobStore, ByteRange } from '../../providers/blobs/blob-store.ts';
import { authorizeDocument } from './access/document-access.ts';
import type { DocumentHooks } from './document-hooks.ts';
import { DOCUMENT_JOBS, type DocumentJobPayload } from './document-job-kinds.ts';
import { documentTransitions } from './document-status.ts';
import type { DocumentFile, DocumentUploadsService } from './document-uploads.service.ts';
import type { DocumentVersion, DocumentVersionsRepository } from './document-versions.repository.ts';
import type { Document, DocumentPatch, DocumentsRepository } from './documents.repository.ts';
import type { MultipartSource } from './multipart-source.ts';
import type { UploadQuota } from './upload-quota.ts';

/** What a version upload did: a new current version (201), or none because the file is the current one (200). */
export interface VersionUpload {
  version: DocumentVersion;
  document: Document;
  created: boolean;
}

/** The fields a version upload takes besides `file`. */
const VERSION_FIELDS = new Set(['filename']);

interface Deps {
  database: Database;
  clock: Clock;
  jobs: JobQueue;
  blobs: BlobStore;
  events: EventLog;
  documents: DocumentsRepository;
  versions: DocumentVersionsRepository;
  uploads: DocumentUploadsService;
  quota: UploadQuota;
  hooks: DocumentHooks;
}

/**
 * Versions of a document (docs/versions.md). The document's row always describes its current
 * version, so downloads, thumbnails, processing, search and chat follow the current version with
 * no change of their own; this service keeps the others in `document_versions` and moves the
 * document's file fields when a version is added or restored, sending it back to processing in
 * the same transaction.
 *
 * Who may: listing and downloading versions takes read access to the document; uploading and
 * restoring take edit access (as renaming or reprocessing it does).
 */
export class DocumentVersionsService {
  readonly #deps: Deps;
  constructor(deps: Deps) {
    this.#deps = deps;
  }

  /** The document's versions, oldest first (one, synthesised from the document, until it has a second). */
  async list(auth: AuthContext, documentId: string): Promise<DocumentVersion[]> {
    const { database, versions } = this.#deps;
    const { document } = await authorizeDocument(database.db, auth, documentId, 'read');
    const rows = await versions.list(database.db, auth.tenant.id, documentId);
    return rows.length > 0 ? rows : [firstVersion(document)];
  }

  /** One version, for its download (read access). */
  async get(auth: AuthContext, documentId: string, number: number): Promise<DocumentVersion> {
    const { database } = this.#deps;
    const { document } = await authorizeDocument(database.db, auth, documentId, 'read');
    return this.#find(database.db, document, number);
  }

  openBlob(key: string, range?: ByteRange): Promise<Readable> {
    return this.#deps.blobs.get(key, range);
  }

  /**
   * Streams a new file into the document as its next version: the upload's intake (limits, type
   * checks, quota, Idempotency-Key fingerprint, orphan guard) with the document's edit access
   * checked before a byte is read. A file identical (SHA-256) to the current version adds nothing
   * and answers the current version.
   */
  async upload(
    auth: AuthContext,
    documentId: string,
    source: MultipartSource,
    onFingerprint?: (fingerprint: string) => void,
  ): Promise<VersionUpload> {
    const { database, uploads } = this.#deps;
    await authorizeDocument(database.db, auth, documentId, 'update');
    return uploads.receiveOne(auth, source, onFingerprint, {
      newDocument: false,
      reserve: () => uploads.reserveFile(auth),
      commit: async (file, fields, bag) => {
        for (const name of bag.names())
          if (!VERSION_FIELDS.has(name))
            throw errors.field(name, 'is not taken by a version upload (only `file` and `filename`)');
        const made = await this.#add(auth, documentId, file, fields.filename);
        return { value: made, discard: !made.created };
      },
    });
  }

  /** Makes version `number` current again (the same version, not a copy); processing follows. */
  async restore(
    auth: AuthContext,
    documentId: string,
    number: number,
  ): Promise<{ version: DocumentVersion; restored: boolean }> {
    const { database, clock, versions, events } = this.#deps;
    return database.db.transaction().execute(async (trx) => {
      await lockTenant(trx, database.dialect, auth.tenant.id);
      const { document } = await authorizeDocument(trx, auth, documentId, 'update');
      const version = await this.#find(trx, document, number);
      if (version.current) return { version, restored: false };
      const current = await this.#find(trx, document, await this.#currentNumber(trx, document));
      const now = clock.now();
      await versions.setCurrent(trx, auth.tenant.id, documentId, number);
      await this.#makeCurrent(trx, document, version, null, now);
      await events.record(trx, {
        tenantId: auth.tenant.id,
        name: 'document.version_restored',
        at: now,
        data: { ...versionEventData(version), previous_version: current.number },
      });
      return { version: { ...version, current: true }, restored: true };
    });
  }

  /** One transaction: quota re-check, version 1 recorded when this is the second, the new current version, the document's file fields, processing, event. */
  async #add(
    auth: AuthContext,
    documentId: string,
    file: DocumentFile,
    filename: string | null,
  ): Promise<VersionUpload> {
    const { database, clock, versions, documents, quota, events } = this.#deps;
    const tenantId = auth.tenant.id;
    return database.db.transaction().execute(async (trx) => {
      // Locks the tenant row on PostgreSQL: concurrent versions of one document take numbers in turn.
      await quota.assertFits(trx, auth, file.size, 0);
      const document = await documents.findById(trx, tenantId, documentId);
      if (!document) throw errors.notFound('document', documentId);
      const existing = await versions.list(trx, tenantId, documentId);
      const current = existing.find((v) => v.current) ?? firstVersion(document);
      if (file.sha256 === document.sha256) return { version: current, document, created: false };
      // Version 1 gets a row (and an id of its own) when the second arrives; its bytes stay under the document's key.
      if (existing.length === 0) await versions.insert(trx, { ...current, id: newId(clock.now()), current: false });
      else await versions.setCurrent(trx, tenantId, documentId, -1);
      const now = clock.now();
      const version: DocumentVersion = {
        id: file.documentId,
        tenantId,
        documentId,
        number: Math.max(current.number, ...existing.map((v) => v.number)) + 1,
        storageKey: file.key,
        filename: file.filename,
        extension: file.rule.extension,
        fileType: file.rule.mediaType,
        fileSize: file.size,
        sha256: file.sha256,
        current: true,
        createdBy: auth.userId,
        createdAt: now,
      };
      await versions.insert(trx, version);
      const updated = await this.#makeCurrent(trx, document, version, filename, now);
      await events.record(trx, {
        tenantId,
        name: 'document.version_created',
        at: now,
        data: versionEventData(version),
      });
      return { version, document: updated, created: true };
    });
  }

  /** The document's row takes the version's file, its thumbnail is rendered again and its processing starts over. */
  async #makeCurrent(
    trx: Executor,
    document: Document,
    version: DocumentVersion,
    filename: string | null,
    now: number,
  ): Promise<Document> {
    const { documents, jobs, hooks } = this.#deps;
    const patch = {
      filename: filename ?? nameFor(document, version),
      originalFilename: version.filename,
      extension: version.extension,
      fileType: version.fileType,
      fileSize: version.fileSize,
      sha256: version.sha256,
      storageKey: version.storageKey,
      // The type icon stands in until the new thumbnail is rendered (over the same key).
      thumbnailKey: null,
      thumbnailType: null,
      ...documentTransitions.queued(document.enableAi),
      updatedAt: now,
    } satisfies DocumentPatch;
    await documents.update(trx, document.tenantId, document.id, patch);
    const payload: DocumentJobPayload = { tenantId: document.tenantId, documentId: document.id };
    await jobs.enqueue(trx, DOCUMENT_JOBS.thumbnail, payload, { tenantId: document.tenantId, priority: 1 });
    const updated = { ...document, ...patch };
    // Extraction, AI enrichment and the search index start over on the new current file.
    await hooks.stored(trx, [updated], 'reprocess');
    return updated;
  }

  async #currentNumber(db: Executor, document: Document): Promise<number> {
    const numbers = await this.#deps.versions.currentNumbers(db, document.tenantId, [document.id]);
    return numbers.get(document.id) ?? 1;
  }

  async #find(db: Executor, document: Document, number: number): Promise<DocumentVersion> {
    const found = await this.#deps.versions.findByNumber(db, document.tenantId, document.id, number);
    if (found) return found;
    // Until a second version arrives, version 1 is the document itself.
    if (number === 1 && (await this.#deps.versions.list(db, document.tenantId, document.id)).length === 0)
      return firstVersion(document);
    throw errors.notFound('version', String(number));
  }
}

/** Version 1 of a document that has no version rows yet: its own file. */
function firstVersion(document: Document): DocumentVersion {
  return {
    // Not a row yet: it gets an id of its own when recorded; its bytes are the document's own.
    id: document.id,
    tenantId: document.tenantId,
    documentId: document.id,
    number: 1,
    storageKey: document.storageKey,
    filename: document.originalFilename,
    extension: document.extension,
    fileType: document.fileType,
    fileSize: document.fileSize,
    sha256: document.sha256,
    current: true,
    createdBy: document.ownerId,
    createdAt: document.createdAt,
  };
}

/** The document keeps its name unless the version is of another type: then the name takes the version's extension. */
function nameFor(document: Document, version: DocumentVersion): string {
  if (version.extension === document.extension) return document.filename;
  const base = document.filename.replace(/\.[^.]*$/, '');
  return `${base || 'document'}.${version.extension}`;
}

function versionEventData(v: DocumentVersion) {
  return {
    document_id: v.documentId,
    version: v.number,
    filename: v.filename,
    file_type: v.fileType,
    file_size: v.fileSize,
    sha256: v.sha256,
    created_by: v.createdBy,
  };
}
