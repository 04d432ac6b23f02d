import { Type } from 'typebox';
import { Paged, PageQuery, Timestamp } from '../../../http/common-schemas.ts';
import { TENANT_STATUSES, TIERS } from '../../../domain/tiers.ts';

export const Subdomain = Type.String({
  pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$',
  description: 'Lowercase letters, digits and hyphens; 1 to 63 characters, not starting or ending with a hyphen.',
});
export const TierName = Type.Union(TIERS.map((t) => Type.Literal(t)));
const Email = Type.String({ format: 'email', maxLength: 254 });
export const Password = Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters.' });
const PersonName = Type.String({ minLength: 1, maxLength: 200 });
/** A tenant's display name: 1 to 200 characters, not only spaces. */
export const TenantName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

export const CreateTenantBody = Type.Object(
  {
    name: TenantName,
    subdomain: Subdomain,
    tier: Type.Optional(TierName),
    owner: Type.Object({ email: Email, password: Password, name: PersonName }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

export const TenantView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  subdomain: Type.String(),
  tier: Type.String(),
  status: Type.String(),
  cors_origins: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const TenantWithUsage = Type.Object({
  ...TenantView.properties,
  usage: Type.Record(Type.String(), Type.Integer()),
});

export const CreatedTenantView = Type.Object({
  tenant: Type.Object({
    id: Type.String(),
    name: Type.String(),
    subdomain: Type.String(),
    tier: Type.String(),
    created_at: Timestamp,
  }),
  owner: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String(), role: Type.String() }),
  api_key: Type.String(),
  test_api_key: Type.String(),
});

export const UpdateTenantBody = Type.Object(
  {
    name: Type.Optional(TenantName),
    tier: Type.Optional(TierName),
    status: Type.Optional(Type.Union(TENANT_STATUSES.map((s) => Type.Literal(s)))),
    cors_origins: Type.Optional(
      Type.Array(
        Type.String({ pattern: '^https?://[^/\\s]+$', description: 'An origin: scheme://host[:port], no path.' }),
        {
          maxItems: 100,
        },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const TenantParams = Type.Object(
  { tenant_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
export const TenantListQuery = Type.Object(PageQuery, { additionalProperties: false });
export const TenantList = Paged(TenantView);

const ReviewThreshold = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
  description:
    'AI document types, key fields and tags whose confidence is below this (0 to 1) go to the task inbox as a review task instead of onto the document; null (the default) applies every AI result. Needs the Team tier or above (the task inbox comes with workflows).',
});

/** `GET /tenant/settings`. */
export const TenantSettingsView = Type.Object({ ai_review_threshold: ReviewThreshold });

/** `PATCH /tenant/settings`: the settings given change, the others stay. */
export const UpdateTenantSettingsBody = Type.Object(
  { ai_review_threshold: Type.Optional(ReviewThreshold) },
  { additionalProperties: false, minProperties: 1 },
);
