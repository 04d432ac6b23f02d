import { iso } from '../../lib/clock.ts';
import type { ChatMessage, ChatSession, Citation } from './chat.repository.ts';

export function presentSession(s: ChatSession) {
  return {
    id: s.id,
    document_id: s.documentId,
    scope: s.scope,
    folder_id: s.folderId,
    name: s.name,
    message_count: s.messageCount,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}

/** A source of an answer as the API shows it (also the `citations` of the MCP `ask` tool). */
export function presentCitation(c: Citation) {
  return {
    document_id: c.documentId,
    ...(c.version !== undefined ? { version: c.version } : {}),
    text: c.text,
    ...(c.page !== undefined ? { page: c.page } : {}),
    score: c.score,
  };
}

/** A message in a list: citations only on answers. */
export function presentMessage(m: ChatMessage) {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    ...(m.citations !== null ? { citations: m.citations.map(presentCitation) } : {}),
    created_at: iso(m.createdAt),
  };
}

/** The answer of `ask` (and the `done` event of a streamed one). */
export function presentAnswer(m: ChatMessage) {
  return {
    id: m.id,
    session_id: m.sessionId,
    role: 'assistant' as const,
    content: m.content,
    citations: (m.citations ?? []).map(presentCitation),
    created_at: iso(m.createdAt),
  };
}
