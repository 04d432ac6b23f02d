import { Type } from 'typebox';
import { Nullable, Paged, PageQuery, Timestamp } from '../../http/common-schemas.ts';
import { MAIL_STATUSES } from './mail-outbox.repository.ts';
import { SENDER_NAME_MAX } from './mail.service.ts';
import { MAIL_KINDS } from './templates/catalogue.ts';

const STATUS_DESCRIPTION =
  "`pending` waits for its first try, `sending` is being handed to the relay, `retrying` failed and waits for `next_attempt_at`; `sent`, `failed` (refused for good: `last_error` has the server's answer), `dead` (every try failed) and `suppressed` (the recipient turned notification mail off) are final.";
export const MailStatusName = Type.Union(
  MAIL_STATUSES.map((s) => Type.Literal(s)),
  { description: STATUS_DESCRIPTION },
);

/** A mail as the administrator sees it: where it goes and how it went, never what it says. */
export const MailView = Type.Object({
  id: Type.String(),
  tenant_id: Nullable(Type.String()),
  kind: Type.String({ description: `The template: ${MAIL_KINDS.map((k) => `\`${k}\``).join(', ')}.` }),
  category: Type.String({ description: '`security` (always sent) or `notification` (users may turn it off).' }),
  to: Type.String(),
  user_id: Nullable(Type.String()),
  from_name: Nullable(Type.String()),
  subject: Type.String(),
  status: Type.String({ description: STATUS_DESCRIPTION }),
  attempts: Type.Integer({ description: 'Tries made so far.' }),
  last_error: Nullable(
    Type.String({
      description: "Why the last try failed: the relay's answer when it gave one (`550 5.1.1 ... user unknown`).",
    }),
  ),
  next_attempt_at: Nullable(Timestamp),
  server_response: Nullable(
    Type.String({
      description: 'What the relay answered when it took the mail, or the `.eml` file it was written to.',
    }),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  sent_at: Nullable(Timestamp),
});

export const MailListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(MailStatusName),
    tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    kind: Type.Optional(Type.Union(MAIL_KINDS.map((k) => Type.Literal(k)))),
  },
  { additionalProperties: false },
);
export const MailList = Paged(MailView);

export const MailParams = Type.Object(
  { mail_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);

export const MailSettingsView = Type.Object({
  sender_name: Nullable(
    Type.String({ description: "The display name of the tenant's mail; null: the tenant's name." }),
  ),
});

export const UpdateMailSettingsBody = Type.Object(
  {
    sender_name: Nullable(
      Type.String({
        minLength: 1,
        maxLength: SENDER_NAME_MAX,
        pattern: '\\S',
        description: `The display name of the From header, at most ${SENDER_NAME_MAX} characters; null: the tenant's name.`,
      }),
    ),
  },
  { additionalProperties: false },
);
