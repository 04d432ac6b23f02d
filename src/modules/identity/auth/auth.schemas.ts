import { Type } from 'typebox';
import { Paged, PageQuery, Timestamp, Nullable } from '../../../http/common-schemas.ts';
import { iso } from '../../../lib/clock.ts';
import { Password, Subdomain, TenantName } from '../tenants/tenants.schemas.ts';
import { Email, PersonName, presentUser, UserView } from '../users/users.schemas.ts';
import type { IssuedTokens } from './auth.service.ts';
import type { Session } from './sessions.repository.ts';

export const TenantHeader = Type.Object(
  { 'x-tenant-subdomain': Type.String({ minLength: 1, maxLength: 200, description: 'The tenant to sign in to.' }) },
  { additionalProperties: true },
);

const TenantSummary = Type.Object({ id: Type.String(), name: Type.String(), subdomain: Type.String(), tier: Type.String() });

export const TokenAnswer = Type.Object({
  access_token: Type.String({ description: 'JWT, valid for `expires_in` seconds; send as `Authorization: Bearer`.' }),
  refresh_token: Type.String({ description: 'Opaque, single use, valid 30 days.' }),
  csrf_token: Type.String({ description: 'Send as `X-CSRF-Token` on POST, PUT, PATCH and DELETE.' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  refresh_expires_in: Type.Integer(),
  session_id: Type.String(),
  user: UserView,
  tenant: TenantSummary,
});

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

export const LoginBody = Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });

export const RegisterBody = Type.Object(
  { tenant_name: TenantName, subdomain: Subdomain, email: Email, password: Password, name: PersonName },
  { additionalProperties: false },
);

export const RefreshBody = Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
export const ChangePasswordBody = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 256 }), new_password: Password },
  { additionalProperties: false },
);
export const ForgotPasswordBody = Type.Object({ email: Email }, { additionalProperties: false });
export const ResetPasswordBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200 }), new_password: Password },
  { additionalProperties: false },
);

export const MeAnswer = Type.Object({
  user: Nullable(UserView),
  tenant: Type.Object({ ...TenantSummary.properties, status: Type.String() }),
  auth: Type.Object({ via: Type.String(), role: Type.String(), sandbox: Type.Boolean(), session_id: Nullable(Type.String()) }),
});

export const CsrfAnswer = Type.Object({ csrf_token: Type.String() });

export const SessionView = Type.Object({
  id: Type.String(),
  current: Type.Boolean(),
  user_agent: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  created_at: Timestamp,
  last_used_at: Timestamp,
  expires_at: Timestamp,
});

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

export const SessionListQuery = Type.Object(PageQuery, { additionalProperties: false });
export const SessionList = Paged(SessionView);
