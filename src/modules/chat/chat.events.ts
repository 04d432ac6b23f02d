import { type Static, Type } from 'typebox';
import type { EventSchemas } from '../../events/event-catalogue.ts';
import { Nullable } from '../../http/common-schemas.ts';

/*
 * The events the chat module emits: each one's data schema is the single declaration its type, its
 * webhook payload in the OpenAPI document and the SDK's `WebhookEvents` come from.
 */

const ChatSessionCreated = Type.Object({
  session_id: Type.String(),
  document_id: Nullable(Type.String({ description: 'Null on folder and tenant sessions.' })),
  name: Nullable(Type.String()),
  user_id: Nullable(Type.String()),
  scope: Type.Optional(
    Type.Union([Type.Literal('folder'), Type.Literal('tenant')], {
      description: 'Present on folder and tenant sessions.',
    }),
  ),
  folder_id: Type.Optional(Nullable(Type.String())),
});

const ChatMessageCreated = Type.Object({
  message_id: Type.String(),
  session_id: Type.String(),
  document_id: Nullable(Type.String({ description: 'Null on folder and tenant sessions.' })),
  role: Type.String(),
});

/** The module's event schemas, by name (handed to the platform by its index.ts). */
export const CHAT_EVENTS = {
  'chat.session.created': ChatSessionCreated,
  'chat.message.created': ChatMessageCreated,
} satisfies EventSchemas;

declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    'chat.session.created': Static<typeof ChatSessionCreated>;
    'chat.message.created': Static<typeof ChatMessageCreated>;
  }
}
