import { type Document, DocumentsRepository } from '../documents.repository.ts';
import { sharePermissionsOf } from './access.repository.ts';
import { errors } from '../../../lib/errors.ts';
import type { Executor } from '../../../db/executor.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { isTenantAdmin } from '../../../domain/roles.ts';

/*
 * Who may do what to a document (docs/api-decisions.md §3), in one place. Every document endpoint asks here.
 *
 * - An API key acts as a tenant administrator; `owner` and `admin` see and change everything.
 * - `member` has full rights (`admin`) on documents they uploaded, and a share's permission on
 *   documents shared with them or with a workspace they belong to.
 * - `viewer` reads only what is shared with them: a share never gives a viewer more than `view`.
 * - A document the caller may not see is 404, never 403; one they see but may not change is 403.
 */

export const SHARE_PERMISSIONS = ['view', 'edit', 'admin'] as const;
export type SharePermission = (typeof SHARE_PERMISSIONS)[number];

/** What a caller wants to do, and the permission it takes. */
export const DOCUMENT_ACTIONS = {
  read: 'view', // metadata, content, download, thumbnail
  update: 'edit', // rename, move, tag, apply AI tags, reprocess
  share: 'admin', // create, list and remove shares
  delete: 'admin',
} as const satisfies Record<string, SharePermission>;
export type DocumentAction = keyof typeof DOCUMENT_ACTIONS;

const documentsRepository = new DocumentsRepository();

const RANK: Record<SharePermission, number> = { view: 1, edit: 2, admin: 3 };

/** Viewers may not upload or create anything (docs/api-decisions.md §9). */
export function assertMayCreate(auth: AuthContext, what = 'documents'): void {
  if (auth.role === 'viewer' && auth.userId !== null) throw errors.forbidden(`Viewers cannot create ${what}`);
}

/** Only tenant administrators may (e.g. delete tags, force-delete folder trees). */
export function assertTenantAdmin(auth: AuthContext, what: string): void {
  if (!isTenantAdmin(auth)) throw errors.forbidden(`Only owners and admins may ${what}`);
}

/** The caller's permission on a document, or null when they may not see it. */
export async function permissionOn(
  db: Executor,
  auth: AuthContext,
  doc: Pick<Document, 'id' | 'ownerId'>,
): Promise<SharePermission | null> {
  if (isTenantAdmin(auth) || auth.userId === null) return 'admin';
  if (auth.role !== 'viewer' && doc.ownerId === auth.userId) return 'admin';
  const permissions = await sharePermissionsOf(db, auth.tenant.id, doc.id, auth.userId);
  let best: SharePermission | null = null;
  for (const permission of permissions) {
    const p = permission as SharePermission;
    if (RANK[p] !== undefined && (best === null || RANK[p] > RANK[best])) best = p;
  }
  if (best !== null && auth.role === 'viewer') return 'view';
  return best;
}

/** Whether the caller may change the document (`update`); false when it does not exist or is invisible to them. */
export async function mayEditDocument(db: Executor, auth: AuthContext, documentId: string): Promise<boolean> {
  const document = await documentsRepository.findById(db, auth.tenant.id, documentId);
  if (!document) return false;
  const permission = await permissionOn(db, auth, document);
  return permission !== null && RANK[permission] >= RANK[DOCUMENT_ACTIONS.update];
}

/**
 * Loads a document of the caller's tenant and checks the caller may do `action` to it:
 * 404 when it does not exist or is invisible to them, 403 when visible but not allowed.
 */
export async function authorizeDocument(
  db: Executor,
  auth: AuthContext,
  documentId: string,
  action: DocumentAction,
): Promise<{ document: Document; permission: SharePermission }> {
  const document = await documentsRepository.findById(db, auth.tenant.id, documentId);
  if (!document) throw errors.notFound('document', documentId);
  const permission = await permissionOn(db, auth, document);
  if (permission === null) throw errors.notFound('document', documentId);
  const needed = DOCUMENT_ACTIONS[action];
  if (RANK[permission] < RANK[needed]) {
    throw errors.forbidden(`Your access to this document (${permission}) does not allow this; it needs ${needed}`);
  }
  return { document, permission };
}
