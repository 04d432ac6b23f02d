import { Type } from 'typebox';
import { Paged, PageQuery, Timestamp } from '../../../http/common-schemas.ts';
import { iso } from '../../../lib/clock.ts';
import { Password } from '../tenants/tenants.schemas.ts';
import type { User } from './users.repository.ts';
import { BUILT_IN_ROLES } from '../../../domain/auth-context.ts';
import { USER_STATUSES } from './users.service.ts';

export const RoleName = Type.Union(BUILT_IN_ROLES.map((r) => Type.Literal(r)), { description: 'Built-in role.' });
export const CustomRoles = Type.Array(
  Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,63}$', description: 'A custom role name such as `finance_manager`.' }),
  { maxItems: 50, description: 'Custom role names (human workflow tasks are routed to them).' },
);
export const Email = Type.String({ format: 'email', maxLength: 254 });
export const PersonName = Type.String({ minLength: 1, maxLength: 200 });

export const UserView = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Type.String(),
  roles: Type.Array(Type.String()),
  status: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export function presentUser(u: User) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    roles: u.roles,
    status: u.status,
    created_at: iso(u.createdAt),
    updated_at: iso(u.updatedAt),
  };
}

export const InviteUserBody = Type.Object(
  {
    email: Email,
    name: PersonName,
    role: Type.Optional(RoleName),
    roles: Type.Optional(CustomRoles),
    password: Type.Optional(Password),
  },
  { additionalProperties: false },
);

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(PersonName),
    role: Type.Optional(RoleName),
    roles: Type.Optional(CustomRoles),
    status: Type.Optional(Type.Union(USER_STATUSES.map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const UserListQuery = Type.Object({ ...PageQuery, role: Type.Optional(RoleName) }, { additionalProperties: false });
export const UserList = Paged(UserView);
