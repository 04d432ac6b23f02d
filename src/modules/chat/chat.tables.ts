/** A conversation about one document. */
export interface ChatSessionsTable {
  id: string;
  tenant_id: string;
  document_id: string;
  /** The user who opened it; null when opened with an API key. */
  user_id: string | null;
  name: string;
  message_count: number;
  created_at: number;
  updated_at: number;
}

/** One message of a session; `citations` is JSON (assistant messages). */
export interface ChatMessagesTable {
  id: string;
  tenant_id: string;
  session_id: string;
  role: 'user' | 'assistant';
  content: string;
  citations: string | null;
  created_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    chat_sessions: ChatSessionsTable;
    chat_messages: ChatMessagesTable;
  }
}
