import type { AliasableExpression, ExpressionBuilder } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../jobs/job-queue.ts';
import { removeDocuments } from './document-removal.ts';
import type { DocumentsRepository } from './documents.repository.ts';
import type { LegalHoldGuard } from './legal-hold-guard.ts';

/** A document a retention rule has come due for. */
export interface RetentionCandidate {
  id: string;
  filename: string;
  folderId: string | null;
  ownerId: string | null;
  /** The time the rule's basis counts from (epoch ms). */
  since: number;
}

/** What a rule counts its days from: the upload, or the current version. */
export type RetentionBasis = 'created' | 'last_version';

const MAX_DEPTH = 100;

/**
 * The library's side of retention rules (docs/records.md): the documents of a folder tree whose
 * time is up, page by page, and their removal by a rule, which the legal hold guard checks as it
 * checks every other deletion path.
 */
export class RetentionLibrary {
  readonly #deps: { documents: DocumentsRepository; jobs: JobQueue; guard: LegalHoldGuard };

  constructor(deps: { documents: DocumentsRepository; jobs: JobQueue; guard: LegalHoldGuard }) {
    this.#deps = deps;
  }

  /**
   * Documents in the folder or any folder below it whose basis time is before `before`, after
   * `afterId` in id order (the next page). `last_version` counts from the newest version's upload
   * (a document with one version has no version rows: its upload).
   */
  async due(
    db: Executor,
    tenantId: string,
    folderId: string,
    q: { basis: RetentionBasis; before: number; afterId: string; limit: number },
  ): Promise<RetentionCandidate[]> {
    const rows = await db
      .withRecursive('subtree(id, depth)', (qb) =>
        qb
          .selectFrom('folders')
          .select(['folders.id', (eb) => eb.lit(0).as('depth')])
          .where('folders.tenant_id', '=', tenantId)
          .where('folders.id', '=', folderId)
          .unionAll((u) =>
            u
              .selectFrom('folders')
              .innerJoin('subtree', 'subtree.id', 'folders.parent_id')
              .select(['folders.id', (eb) => eb(eb.ref('subtree.depth'), '+', eb.lit(1)).as('depth')])
              .where('folders.tenant_id', '=', tenantId)
              .where('subtree.depth', '<', MAX_DEPTH),
          ),
      )
      .selectFrom('documents')
      .innerJoin('subtree', 'subtree.id', 'documents.folder_id')
      .select(['documents.id', 'documents.filename', 'documents.folder_id', 'documents.owner_id'])
      .select((eb) => basisTime(eb, q.basis).as('since'))
      .where('documents.tenant_id', '=', tenantId)
      .where((eb) => eb(basisTime(eb, q.basis), '<', q.before))
      .where('documents.id', '>', q.afterId)
      .orderBy('documents.id')
      .limit(q.limit)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      filename: r.filename,
      folderId: r.folder_id,
      ownerId: r.owner_id,
      since: Number(r.since),
    }));
  }

  /** Whether the document is still there, and its basis time (a review decided later re-checks it). */
  async find(db: Executor, tenantId: string, id: string): Promise<RetentionCandidate | null> {
    const row = await db
      .selectFrom('documents')
      .select(['id', 'filename', 'folder_id', 'owner_id', 'created_at'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row
      ? {
          id: row.id,
          filename: row.filename,
          folderId: row.folder_id,
          ownerId: row.owner_id,
          since: Number(row.created_at),
        }
      : null;
  }

  /** Deletes documents for a rule, in the caller's transaction: 409 `legal_hold` if any is held (callers filter held ones first). */
  async remove(trx: Executor, tenantId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#deps.guard.assertDeletable(trx, tenantId, { documentIds: ids });
    const rows = await trx
      .selectFrom('documents')
      .select(['id', 'storage_key'])
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .execute();
    await removeDocuments(
      trx,
      this.#deps,
      tenantId,
      rows.map((r) => ({ id: r.id, storageKey: r.storage_key })),
    );
  }
}

/** The time a rule's basis counts from: the upload, or the newest version's upload (docs/versions.md). */
function basisTime(eb: ExpressionBuilder<DB, 'documents'>, basis: RetentionBasis): AliasableExpression<number> {
  if (basis === 'created') return eb.ref('documents.created_at');
  const newest = eb
    .selectFrom('document_versions')
    .select((v) => v.fn.max('document_versions.created_at').as('at'))
    .whereRef('document_versions.document_id', '=', 'documents.id');
  return eb.fn.coalesce(newest, eb.ref('documents.created_at')) as AliasableExpression<number>;
}
