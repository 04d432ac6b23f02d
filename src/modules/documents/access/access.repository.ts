import { type Expression, type ExpressionBuilder, expressionBuilder, type SqlBool } from 'kysely';
import type { Executor } from '../../../db/executor.ts';
import type { DB } from '../../../db/schema.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { isTenantAdmin } from '../../../domain/roles.ts';
import { workspaceIdsOfUser } from '../../identity/index.ts';
// The document_visibility table's types (merged into DB).
import './visibility.tables.ts';

/** The SQL of document visibility: share lookups and the filters every document query applies. */

/**
 * Whose rows of `document_visibility` (kept by triggers, migration 20261123_1600) a caller's
 * queries read, or null for callers who see every document of the tenant (tenant administrators
 * and API keys). Viewers read only what is shared with them, never what they own
 * (docs/api-decisions.md §3), so their rows must have a share (`shares > 0`).
 */
export interface VisibilityScope {
  userId: string;
  sharedOnly: boolean;
}

export function visibilityScope(auth: AuthContext): VisibilityScope | null {
  if (isTenantAdmin(auth) || auth.userId === null) return null;
  return { userId: auth.userId, sharedOnly: auth.role === 'viewer' };
}

/** The caller's visibility rows: `document_visibility as v` narrowed to their user (and shared rows for viewers). */
export function visibilityRows(db: Executor, tenantId: string, scope: VisibilityScope) {
  const q = db
    .selectFrom('document_visibility as v')
    .where('v.tenant_id', '=', tenantId)
    .where('v.user_id', '=', scope.userId);
  return scope.sharedOnly ? q.where('v.shares', '>', 0) : q;
}

/**
 * The visibility filter of queries over `documents`: `.where(visibleDocuments(auth))`, for
 * queries that start elsewhere (search candidates, chat): one primary-key probe of
 * `document_visibility` per row tested. Tenant administrators get a filter that is always true (the
 * tenant scope is the caller's own). Lists should rather start from the visibility rows
 * (DocumentsRepository does), so they read one index range in sort order.
 */
export function visibleDocuments(auth: AuthContext) {
  return (eb: ExpressionBuilder<DB, 'documents'>): Expression<SqlBool> => {
    const scope = visibilityScope(auth);
    if (scope === null) return eb.lit(true);
    let rows = eb
      .selectFrom('document_visibility as v')
      .select('v.document_id')
      .where('v.tenant_id', '=', auth.tenant.id)
      .whereRef('v.document_id', '=', 'documents.id')
      .where('v.user_id', '=', scope.userId);
    if (scope.sharedOnly) rows = rows.where('v.shares', '>', 0);
    return eb.exists(rows);
  };
}

/**
 * "The caller may change the document whose id is `documentId`" (`authorizeDocument(..., 'update')`
 * as SQL), for a query that starts elsewhere: the task inbox lists the AI review tasks of the
 * documents a member may edit. Tenant administrators: any document of the tenant; members: the
 * documents they own and those an `edit` or `admin` share gives them (directly or through a
 * workspace); viewers: none (a share never gives them more than `view`).
 */
export function editableDocument(auth: AuthContext) {
  const tenantId = auth.tenant.id;
  const eb = expressionBuilder<DB, never>();
  return (documentId: Expression<string | null>): Expression<SqlBool> => {
    const documents = eb
      .selectFrom('documents as d')
      .select('d.id')
      .where('d.tenant_id', '=', tenantId)
      .where('d.id', '=', documentId);
    if (isTenantAdmin(auth) || auth.userId === null) return eb.exists(documents);
    if (auth.role === 'viewer') return eb.lit(false);
    const userId = auth.userId;
    return eb.exists(
      documents.where((d) =>
        d.or([
          d('d.owner_id', '=', userId),
          d.exists(
            d
              .selectFrom('document_shares as s')
              .select('s.document_id')
              .where('s.tenant_id', '=', tenantId)
              .whereRef('s.document_id', '=', 'd.id')
              .where('s.permission', 'in', ['edit', 'admin'])
              .where((w) =>
                w.or([w('s.user_id', '=', userId), w('s.workspace_id', 'in', workspaceIdsOfUser(tenantId, userId))]),
              ),
          ),
        ]),
      ),
    );
  };
}

/** The permissions of every share that reaches `userId` on a document: directly, or through their workspaces. */
export async function sharePermissionsOf(
  db: Executor,
  tenantId: string,
  documentId: string,
  userId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('document_shares')
    .select('permission')
    .where('tenant_id', '=', tenantId)
    .where('document_id', '=', documentId)
    .where((s) => s.or([s('user_id', '=', userId), s('workspace_id', 'in', workspaceIdsOfUser(tenantId, userId))]))
    .execute();
  return rows.map((r) => r.permission);
}
