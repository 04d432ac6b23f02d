import type { Readable } from 'node:stream';
import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { lockTenant } from '../../db/locks.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { MultipartFingerprintCollector } from '../../lib/multipart-fingerprint.ts';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import { nameTypeProblem } from '../../providers/files/file-types.ts';
import { sanitizeFilename } from '../../providers/files/filenames.ts';
import { assertMayCreate, permissionOn } from './access/document-access.ts';
import type { BatchJobsRepository, Rejection } from './batch-jobs/batch-jobs.repository.ts';
import type { DocumentHooks } from './document-hooks.ts';
import {
  type DeleteBlobsPayload,
  DOCUMENT_JOBS,
  type DocumentJobPayload,
  documentBlobKey,
  ORPHAN_GRACE_MS,
} from './document-job-kinds.ts';
import { documentTransitions } from './document-status.ts';
import type { Document, DocumentsRepository } from './documents.repository.ts';
import {
  hasUsableName,
  intakeFile,
  intakeUntyped,
  type StoredUpload,
  typeUntypedUpload,
  type UntypedUpload,
} from './file-intake.ts';
import type { FoldersRepository } from './folders/folders.repository.ts';
import type { MultipartSource, UploadPart } from './multipart-source.ts';
import type { TagsRepository } from './tags/tags.repository.ts';
import type { TagsService } from './tags/tags.service.ts';
import { FieldBag, type OnDuplicate, parseUploadFields, type UploadFields } from './upload-fields.ts';
import type { UploadQuota } from './upload-quota.ts';

/** A file part with no usable name and no `filename` field: 400 without any name, 415 for a name without a type. */
function refuseUnnamed(partFilename: string): never {
  const name = sanitizeFilename(partFilename);
  if (!name)
    throw errors.field('file', 'must have a file name: name the part, or send the name in the `filename` field');
  throw errors.invalidFileType(
    `"${name}" has no file extension: name the file, or send its name in the \`filename\` field`,
    { filename: name },
  );
}

/** docs/api-decisions.md §6 / spec Limits: a batch holds at most this many files. */
export const MAX_BATCH_FILES = 10;
/** Room for multipart boundaries and fields when judging a declared body size against the quota. */
const MULTIPART_OVERHEAD_ALLOWANCE = 64 * 1024;

/** The file fields each upload accepts, and what a part of another name is told. */
const SINGLE_FILE_FIELDS = { fields: ['file'], hint: 'is not a known field; send the file as `file`' } as const;
const BATCH_FILE_FIELDS = {
  fields: ['files', 'files[]'],
  hint: 'is not a known field; send files as `files[]` or `files`',
} as const;

/** What an imported file became: a new document, or nothing because the tenant already holds its content. */
export type ImportOutcome = { document: Document; duplicateOf: null } | { document: null; duplicateOf: string };

/** A batch upload: the documents it made and the files it refused. */
export interface BatchUpload {
  collectionId: string;
  batchJobId: string;
  documents: Document[];
  rejected: Rejection[];
  /** Each made document identical to one the caller can see: its id → that document's id. */
  duplicateOf: Map<string, string>;
  /** With `on_duplicate=skip`: the files not stored, each with the document it duplicates; null when not asked. */
  skipped: { filename: string; duplicateOf: string }[] | null;
}

/** A single upload: the document made (`created`), or with `on_duplicate=skip` the existing one it duplicates. */
export interface SingleUpload {
  document: Document;
  created: boolean;
  /** A document the caller can see with the same content (SHA-256), if any. */
  duplicateOf: string | null;
}

/** What recording stored files did (`#record`). */
interface Recorded {
  documents: Document[];
  duplicateOf: Map<string, string>;
  /** Files not stored (`on_duplicate=skip`), with the document they duplicate. */
  skipped: { file: DocumentFile; existing: { id: string; document: Document | null } }[];
}

/** How many documents with one SHA-256 are looked at to find one the caller can see. */
const DUPLICATE_CANDIDATES = 50;

/** A file stored for a new document: the id it was stored under travels with it. */
export type DocumentFile = StoredUpload & { documentId: string };

/** A file part of an upload, as the one loop over parts hands it on. */
type FilePart = Extract<UploadPart, { type: 'file' }>;

/** The fields of an upload's body, read by the one loop over its parts (`#readParts`). */
interface ReadParts {
  bag: FieldBag;
  /** The request fingerprint (idempotency), the same function a repeat under its key is compared with. */
  fingerprint: MultipartFingerprintCollector;
}

interface Deps {
  database: Database;
  events: EventLog;
  clock: Clock;
  jobs: JobQueue;
  blobs: BlobStore;
  documents: DocumentsRepository;
  folders: FoldersRepository;
  tags: TagsRepository;
  tagsService: TagsService;
  batchJobs: BatchJobsRepository;
  quota: UploadQuota;
  hooks: DocumentHooks;
}

/**
 * Uploads, streamed end to end: each file goes straight into the blob store (type checked by
 * extension and content, size and quota enforced as bytes pass), then one transaction records the
 * documents, their processing jobs and `document.uploaded` events. Whatever fails before the commit
 * removes the stored bytes, so a refused or broken upload leaves nothing behind.
 */
export class DocumentUploadsService {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  /** `options.onDuplicate`: the query parameter; an `on_duplicate` field overrides it. */
  async upload(
    auth: AuthContext,
    source: MultipartSource,
    onFingerprint?: (fingerprint: string) => void,
    options: { onDuplicate?: OnDuplicate } = {},
  ): Promise<SingleUpload> {
    assertMayCreate(auth);
    return this.receiveOne<SingleUpload>(auth, source, onFingerprint, {
      newDocument: true,
      reserve: () => this.#reserve(auth, this.deps.clock.now()),
      commit: async (file, fields) => {
        const recorded = await this.#record(
          auth,
          [file],
          { ...fields, onDuplicate: fields.onDuplicate ?? options.onDuplicate ?? null },
          null,
        );
        const made = recorded.documents[0];
        if (made)
          return { value: { document: made, created: true, duplicateOf: recorded.duplicateOf.get(made.id) ?? null } };
        const existing = recorded.skipped[0]!.existing.document!;
        return { value: { document: existing, created: false, duplicateOf: existing.id }, discard: true };
      },
    });
  }

  /**
   * The intake of a one-file upload (a document, or a new version of one): quota room, the one
   * loop over parts, the file streamed under the id `target.reserve` guards, a part without a
   * usable name typed by the `filename` field, the fingerprint declared; then `target.commit`
   * records it. Whatever fails, or a commit that answers `discard`, removes the stored bytes.
   */
  async receiveOne<T>(
    auth: AuthContext,
    source: MultipartSource,
    onFingerprint: ((fingerprint: string) => void) | undefined,
    target: {
      /** Whether the file becomes a new document (the sandbox's document limit applies). */
      newDocument: boolean;
      reserve: () => Promise<{ documentId: string; key: string }>;
      commit: (file: DocumentFile, fields: UploadFields, bag: FieldBag) => Promise<{ value: T; discard?: boolean }>;
    },
  ): Promise<T> {
    const { quota, blobs } = this.deps;
    const declaredFile =
      source.contentLength === null ? 0 : Math.max(0, source.contentLength - MULTIPART_OVERHEAD_ALLOWANCE);
    const room = target.newDocument
      ? await quota.assertRoom(auth, declaredFile)
      : await quota.assertBytes(auth, declaredFile);
    const stored: DocumentFile[] = [];
    // A part without a usable name (a Blob) waits here, stored, for the `filename` field to type it.
    // (Assigned inside the part callback, which the compiler's narrowing does not follow.)
    let untyped = null as { upload: UntypedUpload; partFilename: string; documentId: string } | null;
    try {
      const { bag, fingerprint } = await this.#readParts(source, SINGLE_FILE_FIELDS, async (part, bag) => {
        if (stored.length > 0 || untyped)
          throw errors.field('file', 'only one file per upload; use upload-batch for several');
        const { documentId, key } = await target.reserve();
        const named = hasUsableName(part.filename) ? part.filename : bag.one('filename')?.trim() || null;
        if (named === null) {
          const upload = await intakeUntyped(blobs, part, {
            key,
            quotaBytes: room.bytes,
            quotaError: () => quota.storageFull(auth),
          });
          untyped = { upload, partFilename: part.filename, documentId };
          return upload.sha256;
        }
        const result = await intakeFile(
          blobs,
          { filename: named, file: part.file },
          {
            key,
            quotaBytes: room.bytes,
            quotaError: () => quota.storageFull(auth),
            drainRefused: false,
          },
        );
        if (!result.ok) throw result.error;
        stored.push({ ...result.file, documentId });
        return result.file.sha256;
      });
      if (stored.length === 0 && !untyped) throw errors.field('file', 'is required');
      const fields = parseUploadFields(bag, { allowFilename: true });
      onFingerprint?.(fingerprint.digest());
      // Typed by the field, or refused as any unnamed file is; either way it is discarded on failure below.
      if (untyped) {
        const typed = await typeUntypedUpload(untyped.upload, fields.filename ?? refuseUnnamed(untyped.partFilename));
        stored.push({ ...typed, documentId: untyped.documentId });
      }
      const file = stored[0]!;
      const nameProblem = fields.filename === null ? null : nameTypeProblem(fields.filename, file.rule.mediaType);
      // docs/api-decisions.md §9: a file named as a type its bytes are not is 415, whichever field names it.
      if (nameProblem)
        throw errors.invalidFileType(`filename ${nameProblem}`, { filename: fields.filename, field: 'filename' });
      const committed = await target.commit(file, fields, bag);
      if (committed.discard) await this.#discard([file]);
      return committed.value;
    } catch (error) {
      await this.#discard(
        untyped && !stored.some((f) => f.key === untyped?.upload.key) ? [...stored, untyped.upload] : stored,
      );
      throw error;
    }
  }

  async uploadBatch(
    auth: AuthContext,
    source: MultipartSource,
    onFingerprint?: (fingerprint: string) => void,
    options: { onDuplicate?: OnDuplicate } = {},
  ): Promise<BatchUpload> {
    assertMayCreate(auth);
    const { quota, blobs, batchJobs, clock } = this.deps;
    let room = await quota.assertRoom(auth, 0);
    const stored: DocumentFile[] = [];
    const rejected: { rejection: Rejection; error: AppError }[] = [];
    let files = 0;
    try {
      const { bag, fingerprint } = await this.#readParts(source, BATCH_FILE_FIELDS, async (part) => {
        files += 1;
        if (files > MAX_BATCH_FILES) throw errors.field('files', `a batch holds at most ${MAX_BATCH_FILES} files`);
        const { documentId, key } = await this.#reserve(auth, clock.now());
        const sandboxFull = room.documents !== null && room.documents <= 0;
        const result = await intakeFile(blobs, part, {
          key,
          quotaBytes: sandboxFull ? 0 : room.bytes,
          quotaError: () => (sandboxFull ? quota.sandboxFull(auth) : quota.storageFull(auth)),
          drainRefused: true,
        });
        if (!result.ok) {
          const e = result.error;
          rejected.push({
            rejection: { filename: result.filename, error: e.error, code: e.code, message: e.message },
            error: e,
          });
          return result.sha256 ?? '';
        }
        stored.push({ ...result.file, documentId });
        room = {
          bytes: room.bytes === null ? null : room.bytes - result.file.size,
          documents: room.documents === null ? null : room.documents - 1,
        };
        return result.file.sha256;
      });
      if (files === 0) throw errors.field('files', 'at least one file is required');
      const parsed = parseUploadFields(bag, { allowFilename: false });
      const fields = { ...parsed, onDuplicate: parsed.onDuplicate ?? options.onDuplicate ?? null };
      onFingerprint?.(fingerprint.digest());
      const rejections = rejected.map((r) => r.rejection);
      if (stored.length === 0) {
        const first = rejected[0]!.error;
        throw new AppError(first.status, first.error, first.message, {
          details: { ...first.details, rejected: rejections },
        });
      }
      const collectionId = newId(clock.now());
      const batchJobId = newId(clock.now());
      const recorded = await this.#record(auth, stored, fields, collectionId, async (trx) => {
        await batchJobs.insert(trx, {
          id: batchJobId,
          tenantId: auth.tenant.id,
          collectionId,
          createdBy: auth.userId,
          total: files,
          rejected: rejections,
          createdAt: clock.now(),
        });
      });
      // Files skipped as duplicates were not recorded: their bytes go.
      await this.#discard(recorded.skipped.map((s) => s.file));
      return {
        collectionId,
        batchJobId,
        documents: recorded.documents,
        rejected: rejections,
        duplicateOf: recorded.duplicateOf,
        skipped:
          fields.onDuplicate === 'skip'
            ? recorded.skipped.map((s) => ({ filename: s.file.filename, duplicateOf: s.existing.id }))
            : null,
      };
    } catch (error) {
      await this.#discard(stored);
      throw error;
    }
  }

  /**
   * A file another module brings (imports), stored exactly as an upload: streamed into the blob
   * store with the same type, size and quota checks, then recorded with its processing jobs and
   * `document.uploaded` event. With `skipDuplicates`, a file whose SHA-256 the tenant already holds
   * is not recorded. `commit` runs inside the recording transaction, so the caller's bookkeeping
   * (and its job's completion) commits together with the document, or not at all.
   */
  async importFile(
    auth: AuthContext,
    file: { filename: string; stream: Readable },
    options: {
      folderId: string | null;
      enableAi: boolean;
      skipDuplicates: boolean;
      commit: (trx: Executor, outcome: ImportOutcome) => Promise<void>;
    },
  ): Promise<ImportOutcome> {
    const { quota, blobs, database, documents } = this.deps;
    const room = await quota.assertRoom(auth, 0);
    const { documentId, key } = await this.#reserve(auth, this.deps.clock.now());
    const result = await intakeFile(
      blobs,
      { filename: file.filename, file: file.stream },
      {
        key,
        quotaBytes: room.bytes,
        quotaError: () => quota.storageFull(auth),
        drainRefused: false,
      },
    );
    if (!result.ok) {
      file.stream.destroy();
      throw result.error;
    }
    const fields: UploadFields = {
      folderId: options.folderId,
      enableAi: options.enableAi,
      tags: [],
      filename: null,
      onDuplicate: null,
    };
    try {
      const outcome = await database.db.transaction().execute(async (trx): Promise<ImportOutcome> => {
        // The tenant lock (PostgreSQL) makes two imports of the same content in parallel see each other.
        if (options.skipDuplicates) await lockTenant(trx, database.dialect, auth.tenant.id);
        const existing = options.skipDuplicates
          ? await documents.findIdBySha256(trx, auth.tenant.id, result.file.sha256)
          : null;
        const done: ImportOutcome = existing
          ? { document: null, duplicateOf: existing }
          : {
              document: (await this.#insert(trx, auth, [{ ...result.file, documentId }], fields, null))[0]!,
              duplicateOf: null,
            };
        await options.commit(trx, done);
        return done;
      });
      if (outcome.document === null) await this.#discard([result.file]);
      return outcome;
    } catch (error) {
      await this.#discard([result.file]);
      throw error;
    }
  }

  /**
   * One transaction: duplicates found, quota re-check, rows, tags, the processing hook and events.
   * A file identical (SHA-256) to a document the caller can see, or to an earlier file of the same
   * request, is named with that document (`duplicateOf`); with `on_duplicate=skip` it is not stored.
   */
  async #record(
    auth: AuthContext,
    files: DocumentFile[],
    fields: UploadFields,
    collectionId: string | null,
    extra?: (trx: Executor) => Promise<void>,
  ): Promise<Recorded> {
    const { database } = this.deps;
    return database.db.transaction().execute(async (trx) => {
      const skip = fields.onDuplicate === 'skip';
      // The tenant lock (PostgreSQL) makes two identical uploads that skip duplicates see each other.
      if (skip) await lockTenant(trx, database.dialect, auth.tenant.id);
      const duplicateOf = new Map<string, string>();
      const skipped: Recorded['skipped'] = [];
      const kept: DocumentFile[] = [];
      for (const file of files) {
        const earlier = kept.find((k) => k.sha256 === file.sha256);
        const existing = earlier ? null : await this.#visibleDuplicate(trx, auth, file.sha256);
        const of = earlier
          ? { id: earlier.documentId, document: null }
          : existing
            ? { id: existing.id, document: existing }
            : null;
        if (of && skip) {
          skipped.push({ file, existing: of });
          continue;
        }
        if (of) duplicateOf.set(file.documentId, of.id);
        kept.push(file);
      }
      const documents = await this.#insert(trx, auth, kept, fields, collectionId);
      await extra?.(trx);
      return { documents, duplicateOf, skipped };
    });
  }

  /** The oldest document of the tenant with this content that the caller can see, if any. */
  async #visibleDuplicate(trx: Executor, auth: AuthContext, sha256: string): Promise<Document | null> {
    const candidates = await this.deps.documents.findBySha256(trx, auth.tenant.id, sha256, DUPLICATE_CANDIDATES);
    for (const candidate of candidates) if ((await permissionOn(trx, auth, candidate)) !== null) return candidate;
    return null;
  }

  /** Inside the caller's transaction: quota re-check, rows, tags, the processing hook and events. */
  async #insert(
    trx: Executor,
    auth: AuthContext,
    files: DocumentFile[],
    fields: UploadFields,
    collectionId: string | null,
  ): Promise<Document[]> {
    const { clock, jobs, documents, folders, tags, tagsService, quota } = this.deps;
    const tenantId = auth.tenant.id;
    if (fields.folderId !== null && !(await folders.exists(trx, tenantId, fields.folderId)))
      throw errors.notFound('folder', fields.folderId);
    await quota.assertFits(
      trx,
      auth,
      files.reduce((sum, f) => sum + f.size, 0),
      files.length,
    );
    const now = clock.now();
    const tagIds = await tagsService.resolveNames(trx, tenantId, fields.tags, now);
    const made: Document[] = [];
    for (const file of files) {
      const id = file.documentId;
      const filename = (files.length === 1 ? fields.filename : null) ?? file.filename;
      const document: Document = {
        id,
        tenantId,
        folderId: fields.folderId,
        ownerId: auth.userId,
        collectionId,
        filename,
        originalFilename: file.filename,
        extension: file.rule.extension,
        fileType: file.rule.mediaType,
        fileSize: file.size,
        sha256: file.sha256,
        storageKey: file.key,
        thumbnailKey: null,
        thumbnailType: null,
        ...documentTransitions.queued(fields.enableAi),
        enableAi: fields.enableAi,
        aiSummary: null,
        aiTags: [],
        entities: { people: [], organizations: [], dates: [] },
        aiDocumentType: null,
        aiEnrichment: null,
        metadata: {},
        createdAt: now,
        updatedAt: now,
      };
      await documents.insert(trx, document);
      await tags.setDocumentTags(trx, tenantId, id, tagIds, now);
      const payload: DocumentJobPayload = { tenantId, documentId: id };
      await jobs.enqueue(trx, DOCUMENT_JOBS.thumbnail, payload, { tenantId, priority: 1 });
      await this.deps.events.record(trx, {
        tenantId,
        name: 'document.uploaded',
        at: now,
        data: {
          document_id: id,
          filename,
          folder_id: document.folderId,
          file_type: document.fileType,
          file_size: document.fileSize,
          status: document.status,
          ai_status: document.aiStatus,
        },
      });
      made.push(document);
    }
    // Processing subscribes (its pipeline's first job, at the tenant's fair-share priority).
    await this.deps.hooks.stored(trx, made, 'upload');
    return made;
  }

  /** An id to store one file under (a document's or a version's), its orphan guard committed first (see `#reserve`). */
  reserveFile(auth: AuthContext): Promise<{ documentId: string; key: string }> {
    return this.#reserve(auth, this.deps.clock.now());
  }

  /**
   * A new document id, with its orphan guard committed before any byte is stored: if this process
   * dies between storing the file and committing its row, the guard removes the bytes later.
   */
  async #reserve(auth: AuthContext, now: number): Promise<{ documentId: string; key: string }> {
    const documentId = newId(now);
    const payload: DocumentJobPayload = { tenantId: auth.tenant.id, documentId };
    await this.deps.jobs.enqueue(this.deps.database.db, DOCUMENT_JOBS.collectOrphan, payload, {
      tenantId: auth.tenant.id,
      runAt: now + ORPHAN_GRACE_MS,
    });
    return { documentId, key: documentBlobKey(auth.tenant.id, documentId) };
  }

  /**
   * The one loop over an upload's parts (single and batch): text fields into the bag, each file
   * part of an accepted field to `onFile`, which stores (or refuses) it and returns the SHA-256
   * of its content; both feed the request fingerprint as they pass.
   */
  async #readParts(
    source: MultipartSource,
    accept: { fields: readonly string[]; hint: string },
    onFile: (part: FilePart, bag: FieldBag) => Promise<string>,
  ): Promise<ReadParts> {
    const bag = new FieldBag();
    const fingerprint = new MultipartFingerprintCollector();
    for await (const part of source.parts()) {
      if (part.type === 'field') {
        bag.add(part.fieldname, part.value);
        fingerprint.field(part.fieldname, part.value);
        continue;
      }
      if (!accept.fields.includes(part.fieldname)) throw errors.field(part.fieldname, accept.hint);
      fingerprint.file(part.fieldname, part.filename, await onFile(part, bag));
    }
    return { bag, fingerprint };
  }

  /** Removes bytes stored for an upload that did not commit. */
  async #discard(files: { key: string }[]): Promise<void> {
    const { blobs, jobs, database } = this.deps;
    const failed: string[] = [];
    await Promise.all(files.map((f) => blobs.delete(f.key).catch(() => failed.push(f.key))));
    // The store did not answer: leave the removal to a retried job rather than to luck.
    if (failed.length > 0) {
      const payload: DeleteBlobsPayload = { keys: failed };
      await jobs.enqueue(database.db, DOCUMENT_JOBS.deleteBlobs, payload).catch(() => {});
    }
  }
}
