import { iso } from '../../../lib/clock.ts';
import type { Workspace, WorkspaceMember } from './workspaces.repository.ts';

/** A member of a workspace. */
export function presentMember(m: WorkspaceMember) {
  return { user_id: m.userId, name: m.name, email: m.email, role: m.role, added_at: iso(m.addedAt) };
}

/** A workspace with its member count. */
export function presentWorkspace(w: Workspace, memberCount: number) {
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    created_by: w.createdBy,
    member_count: memberCount,
    created_at: iso(w.createdAt),
    updated_at: iso(w.updatedAt),
  };
}
