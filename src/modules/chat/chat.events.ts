/** The events the chat module emits, with their data. */
declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    'chat.session.created': { session_id: string; document_id: string; name: string | null; user_id: string | null };
    'chat.message.created': { message_id: string; session_id: string; document_id: string; role: string };
  }
}
