import { BlobNotFoundError, type BlobStore } from '../../providers/blobs/blob-store.ts';
import { eachLimited } from './bounded.ts';
import type { StorageMigration } from './migrations.repository.ts';
import type { StorageDeps } from './runner-deps.ts';
import { copyVerified } from './verified-copy.ts';

const PAGE = 500;

/**
 * Before the source copies go: a document the inventory never listed and the target does not hold
 * is a straggler (an upload that chose its store just before the switch and committed only after
 * the cutover check). It is copied, verified, now, and its source copy purged with the others;
 * answers how many were.
 */
export async function rescueStragglers(
  deps: StorageDeps,
  m: StorageMigration,
  source: BlobStore,
  target: BlobStore,
): Promise<number> {
  let rescued = 0;
  let after = '';
  for (;;) {
    const page = await deps.files.outsideInventory(deps.database.db, m.tenantId, m.id, after, PAGE);
    await eachLimited(page, deps.config.copyConcurrency, async (doc) => {
      if (await target.head(doc.storageKey)) return;
      if (await copyIfPresent(source, target, doc.storageKey, doc.sha256)) rescued += 1;
      if (doc.thumbnailKey && !(await target.head(doc.thumbnailKey)))
        await copyIfPresent(source, target, doc.thumbnailKey, null);
    });
    if (page.length < PAGE) return rescued;
    after = page.at(-1)!.id;
  }
}

async function copyIfPresent(
  source: BlobStore,
  target: BlobStore,
  key: string,
  sha256: string | null,
): Promise<boolean> {
  try {
    await copyVerified([source], target, key, sha256 === null ? null : { sha256 });
    await source.delete(key);
    return true;
  } catch (error) {
    // Deleted meanwhile (or never stored): nothing to keep.
    if (error instanceof BlobNotFoundError) return false;
    throw error;
  }
}
