import type { Selectable } from 'kysely';
import type { DocumentSharesTable } from '../documents.tables.ts';
import type { Executor } from '../../../db/executor.ts';
import { userNameOf, workspaceNameOf } from '../../identity/index.ts';

/** A document shared with one user or one workspace. */
export interface Share {
  id: string;
  tenantId: string;
  documentId: string;
  userId: string | null;
  workspaceId: string | null;
  permission: string;
  createdBy: string | null;
  createdAt: number;
}

/** A share with the names of its user or workspace (for listings). */
export interface ShareWithNames extends Share {
  userName: string | null;
  workspaceName: string | null;
}

export function toShare(row: Selectable<DocumentSharesTable>): Share {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    documentId: row.document_id,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    permission: row.permission,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

/** SQL for document shares; every query takes the tenant. */
export class SharesRepository {
  async insert(db: Executor, share: Share): Promise<void> {
    await db
      .insertInto('document_shares')
      .values({
        id: share.id,
        tenant_id: share.tenantId,
        document_id: share.documentId,
        user_id: share.userId,
        workspace_id: share.workspaceId,
        permission: share.permission,
        created_by: share.createdBy,
        created_at: share.createdAt,
      })
      .execute();
  }

  /** The share of a document with exactly this user or workspace. */
  async findForTarget(
    db: Executor,
    tenantId: string,
    documentId: string,
    target: { userId: string | null; workspaceId: string | null },
  ): Promise<Share | null> {
    let q = db
      .selectFrom('document_shares')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId);
    q = target.userId ? q.where('user_id', '=', target.userId) : q.where('user_id', 'is', null);
    q = target.workspaceId ? q.where('workspace_id', '=', target.workspaceId) : q.where('workspace_id', 'is', null);
    const row = await q.executeTakeFirst();
    return row ? toShare(row) : null;
  }

  async setPermission(db: Executor, tenantId: string, id: string, permission: string): Promise<void> {
    await db
      .updateTable('document_shares')
      .set({ permission })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async listForDocument(db: Executor, tenantId: string, documentId: string): Promise<ShareWithNames[]> {
    const rows = await db
      .selectFrom('document_shares')
      .selectAll('document_shares')
      .select([
        userNameOf(tenantId, 'document_shares.user_id').as('user_name'),
        workspaceNameOf(tenantId, 'document_shares.workspace_id').as('workspace_name'),
      ])
      .where('document_shares.tenant_id', '=', tenantId)
      .where('document_shares.document_id', '=', documentId)
      .orderBy('document_shares.created_at')
      .orderBy('document_shares.id')
      .execute();
    return rows.map((row) => ({ ...toShare(row), userName: row.user_name, workspaceName: row.workspace_name }));
  }

  async delete(db: Executor, tenantId: string, documentId: string, id: string): Promise<boolean> {
    const result = await db
      .deleteFrom('document_shares')
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
