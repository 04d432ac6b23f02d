import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { parseJson } from '../../lib/json.ts';
import type { ChatMessagesTable, ChatScope, ChatSessionsTable } from './chat.tables.ts';

export type { ChatScope };

/** A conversation about one document, or across a folder's or the tenant's documents. */
export interface ChatSession {
  id: string;
  tenantId: string;
  scope: ChatScope;
  /** The document of a 'document' session; null otherwise. */
  documentId: string | null;
  /** The folder of a 'folder' session (with everything below it); null otherwise. */
  folderId: string | null;
  /** The user who opened it; null when opened with an API key. */
  userId: string | null;
  name: string;
  messageCount: number;
  createdAt: number;
  updatedAt: number;
}

/** A passage an answer rests on. */
export interface Citation {
  documentId: string;
  /** The document version the passage was quoted from (absent on answers stored before versions). */
  version?: number;
  text: string;
  /** 1-based, for documents that have pages. */
  page?: number;
  score: number;
}

/** One message of a session. */
export interface ChatMessage {
  id: string;
  tenantId: string;
  sessionId: string;
  role: 'user' | 'assistant';
  content: string;
  /** The sources of an answer; null on questions. */
  citations: Citation[] | null;
  createdAt: number;
}

/** A citation as the `citations` column stores it (the API's shape, which older rows already have). */
interface StoredCitation {
  document_id: string;
  version?: number;
  text: string;
  page?: number;
  score: number;
}

export function toChatSession(row: Selectable<ChatSessionsTable>): ChatSession {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    scope: row.scope,
    documentId: row.document_id,
    folderId: row.folder_id,
    userId: row.user_id,
    name: row.name,
    messageCount: Number(row.message_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toChatMessage(row: Selectable<ChatMessagesTable>): ChatMessage {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    sessionId: row.session_id,
    role: row.role,
    content: row.content,
    citations:
      row.citations === null
        ? null
        : parseJson<StoredCitation[]>(row.citations, []).map((c) => ({
            documentId: c.document_id,
            ...(c.version !== undefined ? { version: c.version } : {}),
            text: c.text,
            ...(c.page !== undefined ? { page: c.page } : {}),
            score: c.score,
          })),
    createdAt: row.created_at,
  };
}

function storedCitations(citations: Citation[]): string {
  const stored: StoredCitation[] = citations.map((c) => ({
    document_id: c.documentId,
    ...(c.version !== undefined ? { version: c.version } : {}),
    text: c.text,
    ...(c.page !== undefined ? { page: c.page } : {}),
    score: c.score,
  }));
  return JSON.stringify(stored);
}

/** SQL of chat sessions and messages; every query takes the tenant. `userId` null = every session of the tenant. */
export class ChatRepository {
  async insertSession(db: Executor, session: ChatSession): Promise<void> {
    await db
      .insertInto('chat_sessions')
      .values({
        id: session.id,
        tenant_id: session.tenantId,
        document_id: session.documentId,
        scope: session.scope,
        folder_id: session.folderId,
        user_id: session.userId,
        name: session.name,
        message_count: session.messageCount,
        created_at: session.createdAt,
        updated_at: session.updatedAt,
      })
      .execute();
  }

  async findSession(db: Executor, tenantId: string, id: string, userId: string | null): Promise<ChatSession | null> {
    let q = db.selectFrom('chat_sessions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
    if (userId !== null) q = q.where('user_id', '=', userId);
    const row = await q.executeTakeFirst();
    return row ? toChatSession(row) : null;
  }

  /** The caller's session of a name on a document, if they opened one (the MCP `ask` tool reuses its own). */
  async findNamedSession(
    db: Executor,
    tenantId: string,
    documentId: string,
    userId: string | null,
    name: string,
  ): Promise<ChatSession | null> {
    let q = db
      .selectFrom('chat_sessions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('document_id', '=', documentId)
      .where('name', '=', name);
    q = userId === null ? q.where('user_id', 'is', null) : q.where('user_id', '=', userId);
    const row = await q.orderBy('created_at').executeTakeFirst();
    return row ? toChatSession(row) : null;
  }

  async listSessions(
    db: Executor,
    tenantId: string,
    userId: string | null,
    page: { limit: number; offset: number; documentId?: string },
  ): Promise<{ rows: ChatSession[]; total: number }> {
    let base = db.selectFrom('chat_sessions').where('tenant_id', '=', tenantId);
    if (userId !== null) base = base.where('user_id', '=', userId);
    if (page.documentId) base = base.where('document_id', '=', page.documentId);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(toChatSession), total: Number(count.n) };
  }

  async deleteSession(db: Executor, tenantId: string, id: string): Promise<void> {
    await db.deleteFrom('chat_messages').where('tenant_id', '=', tenantId).where('session_id', '=', id).execute();
    await db.deleteFrom('chat_sessions').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async insertMessages(
    db: Executor,
    messages: ChatMessage[],
    sessionId: string,
    tenantId: string,
    at: number,
  ): Promise<void> {
    await db
      .insertInto('chat_messages')
      .values(
        messages.map((m) => ({
          id: m.id,
          tenant_id: m.tenantId,
          session_id: m.sessionId,
          role: m.role,
          content: m.content,
          citations: m.citations === null ? null : storedCitations(m.citations),
          created_at: m.createdAt,
        })),
      )
      .execute();
    await db
      .updateTable('chat_sessions')
      .set((eb) => ({ message_count: eb('message_count', '+', messages.length), updated_at: at }))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', sessionId)
      .execute();
  }

  async listMessages(
    db: Executor,
    tenantId: string,
    sessionId: string,
    page: { limit: number; offset: number },
  ): Promise<ChatMessage[]> {
    const rows = await db
      .selectFrom('chat_messages')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    return rows.map(toChatMessage);
  }

  /** An answer of a session and the question it answered (the user message just before it), or null. */
  async answerWithQuestion(
    db: Executor,
    tenantId: string,
    sessionId: string,
    answerId: string,
  ): Promise<{ question: ChatMessage; answer: ChatMessage } | null> {
    const answer = await db
      .selectFrom('chat_messages')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .where('id', '=', answerId)
      .where('role', '=', 'assistant')
      .executeTakeFirst();
    if (!answer) return null;
    const question = await db
      .selectFrom('chat_messages')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .where('role', '=', 'user')
      .where((eb) =>
        eb.or([
          eb('created_at', '<', answer.created_at),
          eb.and([eb('created_at', '=', answer.created_at), eb('id', '<', answer.id)]),
        ]),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return question ? { question: toChatMessage(question), answer: toChatMessage(answer) } : null;
  }

  /** The latest `limit` messages, oldest first (the conversation so far, for the model). */
  async recentMessages(db: Executor, tenantId: string, sessionId: string, limit: number): Promise<ChatMessage[]> {
    const rows = await db
      .selectFrom('chat_messages')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse().map(toChatMessage);
  }
}
