import type { Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ChatMessagesTable, ChatSessionsTable } from './chat.tables.ts';

export type ChatSessionRow = Selectable<ChatSessionsTable>;
export type ChatMessageRow = Selectable<ChatMessagesTable>;

/** SQL of chat sessions and messages; every query takes the tenant. `userId` null = every session of the tenant. */
export class ChatRepository {
  async insertSession(db: Executor, row: ChatSessionRow): Promise<void> {
    await db.insertInto('chat_sessions').values(row).execute();
  }

  async findSession(db: Executor, tenantId: string, id: string, userId: string | null): Promise<ChatSessionRow | null> {
    let q = db.selectFrom('chat_sessions').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
    if (userId !== null) q = q.where('user_id', '=', userId);
    return (await q.executeTakeFirst()) ?? null;
  }

  /** The caller's session of a name on a document, if they opened one (the MCP `ask` tool reuses its own). */
  async findNamedSession(db: Executor, tenantId: string, documentId: string, userId: string | null, name: string): Promise<ChatSessionRow | null> {
    let q = db.selectFrom('chat_sessions').selectAll().where('tenant_id', '=', tenantId).where('document_id', '=', documentId).where('name', '=', name);
    q = userId === null ? q.where('user_id', 'is', null) : q.where('user_id', '=', userId);
    return (await q.orderBy('created_at').executeTakeFirst()) ?? null;
  }

  async listSessions(
    db: Executor,
    tenantId: string,
    userId: string | null,
    page: { limit: number; offset: number; documentId?: string },
  ): Promise<{ rows: ChatSessionRow[]; total: number }> {
    let base = db.selectFrom('chat_sessions').where('tenant_id', '=', tenantId);
    if (userId !== null) base = base.where('user_id', '=', userId);
    if (page.documentId) base = base.where('document_id', '=', page.documentId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  async deleteSession(db: Executor, tenantId: string, id: string): Promise<void> {
    await db.deleteFrom('chat_messages').where('tenant_id', '=', tenantId).where('session_id', '=', id).execute();
    await db.deleteFrom('chat_sessions').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async insertMessages(db: Executor, rows: ChatMessageRow[], sessionId: string, tenantId: string, at: number): Promise<void> {
    await db.insertInto('chat_messages').values(rows).execute();
    await db
      .updateTable('chat_sessions')
      .set((eb) => ({ message_count: eb('message_count', '+', rows.length), updated_at: at }))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', sessionId)
      .execute();
  }

  async listMessages(db: Executor, tenantId: string, sessionId: string, page: { limit: number; offset: number }): Promise<ChatMessageRow[]> {
    return db
      .selectFrom('chat_messages')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  }

  /** The latest `limit` messages, oldest first (the conversation so far, for the model). */
  async recentMessages(db: Executor, tenantId: string, sessionId: string, limit: number): Promise<ChatMessageRow[]> {
    const rows = await db
      .selectFrom('chat_messages')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('session_id', '=', sessionId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse();
  }
}
