import { Type } from 'typebox';
import { Nullable, Paged, PageQuery, Timestamp } from '../../../http/common-schemas.ts';
import { Password } from '../tenants/tenants.schemas.ts';
import { BUILT_IN_ROLES } from '../../../domain/auth-context.ts';
import { USER_STATUSES } from './users.service.ts';

export const RoleName = Type.Union(
  BUILT_IN_ROLES.map((r) => Type.Literal(r)),
  { description: 'Built-in role.' },
);
export const CustomRoles = Type.Array(
  Type.String({
    pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,63}$',
    description: 'A custom role name such as `finance_manager`.',
  }),
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
  notification_mail: Type.Boolean({
    description:
      'Whether the user gets notification mail (tasks, failed workflows, plan and usage notices). Security mail (invitations, password resets, e-mail changes) is always sent.',
  }),
  invitation: Nullable(
    Type.Object(
      {
        status: Type.String({
          description:
            "The invitation mail's state: `pending`, `sending`, `retrying`, `sent`, `failed`, `dead` (docs/mail.md).",
        }),
        last_error: Nullable(
          Type.String({ description: "Why it was not delivered: the mail server's answer when it gave one." }),
        ),
        created_at: Timestamp,
        sent_at: Nullable(Timestamp),
      },
      {
        description:
          'The newest invitation of a user who has not chosen a password yet; null once they have (or when they were created with one).',
      },
    ),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});

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
    email: Type.Optional(Email),
    notification_mail: Type.Optional(Type.Boolean()),
    role: Type.Optional(RoleName),
    roles: Type.Optional(CustomRoles),
    status: Type.Optional(Type.Union(USER_STATUSES.map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const UserListQuery = Type.Object(
  { ...PageQuery, role: Type.Optional(RoleName) },
  { additionalProperties: false },
);
export const UserList = Paged(UserView);
