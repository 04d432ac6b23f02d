import { iso } from '../../../lib/clock.ts';
import { presentUser } from '../users/users.presenter.ts';
import type { IssuedTokens } from './auth.service.ts';
import type { Session } from './sessions.repository.ts';

/** A sign-in's answer: the token pair, the CSRF token, the user and the tenant. */
export function presentTokens(t: IssuedTokens) {
  return {
    access_token: t.accessToken,
    refresh_token: t.refreshToken,
    csrf_token: t.csrfToken,
    token_type: 'Bearer' as const,
    expires_in: t.expiresIn,
    refresh_expires_in: t.refreshExpiresIn,
    session_id: t.sessionId,
    user: presentUser(t.user),
    tenant: { id: t.tenant.id, name: t.tenant.name, subdomain: t.tenant.subdomain, tier: t.tenant.tier },
  };
}

/** A login session; `current` marks the caller's own. */
export function presentSession(s: Session, currentId: string | null) {
  return {
    id: s.id,
    current: s.id === currentId,
    user_agent: s.userAgent,
    ip: s.ip,
    created_at: iso(s.createdAt),
    last_used_at: iso(s.lastUsedAt),
    expires_at: iso(s.expiresAt),
  };
}
