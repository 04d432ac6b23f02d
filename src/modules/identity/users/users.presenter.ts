import { iso } from '../../../lib/clock.ts';
import type { User } from './users.repository.ts';
import type { InvitationState } from './users.service.ts';

/** A user as the API shows it, with the newest invitation's state while they have no password. */
export function presentUser(u: User, invitation: InvitationState | null = null) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    roles: u.roles,
    status: u.status,
    notification_mail: u.notificationMail,
    invitation:
      u.passwordSet || !invitation
        ? null
        : {
            status: invitation.status,
            last_error: invitation.lastError,
            created_at: iso(invitation.createdAt),
            sent_at: iso(invitation.sentAt),
          },
    created_at: iso(u.createdAt),
    updated_at: iso(u.updatedAt),
  };
}

/** A user of a listing or an answer of the users API, with their invitation's state. */
export function presentEntry(entry: { user: User; invitation: InvitationState | null }) {
  return presentUser(entry.user, entry.invitation);
}
