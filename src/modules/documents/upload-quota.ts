import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { lockTenant } from '../../db/locks.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { TIER_LIMITS } from '../../domain/tiers.ts';
import { errors } from '../../lib/errors.ts';
import type { DocumentsRepository } from './documents.repository.ts';

/** docs/api-decisions.md §5: a sandbox holds at most this many documents. */
export const SANDBOX_DOCUMENT_LIMIT = 100;

/** What a tenant may still store; null = unlimited. */
export interface Headroom {
  bytes: number | null;
  documents: number | null;
}

/** Storage quota per tier and the sandbox's document limit (docs/api-decisions.md §5). */
export class UploadQuota {
  private readonly deps: { database: Database; documents: DocumentsRepository };
  constructor(deps: UploadQuota['deps']) {
    this.deps = deps;
  }

  /** Room left before streaming (re-checked at commit with the real sizes). */
  async headroom(db: Executor, auth: AuthContext): Promise<Headroom> {
    const storageLimit = TIER_LIMITS[auth.tenant.tier].storageBytes;
    const usage = await this.deps.documents.usage(db, auth.tenant.id);
    return {
      bytes: storageLimit === null ? null : Math.max(0, storageLimit - usage.bytes),
      documents: auth.sandbox ? Math.max(0, SANDBOX_DOCUMENT_LIMIT - usage.documents) : null,
    };
  }

  /** Refuses when not even one more document (of at least `minBytes`) fits. */
  async assertRoom(auth: AuthContext, minBytes: number): Promise<Headroom> {
    const room = await this.headroom(this.deps.database.db, auth);
    if (room.documents !== null && room.documents < 1) throw this.sandboxFull(auth);
    if (room.bytes !== null && room.bytes < Math.max(1, minBytes)) throw this.storageFull(auth);
    return room;
  }

  /** Refuses when not `minBytes` (at least one) more fit: a new version of a document, which adds no document. */
  async assertBytes(auth: AuthContext, minBytes: number): Promise<Headroom> {
    const room = await this.headroom(this.deps.database.db, auth);
    if (room.bytes !== null && room.bytes < Math.max(1, minBytes)) throw this.storageFull(auth);
    return room;
  }

  /**
   * Inside the storing transaction: do `bytes` more in `count` documents fit? On PostgreSQL the
   * tenant row is locked first, so concurrent uploads of one tenant cannot both take the last room.
   */
  async assertFits(trx: Executor, auth: AuthContext, bytes: number, count: number): Promise<void> {
    await lockTenant(trx, this.deps.database.dialect, auth.tenant.id);
    const room = await this.headroom(trx, auth);
    if (room.documents !== null && room.documents < count) throw this.sandboxFull(auth);
    if (room.bytes !== null && room.bytes < bytes) throw this.storageFull(auth);
  }

  storageFull(auth: AuthContext) {
    const limit = TIER_LIMITS[auth.tenant.tier].storageBytes;
    return errors.tierLimit(`The storage quota of the ${auth.tenant.tier} tier (${limit} bytes) would be exceeded`, {
      current_tier: auth.tenant.tier,
      limit,
      quota: 'storage_bytes',
    });
  }

  sandboxFull(auth: AuthContext) {
    return errors.tierLimit(`The sandbox holds at most ${SANDBOX_DOCUMENT_LIMIT} documents`, {
      current_tier: auth.tenant.tier,
      limit: SANDBOX_DOCUMENT_LIMIT,
      quota: 'sandbox_documents',
    });
  }
}
