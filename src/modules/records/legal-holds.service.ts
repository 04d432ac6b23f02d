import type { Database } from '../../db/database.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import { requireTenantAdmin } from '../../domain/roles.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { Clock } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { acceptName } from '../../lib/names.ts';
import type { ModuleServices } from '../../platform/module.ts';
import type { HoldStatus, LegalHold, LegalHoldsRepository } from './legal-holds.repository.ts';

/** At most this many documents and as many folders in one hold. */
export const MAX_HOLD_ITEMS = 1_000;

interface Deps {
  database: Database;
  clock: Clock;
  events: EventLog;
  holds: LegalHoldsRepository;
  access: Pick<ModuleServices['documentAccess'], 'authorize'>;
  folders: Pick<ModuleServices['folders'], 'get'>;
  guard: Pick<ModuleServices['legalHoldGuard'], 'existingFolders'>;
}

const ADMINS_ONLY = 'Only owners and admins may manage legal holds';

/**
 * Legal holds (docs/records.md): owners and admins place a named hold on documents and folders;
 * while it is active nothing it covers may be deleted (the documents module's `LegalHoldGuard`
 * asks `matching` on every deletion path). Releasing keeps the record, marked released.
 */
export class LegalHoldsService {
  readonly #deps: Deps;

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async create(
    auth: AuthContext,
    input: { name: string; documentIds?: string[]; folderIds?: string[] },
  ): Promise<LegalHold> {
    requireTenantAdmin(auth, ADMINS_ONLY);
    const { database, clock, events, holds, access, folders, guard } = this.#deps;
    const name = acceptName(input.name, 'name');
    const documentIds = [...new Set(input.documentIds ?? [])];
    const folderIds = [...new Set(input.folderIds ?? [])];
    if (documentIds.length === 0 && folderIds.length === 0) {
      throw errors.validation([
        { field: 'document_ids', message: 'a hold names at least one document or folder (document_ids, folder_ids)' },
      ]);
    }
    // Every id must be a folder or document of the caller's tenant that the caller sees (404 otherwise).
    for (const id of folderIds) await folders.get(auth, id);
    const now = clock.now();
    const hold: LegalHold = {
      id: newId(now),
      tenantId: auth.tenant.id,
      name,
      status: 'active',
      documentIds,
      folderIds,
      createdBy: auth.userId,
      createdAt: now,
      releasedBy: null,
      releasedAt: null,
    };
    await database.db.transaction().execute(async (trx) => {
      // First: waits for deletions of this tenant being checked, and makes later ones wait for this hold.
      await holds.lock(trx, hold.tenantId, 'exclusive');
      for (const id of documentIds) await access.authorize(trx, auth, id, 'read');
      // Checked again under the lock: a folder deleted meanwhile is not held (404 as above).
      const folderNow = await guard.existingFolders(trx, hold.tenantId, folderIds);
      const gone = folderIds.find((f) => !folderNow.has(f));
      if (gone) throw errors.notFound('folder', gone);
      await holds.insert(trx, hold);
      await events.record(trx, {
        tenantId: hold.tenantId,
        name: 'legal_hold.created',
        data: { hold_id: hold.id, name, document_ids: documentIds, folder_ids: folderIds },
      });
    });
    return hold;
  }

  async list(
    auth: AuthContext,
    f: { status?: HoldStatus; limit: number; offset: number },
  ): Promise<{ rows: LegalHold[]; total: number }> {
    requireTenantAdmin(auth, ADMINS_ONLY);
    return this.#deps.holds.list(this.#deps.database.db, auth.tenant.id, f);
  }

  async get(auth: AuthContext, id: string): Promise<LegalHold> {
    requireTenantAdmin(auth, ADMINS_ONLY);
    const hold = await this.#deps.holds.findById(this.#deps.database.db, auth.tenant.id, id);
    if (!hold) throw errors.notFound('legal_hold', id);
    return hold;
  }

  /** Ends the hold: what it covered may be deleted again (unless another hold covers it). 409 when already released. */
  async release(auth: AuthContext, id: string): Promise<LegalHold> {
    requireTenantAdmin(auth, ADMINS_ONLY);
    const { database, clock, events, holds } = this.#deps;
    const tenantId = auth.tenant.id;
    await database.db.transaction().execute(async (trx) => {
      const hold = await holds.findById(trx, tenantId, id);
      if (!hold) throw errors.notFound('legal_hold', id);
      if (!(await holds.release(trx, tenantId, id, auth.userId, clock.now())))
        throw errors.conflict('The legal hold is already released', { hold_id: id });
      await events.record(trx, { tenantId, name: 'legal_hold.released', data: { hold_id: id, name: hold.name } });
    });
    return this.get(auth, id);
  }
}
