import { Type } from 'typebox';
import { Paged, PageQuery, Timestamp, Nullable } from '../../../http/common-schemas.ts';
import { Password, Subdomain, TenantName } from '../tenants/tenants.schemas.ts';
import { Email, PersonName, UserView } from '../users/users.schemas.ts';

export const TenantHeader = Type.Object(
  { 'x-tenant-subdomain': Type.String({ minLength: 1, maxLength: 200, description: 'The tenant to sign in to.' }) },
  { additionalProperties: true },
);

const TenantSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  subdomain: Type.String(),
  tier: Type.String(),
});

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

export const LoginBody = Type.Object(
  { email: Email, password: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

export const RegisterBody = Type.Object(
  { tenant_name: TenantName, subdomain: Subdomain, email: Email, password: Password, name: PersonName },
  { additionalProperties: false },
);

export const RefreshBody = Type.Object(
  { refresh_token: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
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
  auth: Type.Object({
    via: Type.String(),
    role: Type.String(),
    sandbox: Type.Boolean(),
    session_id: Nullable(Type.String()),
  }),
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

export const SessionListQuery = Type.Object(PageQuery, { additionalProperties: false });
export const SessionList = Paged(SessionView);
