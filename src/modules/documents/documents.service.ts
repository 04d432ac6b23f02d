import type { Readable } from 'node:stream';
import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import type { BlobStore, ByteRange } from '../../providers/blobs/blob-store.ts';
import { fileTypeFilter, nameTypeProblem } from '../../providers/files/file-types.ts';
import { acceptFilename } from '../../providers/files/filenames.ts';
import { visibilityScope } from './access/access.repository.ts';
import { authorizeDocument } from './access/document-access.ts';
import { readTextContent } from './document-content.ts';
import type { DocumentHooks } from './document-hooks.ts';
import { removeDocuments } from './document-removal.ts';
import { documentTransitions } from './document-status.ts';
import type {
  Document,
  DocumentListFilter,
  DocumentPatch,
  DocumentProgress,
  DocumentSort,
  DocumentsRepository,
} from './documents.repository.ts';
import type { FoldersRepository } from './folders/folders.repository.ts';
import type { LegalHoldGuard } from './legal-hold-guard.ts';
import type { TagsRepository } from './tags/tags.repository.ts';
import { normaliseTagNames, type TagsService } from './tags/tags.service.ts';

export interface DocumentWithTags {
  document: Document;
  /** Names of its manual tags. */
  tags: string[];
  /** Where its processing is, while `status` is `processing` (null: waiting for its first step); absent otherwise. */
  progress?: DocumentProgress | null;
}

export interface ListDocumentsInput {
  page: number;
  limit: number;
  folderId?: string;
  tagId?: string;
  /** Comma-separated tag ids (`tag_ids`), matched as `tagMatch` says with `tagId`. */
  tagIds?: string;
  tagMatch?: 'all' | 'any';
  entity?: string;
  entityType?: EntityType;
  /** Comma-separated states. */
  status?: string;
  aiStatus?: string;
  search?: string;
  sort: DocumentSort;
  order: 'asc' | 'desc';
  fileType?: string;
  dateStart?: string;
  dateEnd?: string;
}

/** `entity_type` values, and the `entities` list each names. */
export const ENTITY_KINDS = {
  person: 'people',
  organization: 'organizations',
  date: 'dates',
  location: 'locations',
  amount: 'amounts',
} as const;
export type EntityType = keyof typeof ENTITY_KINDS;
export const DOCUMENT_STATUSES = ['processing', 'completed', 'failed'] as const;
export const AI_STATUSES = ['queued', 'processing', 'completed', 'failed', 'skipped'] as const;
/** The most tag ids one list may filter by. */
export const MAX_TAG_FILTER = 20;

/** A comma-separated list's distinct non-empty items; each one of `allowed` when given, else 400 naming `field`. */
function listParam(field: string, value: string, allowed?: readonly string[]): string[] {
  const items = [
    ...new Set(
      value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    ),
  ];
  if (items.length === 0) throw errors.field(field, 'must name at least one value');
  const unknown = allowed ? items.filter((v) => !allowed.includes(v)) : [];
  if (unknown.length > 0) throw errors.field(field, `must be among ${allowed?.join(', ')} (got ${unknown.join(', ')})`);
  return items;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** An ISO 8601 date or date-time as epoch ms; a bare date as the end of that day when `endOfDay`. */
function parseDate(field: string, value: string, endOfDay: boolean): number {
  const ms = Date.parse(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  if (!Number.isFinite(ms) || !/^\d{4}-\d{2}-\d{2}/.test(value))
    throw errors.field(field, 'must be an ISO 8601 date or date-time');
  return endOfDay && DATE_ONLY.test(value) ? ms + DAY_MS - 1 : ms;
}

/** Reading, listing, changing and deleting documents; every call goes through the access module. */
export class DocumentsService {
  private readonly deps: {
    database: Database;
    clock: Clock;
    jobs: JobQueue;
    blobs: BlobStore;
    events: EventLog;
    documents: DocumentsRepository;
    folders: FoldersRepository;
    tags: TagsRepository;
    tagsService: TagsService;
    hooks: DocumentHooks;
    guard: LegalHoldGuard;
  };
  constructor(deps: DocumentsService['deps']) {
    this.deps = deps;
  }

  async get(auth: AuthContext, id: string): Promise<DocumentWithTags> {
    const { document } = await authorizeDocument(this.deps.database.db, auth, id, 'read');
    return this.#withTags(auth.tenant.id, document);
  }

  async list(auth: AuthContext, input: ListDocumentsInput): Promise<{ items: DocumentWithTags[]; total: number }> {
    const { database, documents, tags } = this.deps;
    const tenantId = auth.tenant.id;
    const filter: DocumentListFilter = { scope: visibilityScope(auth) };
    if (input.folderId !== undefined) filter.folderId = input.folderId === 'root' ? null : input.folderId;
    const tagIds = [
      ...new Set([
        ...(input.tagId !== undefined ? [input.tagId] : []),
        ...(input.tagIds !== undefined ? listParam('tag_ids', input.tagIds) : []),
      ]),
    ];
    if (tagIds.length > MAX_TAG_FILTER) throw errors.field('tag_ids', `may name at most ${MAX_TAG_FILTER} tags`);
    if (tagIds.length > 0) filter.tags = { ids: tagIds, match: input.tagMatch ?? 'all' };
    if (input.entity !== undefined) {
      const text = input.entity.trim();
      if (text === '') throw errors.field('entity', 'must not be blank');
      filter.entity = { text, ...(input.entityType ? { kind: ENTITY_KINDS[input.entityType] } : {}) };
    } else if (input.entityType !== undefined) throw errors.field('entity_type', 'needs `entity`');
    if (input.status !== undefined) filter.statuses = listParam('status', input.status, DOCUMENT_STATUSES);
    if (input.aiStatus !== undefined) filter.aiStatuses = listParam('ai_status', input.aiStatus, AI_STATUSES);
    if (input.search?.trim()) filter.search = input.search.trim();
    if (input.fileType !== undefined) Object.assign(filter, fileTypeFilter(input.fileType));
    if (input.dateStart !== undefined) filter.createdFrom = parseDate('date_start', input.dateStart, false);
    if (input.dateEnd !== undefined) filter.createdTo = parseDate('date_end', input.dateEnd, true);
    const page = { sort: input.sort, order: input.order, limit: input.limit, offset: (input.page - 1) * input.limit };
    const [found, total] = await Promise.all([
      documents.list(database.db, tenantId, filter, page),
      documents.count(database.db, tenantId, filter),
    ]);
    const [names, progress] = await Promise.all([
      tags.namesByDocument(
        database.db,
        tenantId,
        found.map((d) => d.id),
      ),
      this.#progressOf(tenantId, found),
    ]);
    return {
      items: found.map((document) => ({
        document,
        tags: names.get(document.id) ?? [],
        ...(document.status === 'processing' ? { progress: progress.get(document.id) ?? null } : {}),
      })),
      total,
    };
  }

  /** Partial update: rename, move (folder must exist; null = top level), replace tags. */
  async update(
    auth: AuthContext,
    id: string,
    patch: { filename?: string; folderId?: string | null; tags?: string[] },
  ): Promise<DocumentWithTags> {
    const { database, clock, documents, folders, tagsService } = this.deps;
    const tenantId = auth.tenant.id;
    const newName = patch.filename === undefined ? undefined : acceptFilename(patch.filename);
    const tagNames = patch.tags === undefined ? undefined : normaliseTagNames(patch.tags);
    await database.db.transaction().execute(async (trx) => {
      const { document } = await authorizeDocument(trx, auth, id, 'update');
      const nameProblem = newName === undefined ? null : nameTypeProblem(newName, document.fileType);
      if (nameProblem) throw errors.field('filename', nameProblem);
      if (patch.folderId && !(await folders.exists(trx, tenantId, patch.folderId)))
        throw errors.notFound('folder', patch.folderId);
      if (patch.folderId !== undefined && patch.folderId !== document.folderId)
        await this.deps.guard.assertMovable(trx, tenantId, { documentId: id }, patch.folderId);
      const now = clock.now();
      const changed: string[] = [];
      if (tagNames !== undefined) {
        const before = (await this.deps.tags.namesByDocument(trx, tenantId, [id])).get(id) ?? [];
        const tagIds = await tagsService.resolveNames(trx, tenantId, tagNames, now);
        await this.deps.tags.setDocumentTags(trx, tenantId, id, tagIds, now);
        if (!sameNames(before, tagNames)) changed.push('tags');
      }
      const filename = newName ?? document.filename;
      const folderId = patch.folderId !== undefined ? patch.folderId : document.folderId;
      if (filename !== document.filename) changed.push('filename');
      if (folderId !== document.folderId) changed.push('folder_id');
      await documents.update(trx, tenantId, id, {
        ...(newName !== undefined ? { filename } : {}),
        ...(patch.folderId !== undefined ? { folderId } : {}),
        updatedAt: now,
      });
      await this.#recordUpdated(trx, tenantId, id, changed, { filename, folderId, at: now });
    });
    return this.get(auth, id);
  }

  /** Removes the row (tags, shares, text go with it) and enqueues the blob removal in the same transaction. */
  async delete(auth: AuthContext, id: string): Promise<void> {
    const { database, documents, jobs } = this.deps;
    await database.db.transaction().execute(async (trx) => {
      const { document } = await authorizeDocument(trx, auth, id, 'delete');
      await this.deps.guard.assertDeletable(trx, auth.tenant.id, { documentIds: [id] });
      await removeDocuments(trx, { documents, jobs }, auth.tenant.id, [document]);
    });
  }

  /**
   * The extracted text; for plain text formats not yet processed, the text itself. With `page`
   * (1-based), only that page's text, for formats that have pages (PDF pages, slides, sheets).
   */
  async content(
    auth: AuthContext,
    id: string,
    page?: number,
  ): Promise<{ content: string; pages: number | null; page?: number }> {
    const { database, documents, blobs } = this.deps;
    const { document } = await authorizeDocument(database.db, auth, id, 'read');
    const stored = await documents.findContent(database.db, auth.tenant.id, id);
    const pages = stored?.pages ?? null;
    if (page !== undefined) {
      if (pages === null) throw errors.field('page', 'this document has no pages');
      if (page > pages.length) throw errors.field('page', `must be at most ${pages.length}`);
      return { content: pages[page - 1]!, pages: pages.length, page };
    }
    if (stored) return { content: stored.text, pages: pages?.length ?? null };
    const text = await readTextContent(blobs, document);
    return { content: text ?? '', pages: null };
  }

  /**
   * Runs extraction and AI again (202): the document goes back to `processing` and its AI state to
   * `queued` (or `skipped` when it was uploaded without AI). A reprocess already waiting is not doubled.
   */
  async reprocess(auth: AuthContext, id: string): Promise<Document> {
    const { database, clock, documents, hooks } = this.deps;
    return database.db.transaction().execute(async (trx) => {
      const { document } = await authorizeDocument(trx, auth, id, 'update');
      const patch = {
        ...documentTransitions.queued(document.enableAi),
        updatedAt: clock.now(),
      } satisfies DocumentPatch;
      await documents.update(trx, auth.tenant.id, id, patch);
      const queued = { ...document, ...patch };
      await hooks.stored(trx, [queued], 'reprocess');
      return queued;
    });
  }

  /** Turns the document's AI tags into real tags (created on first use), keeping the tags it has. */
  async applyAiTags(auth: AuthContext, id: string): Promise<string[]> {
    const { database, clock, tags, tagsService, documents } = this.deps;
    return database.db.transaction().execute(async (trx) => {
      const { document } = await authorizeDocument(trx, auth, id, 'update');
      const aiTags = normaliseTagNames(document.aiTags);
      if (aiTags.length === 0) return [];
      const now = clock.now();
      const current = (await tags.namesByDocument(trx, auth.tenant.id, [id])).get(id) ?? [];
      const have = new Set(current.map((n) => n.toLowerCase()));
      const applied = aiTags.filter((t) => !have.has(t.toLowerCase()));
      const tagIds = await tagsService.resolveNames(trx, auth.tenant.id, [...current, ...applied], now);
      await tags.setDocumentTags(trx, auth.tenant.id, id, tagIds, now);
      await documents.update(trx, auth.tenant.id, id, { updatedAt: now });
      await this.#recordUpdated(trx, auth.tenant.id, id, applied.length > 0 ? ['tags'] : [], {
        filename: document.filename,
        folderId: document.folderId,
        at: now,
      });
      return applied;
    });
  }

  /**
   * Changes made for the tenant by another module (an import agent's approved proposal), in the
   * caller's transaction: tags added (the document's own stay), metadata keys merged, the summary
   * replaced. Answers the fields that changed, or null when the document is gone.
   */
  async annotate(
    trx: Executor,
    tenantId: string,
    id: string,
    change: { addTags?: string[]; metadata?: Record<string, unknown>; summary?: string },
  ): Promise<string[] | null> {
    const { clock, documents, tags, tagsService } = this.deps;
    const document = await documents.findById(trx, tenantId, id);
    if (!document) return null;
    const now = clock.now();
    const changed: string[] = [];
    const wanted = normaliseTagNames(change.addTags ?? []);
    if (wanted.length > 0) {
      const current = (await tags.namesByDocument(trx, tenantId, [id])).get(id) ?? [];
      const have = new Set(current.map((n) => n.toLowerCase()));
      const added = wanted.filter((t) => !have.has(t.toLowerCase()));
      if (added.length > 0) {
        await tags.setDocumentTags(
          trx,
          tenantId,
          id,
          await tagsService.resolveNames(trx, tenantId, [...current, ...added], now),
          now,
        );
        changed.push('tags');
      }
    }
    const patch: DocumentPatch = {};
    if (change.metadata && Object.keys(change.metadata).length > 0) {
      const before = document.metadata;
      const after = { ...before, ...change.metadata };
      if (JSON.stringify(after) !== JSON.stringify(before)) {
        patch.metadata = after;
        changed.push('metadata');
      }
    }
    if (change.summary !== undefined && change.summary !== document.aiSummary) {
      patch.aiSummary = change.summary;
      changed.push('summary');
    }
    if (changed.length === 0) return changed;
    await documents.update(trx, tenantId, id, { ...patch, updatedAt: now });
    await this.#recordUpdated(trx, tenantId, id, changed, {
      filename: document.filename,
      folderId: document.folderId,
      at: now,
    });
    return changed;
  }

  /** `document.updated` in the change's transaction, when something a trigger can watch changed. */
  async #recordUpdated(
    trx: Executor,
    tenantId: string,
    id: string,
    fields: string[],
    now: { filename: string; folderId: string | null; at: number },
  ): Promise<void> {
    if (fields.length === 0) return;
    await this.deps.events.record(trx, {
      tenantId,
      name: 'document.updated',
      at: now.at,
      data: { document_id: id, fields, filename: now.filename, folder_id: now.folderId },
    });
  }

  /** The document (for headers) and, unless only validators are needed, its bytes. */
  async authorizeRead(auth: AuthContext, id: string): Promise<Document> {
    return (await authorizeDocument(this.deps.database.db, auth, id, 'read')).document;
  }

  openBlob(key: string, range?: ByteRange): Promise<Readable> {
    return this.deps.blobs.get(key, range);
  }

  async #withTags(tenantId: string, document: Document): Promise<DocumentWithTags> {
    const [names, progress] = await Promise.all([
      this.deps.tags.namesByDocument(this.deps.database.db, tenantId, [document.id]),
      this.#progressOf(tenantId, [document]),
    ]);
    return {
      document,
      tags: names.get(document.id) ?? [],
      ...(document.status === 'processing' ? { progress: progress.get(document.id) ?? null } : {}),
    };
  }

  /** The progress of those documents being processed: no query when none is. */
  async #progressOf(tenantId: string, documents: Document[]): Promise<Map<string, DocumentProgress>> {
    const ids = documents.filter((d) => d.status === 'processing').map((d) => d.id);
    if (ids.length === 0) return new Map();
    return this.deps.documents.progressOf(this.deps.database.db, tenantId, ids);
  }
}

/** Whether two tag lists name the same tags (case-insensitive, any order). */
function sameNames(a: string[], b: string[]): boolean {
  const key = (names: string[]) => [...new Set(names.map((n) => n.toLowerCase()))].sort().join('\n');
  return key(a) === key(b);
}
