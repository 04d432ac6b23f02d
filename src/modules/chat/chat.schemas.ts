import { Type } from 'typebox';
import { Nullable, PageQuery, Timestamp } from '../../http/common-schemas.ts';

const Scope = Type.Union([Type.Literal('document'), Type.Literal('folder'), Type.Literal('tenant')], {
  description:
    'What the session answers from: its document, its folder and every folder below it, or every document the caller may read.',
});

export const ChatSession = Type.Object({
  id: Type.String(),
  document_id: Nullable(Type.String({ description: 'The document of a `document` session; null otherwise.' })),
  scope: Scope,
  folder_id: Nullable(Type.String({ description: 'The folder of a `folder` session; null otherwise.' })),
  name: Type.String(),
  message_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreateChatSessionBody = Type.Object(
  {
    document_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'A document the caller may read (a `document` session).',
      }),
    ),
    folder_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'A folder of the tenant: the session answers from it and every folder below it.',
      }),
    ),
    scope: Type.Optional(
      Type.Literal('tenant', { description: '`tenant`: the session answers from every document the caller may read.' }),
    ),
    name: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const ChatSessionListQuery = Type.Object(
  {
    ...PageQuery,
    document_id: Type.Optional(Type.String({ maxLength: 128, description: 'Only sessions about this document.' })),
  },
  { additionalProperties: false },
);

export const Citation = Type.Object({
  document_id: Type.String(),
  version: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'The version of the document the passage quotes (docs/versions.md); absent on answers given before versions existed.',
    }),
  ),
  text: Type.String({ description: 'The passage the answer draws on.' }),
  page: Type.Optional(Type.Integer({ description: 'Its page, slide or sheet, where the document has pages.' })),
  score: Type.Number({ minimum: 0, maximum: 1 }),
});

export const ChatMessage = Type.Object({
  id: Type.String(),
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
  content: Type.String(),
  citations: Type.Optional(Type.Array(Citation)),
  created_at: Timestamp,
});

export const AskBody = Type.Object(
  { message: Type.String({ minLength: 1, maxLength: 4000 }) },
  { additionalProperties: false },
);

export const AskAnswer = Type.Object({
  id: Type.String(),
  session_id: Type.String(),
  role: Type.Literal('assistant'),
  content: Type.String(),
  citations: Type.Array(Citation),
  created_at: Timestamp,
});
