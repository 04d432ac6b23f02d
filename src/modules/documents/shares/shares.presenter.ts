import { iso } from '../../../lib/clock.ts';
import type { Share, ShareWithNames } from './shares.repository.ts';

/** A share as the API shows it: `user_id` or `workspace_id`, whichever it has. */
export function presentShare(s: Share) {
  return {
    share_id: s.id,
    document_id: s.documentId,
    ...(s.userId ? { user_id: s.userId } : {}),
    ...(s.workspaceId ? { workspace_id: s.workspaceId } : {}),
    permission: s.permission,
    created_at: iso(s.createdAt),
  };
}

/** A share in a document's list, with the name of its user or workspace. */
export function presentListedShare(s: ShareWithNames) {
  return {
    ...presentShare(s),
    ...(s.userId && s.userName !== null ? { user_name: s.userName } : {}),
    ...(s.workspaceId && s.workspaceName !== null ? { workspace_name: s.workspaceName } : {}),
  };
}
