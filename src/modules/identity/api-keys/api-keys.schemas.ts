import { Type } from 'typebox';
import { Nullable, Paged, PageQuery, Timestamp } from '../../../http/common-schemas.ts';

export const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The public start of the key, to recognise it.' }),
  environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
});

export const CreatedApiKey = Type.Object({
  ...ApiKeyView.properties,
  key: Type.String({ description: 'The whole secret; shown in this answer only.' }),
});

export const RotatedApiKey = Type.Object({
  ...CreatedApiKey.properties,
  previous_key_expires_at: Timestamp,
});

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    environment: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')], { default: 'live' })),
  },
  { additionalProperties: false },
);

export const RotateApiKeyBody = Type.Union([
  Type.Object(
    { grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 86_400, default: 0 })) },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

export const ApiKeyListQuery = Type.Object(PageQuery, { additionalProperties: false });
export const ApiKeyList = Paged(ApiKeyView);
