import { Type } from 'typebox';
import { Timestamp } from '../../../http/common-schemas.ts';

/** A tag as the API shows it. */
export const TagView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  color: Type.String(),
  created_at: Timestamp,
});

/** `POST /tags`. */
export const CreateTagBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Unique per tenant, case-insensitive.' }),
    color: Type.Optional(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: '`#RRGGBB`; default `#6B7280`.' })),
  },
  { additionalProperties: false },
);
