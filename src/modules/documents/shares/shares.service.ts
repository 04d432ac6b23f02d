import type { Database } from '../../../db/database.ts';
import { isUniqueViolation } from '../../../db/db-errors.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { authorizeDocument, type SharePermission } from '../access/document-access.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import type { ModuleServices } from '../../../platform/module.ts';
import type { Share, SharesRepository, ShareWithNames } from './shares.repository.ts';

export interface ShareInput {
  userId?: string;
  workspaceId?: string;
  permission: SharePermission;
}

/** Sharing a document with a user or a workspace of the same tenant (spec Share, docs/api-decisions.md §3). */
export class SharesService {
  private readonly deps: {
    database: Database;
    clock: Clock;
    shares: SharesRepository;
    /** Identity's directory: whether the share's user or workspace exists. */
    members: Pick<ModuleServices['members'], 'userExists' | 'workspaceExists'>;
  };
  constructor(deps: SharesService['deps']) {
    this.deps = deps;
  }

  /** Shares, or changes the permission of an existing share with the same target. */
  async share(auth: AuthContext, documentId: string, input: ShareInput): Promise<{ share: Share; created: boolean }> {
    if ((input.userId === undefined) === (input.workspaceId === undefined)) {
      throw errors.validation([{ field: 'user_id', message: 'give exactly one of user_id and workspace_id' }]);
    }
    const { database, clock, shares, members } = this.deps;
    const tenantId = auth.tenant.id;
    const target = { userId: input.userId ?? null, workspaceId: input.workspaceId ?? null };
    try {
      return await database.db.transaction().execute(async (trx) => {
        await authorizeDocument(trx, auth, documentId, 'share');
        if (target.userId && !(await members.userExists(trx, tenantId, target.userId)))
          throw errors.notFound('user', target.userId);
        if (target.workspaceId && !(await members.workspaceExists(trx, tenantId, target.workspaceId))) {
          throw errors.notFound('workspace', target.workspaceId);
        }
        const existing = await shares.findForTarget(trx, tenantId, documentId, target);
        if (existing) {
          await shares.setPermission(trx, tenantId, existing.id, input.permission);
          return { share: { ...existing, permission: input.permission }, created: false };
        }
        const now = clock.now();
        const share: Share = {
          id: newId(now),
          tenantId,
          documentId,
          userId: target.userId,
          workspaceId: target.workspaceId,
          permission: input.permission,
          createdBy: auth.userId,
          createdAt: now,
        };
        await shares.insert(trx, share);
        return { share, created: true };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.conflict('This document was just shared with the same target; retry');
      throw error;
    }
  }

  async list(auth: AuthContext, documentId: string): Promise<ShareWithNames[]> {
    const { database, shares } = this.deps;
    await authorizeDocument(database.db, auth, documentId, 'share');
    return shares.listForDocument(database.db, auth.tenant.id, documentId);
  }

  async remove(auth: AuthContext, documentId: string, shareId: string): Promise<void> {
    const { database, shares } = this.deps;
    await database.db.transaction().execute(async (trx) => {
      await authorizeDocument(trx, auth, documentId, 'share');
      if (!(await shares.delete(trx, auth.tenant.id, documentId, shareId))) throw errors.notFound('share', shareId);
    });
  }
}
