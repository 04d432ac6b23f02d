import type { AuthContext } from '../../../domain/auth-context.ts';
import { isTenantAdmin } from '../../../domain/roles.ts';
import { errors } from '../../../lib/errors.ts';
import { assertMayCreate } from '../access/document-access.ts';
import type { Folder } from './folders.repository.ts';

/*
 * Who may do what to a folder (docs/security.md "Access inside a tenant"). Folders are the tenant's
 * shared tree: everyone sees every folder (contract §9 lists them flat), and anyone but a viewer
 * files things into any of them (subfolders, uploads, moves). Changing a folder itself — rename,
 * move, colour, icon, delete — is for the user who created it and for tenant administrators (owners,
 * admins, API keys); a folder an API key or an import made belongs to the administrators. Refusals
 * are 403 `forbidden`: the folder is visible anyway.
 */

/** Anyone but a viewer may put subfolders and documents into a folder. */
export function assertMayFileInto(auth: AuthContext): void {
  assertMayCreate(auth, 'or change folders');
}

/** Renaming, moving, restyling or deleting a folder: its creator or a tenant administrator. */
export function assertMayChangeFolder(auth: AuthContext, folder: Pick<Folder, 'createdBy'>): void {
  assertMayCreate(auth, 'or change folders');
  if (isTenantAdmin(auth)) return;
  if (auth.userId === null || folder.createdBy !== auth.userId) {
    throw errors.forbidden("Only the folder's creator, owners and admins may rename, move, restyle or delete it");
  }
}
