import type { Executor } from '../../db/executor.ts';
import { errors } from '../../lib/errors.ts';

/** What a deletion would remove: documents, and folders (each with everything below it). */
export interface DeletionScope {
  documentIds?: readonly string[];
  folderIds?: readonly string[];
}

/** An active hold naming one of the documents or folders asked about. */
export interface HoldMatch {
  holdId: string;
  holdName: string;
  targetType: 'document' | 'folder';
  targetId: string;
}

/** The records module's side: which active holds name any of these documents or folders (ids as given, no ancestry). */
export interface HoldChecker {
  matching(
    db: Executor,
    tenantId: string,
    targets: { documentIds: readonly string[]; folderIds: readonly string[] },
  ): Promise<HoldMatch[]>;
}

const CHUNK = 500;
const MAX_DEPTH = 100;

/**
 * The one check every deletion path makes before removing documents, folders, versions or stored
 * copies (docs/records.md, "Legal holds"): refused with 409 `legal_hold` when an active hold covers
 * any of them. A hold covers the documents and folders it names and, for a folder, everything below
 * it at the time of the check (documents added later too): coverage is resolved here by folder
 * ancestry, not from a snapshot. The records module plugs its `HoldChecker` in at setup; without
 * one (a build without that module) nothing is held.
 */
export class LegalHoldGuard {
  readonly #checkers: HoldChecker[] = [];

  use(checker: HoldChecker): void {
    this.#checkers.push(checker);
  }

  /** Throws 409 `legal_hold` naming the first covering hold (all of them in `details.holds`). */
  async assertDeletable(db: Executor, tenantId: string, scope: DeletionScope): Promise<void> {
    const matches = await this.#covering(db, tenantId, scope);
    if (matches.length === 0) return;
    const holds = [...new Map(matches.map((m) => [m.holdId, { id: m.holdId, name: m.holdName }])).values()];
    const first = holds[0]!;
    throw errors.legalHold(
      `This is under the legal hold "${first.name}" and cannot be deleted until the hold is released`,
      {
        hold_id: first.id,
        hold_name: first.name,
        holds,
      },
    );
  }

  /**
   * Throws 409 `legal_hold` when moving a document (or a folder, with what is below it) to
   * `toFolderId` (null: the top level) would take it out of a hold that covers it through a folder
   * above it: a move must not be a way around a hold.
   */
  async assertMovable(
    db: Executor,
    tenantId: string,
    moved: { documentId: string } | { folderId: string },
    toFolderId: string | null,
  ): Promise<void> {
    if (this.#checkers.length === 0) return;
    // What covers it now through folders above it (a hold naming the document or folder itself moves with it).
    let above: string[];
    if ('documentId' in moved) {
      const folder = (await foldersOfDocuments(db, tenantId, [moved.documentId])).get(moved.documentId);
      above = folder ? ((await ancestorChains(db, tenantId, [folder])).get(folder) ?? []) : [];
    } else {
      above = ((await ancestorChains(db, tenantId, [moved.folderId])).get(moved.folderId) ?? []).slice(1);
    }
    if (above.length === 0) return;
    const after = new Set(toFolderId ? ((await ancestorChains(db, tenantId, [toFolderId])).get(toFolderId) ?? []) : []);
    const lost = above.filter((f) => !after.has(f));
    if (lost.length === 0) return;
    const matches = await this.#matching(db, tenantId, [], lost);
    if (matches.length === 0) return;
    const first = matches[0]!;
    throw errors.legalHold(
      `This is under the legal hold "${first.holdName}" through a folder above it and cannot be moved out of that folder until the hold is released`,
      {
        hold_id: first.holdId,
        hold_name: first.holdName,
        holds: [...new Map(matches.map((m) => [m.holdId, { id: m.holdId, name: m.holdName }])).values()],
      },
    );
  }

  /** Which of `folderIds` are folders of the tenant now (in `db`'s transaction): a hold re-checks them under its lock. */
  async existingFolders(db: Executor, tenantId: string, folderIds: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < folderIds.length; i += CHUNK) {
      const rows = await db
        .selectFrom('folders')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', folderIds.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) found.add(r.id);
    }
    return found;
  }

  /** Of these documents, the ones an active hold covers (directly or through a folder above them), with one covering hold each. */
  async heldDocuments(db: Executor, tenantId: string, documentIds: readonly string[]): Promise<Map<string, HoldMatch>> {
    const held = new Map<string, HoldMatch>();
    if (this.#checkers.length === 0 || documentIds.length === 0) return held;
    const folderOf = await foldersOfDocuments(db, tenantId, documentIds);
    const chains = await ancestorChains(db, tenantId, [...new Set(folderOf.values())]);
    const allFolders = new Set([...chains.values()].flat());
    const matches = await this.#matching(db, tenantId, documentIds, [...allFolders]);
    const byDocument = new Map(matches.filter((m) => m.targetType === 'document').map((m) => [m.targetId, m]));
    const byFolder = new Map(matches.filter((m) => m.targetType === 'folder').map((m) => [m.targetId, m]));
    for (const id of documentIds) {
      const direct = byDocument.get(id);
      const folder = folderOf.get(id);
      const viaFolder = folder
        ? chains
            .get(folder)
            ?.map((f) => byFolder.get(f))
            .find((m) => m !== undefined)
        : undefined;
      const match = direct ?? viaFolder;
      if (match) held.set(id, match);
    }
    return held;
  }

  async #covering(db: Executor, tenantId: string, scope: DeletionScope): Promise<HoldMatch[]> {
    if (this.#checkers.length === 0) return [];
    const documentIds = [...(scope.documentIds ?? [])];
    const folderOf = await foldersOfDocuments(db, tenantId, documentIds);
    // Everything above what is deleted: a hold on an ancestor folder covers it.
    const chains = await ancestorChains(db, tenantId, [...new Set([...(scope.folderIds ?? []), ...folderOf.values()])]);
    return this.#matching(db, tenantId, documentIds, [...new Set([...chains.values()].flat())]);
  }

  async #matching(
    db: Executor,
    tenantId: string,
    documentIds: readonly string[],
    folderIds: readonly string[],
  ): Promise<HoldMatch[]> {
    const out: HoldMatch[] = [];
    for (const checker of this.#checkers)
      out.push(...(await checker.matching(db, tenantId, { documentIds, folderIds })));
    return out;
  }
}

/** Each document's folder (documents at the top level are absent). */
async function foldersOfDocuments(
  db: Executor,
  tenantId: string,
  documentIds: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < documentIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('documents')
      .select(['id', 'folder_id'])
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', documentIds.slice(i, i + CHUNK))
      .execute();
    for (const row of rows) if (row.folder_id) out.set(row.id, row.folder_id);
  }
  return out;
}

/** For each folder, itself and its ancestors up to the top (one recursive query per chunk). */
async function ancestorChains(
  db: Executor,
  tenantId: string,
  folderIds: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < folderIds.length; i += CHUNK) {
    const rows = await db
      // The depth is a literal: PostgreSQL would type a parameter in the seed row as text.
      .withRecursive('up(start_id, id, parent_id, depth)', (qb) =>
        qb
          .selectFrom('folders')
          .select(['folders.id as start_id', 'folders.id', 'folders.parent_id', (eb) => eb.lit(0).as('depth')])
          .where('folders.tenant_id', '=', tenantId)
          .where('folders.id', 'in', folderIds.slice(i, i + CHUNK))
          .unionAll((u) =>
            u
              .selectFrom('folders')
              .innerJoin('up', 'up.parent_id', 'folders.id')
              .select([
                'up.start_id',
                'folders.id',
                'folders.parent_id',
                (eb) => eb(eb.ref('up.depth'), '+', eb.lit(1)).as('depth'),
              ])
              .where('folders.tenant_id', '=', tenantId)
              .where('up.depth', '<', MAX_DEPTH),
          ),
      )
      .selectFrom('up')
      .select(['up.start_id', 'up.id'])
      .orderBy('up.depth')
      .execute();
    for (const row of rows) {
      const chain = out.get(row.start_id) ?? [];
      chain.push(row.id);
      out.set(row.start_id, chain);
    }
  }
  return out;
}
