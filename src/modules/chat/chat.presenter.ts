import { iso } from '../../lib/clock.ts';
import { parseJson } from '../../lib/json.ts';
import type { ChatMessageRow, ChatSessionRow } from './chat.repository.ts';
import type { Citation } from './chat.service.ts';

export function presentSession(s: ChatSessionRow) {
  return {
    id: s.id,
    document_id: s.document_id,
    name: s.name,
    message_count: Number(s.message_count),
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
  };
}

/** A message in a list: citations only on answers. */
export function presentMessage(m: ChatMessageRow) {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    ...(m.citations !== null ? { citations: parseJson<Citation[]>(m.citations, []) } : {}),
    created_at: iso(m.created_at),
  };
}

/** The answer of `ask` (and the `done` event of a streamed one). */
export function presentAnswer(m: ChatMessageRow) {
  return {
    id: m.id,
    session_id: m.session_id,
    role: 'assistant' as const,
    content: m.content,
    citations: parseJson<Citation[]>(m.citations, []),
    created_at: iso(m.created_at),
  };
}
