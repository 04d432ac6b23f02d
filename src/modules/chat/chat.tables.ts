import type { Generated } from 'kysely';

export type ChatScope = 'document' | 'folder' | 'tenant';

/** A conversation about one document, a folder's documents or the tenant's (`scope`). */
export interface ChatSessionsTable {
  id: string;
  tenant_id: string;
  /** Set on 'document' sessions only. */
  document_id: string | null;
  scope: Generated<ChatScope>;
  /** Set on 'folder' sessions only: that folder and every folder below it. */
  folder_id: string | null;
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
