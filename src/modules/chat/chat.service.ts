import type { Database } from '../../db/database.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { EventLog } from '../../events/event-log.ts';
import type { Clock } from '../../lib/clock.ts';
import { type AppError, errors } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { AiProvider, ChatTurn } from '../../providers/ai/ai-provider.ts';
import { analyzeQuestion } from '../../providers/ai/question.ts';
import type { AuditTrail } from '../audit/index.ts';
import type { CreditsService } from '../credits/index.ts';
import type { DocumentAccess, DocumentFilters, DocumentVersionNumbers, FoldersService } from '../documents/index.ts';
import type { PassageStore } from '../processing/index.ts';
import type { DocumentRetrieval } from '../search/index.ts';
import type { ChatMessage, ChatRepository, ChatScope, ChatSession, Citation } from './chat.repository.ts';
import { CHAT_MIN_PASSAGE_SCORE, CHAT_TOP_PASSAGES, type RankedPassage, rankPassages } from './passage-ranking.ts';

/** What a session is about: one document, a folder and everything below it, or the whole tenant. */
export type ChatTarget = { documentId: string } | { folderId: string } | { scope: 'tenant' };

/**
 * Documents whose passages a folder or tenant question reads: the best of search's ranking. Their
 * passages are then ranked together as a document's are, so more documents only widen the choice.
 */
export const CHAT_SCOPE_DOCUMENTS = 8;

/** A question that passed the checks of `ask`, ready to be answered. */
export interface PreparedQuestion {
  auth: AuthContext;
  session: ChatSession;
  question: string;
  /** The ids the question and its answer will be stored under (streamed events name the answer). */
  questionId: string;
  answerId: string;
}

/** Earlier turns the model sees. */
const HISTORY_MESSAGES = 10;

interface Deps {
  database: Database;
  clock: Clock;
  events: EventLog;
  chat: ChatRepository;
  access: DocumentAccess;
  /** Which version of the document the passages quote (citations name it). */
  versions: DocumentVersionNumbers;
  passages: PassageStore;
  credits: CreditsService;
  ai: AiProvider;
  /** Records the document's passages an answer cites as a read (docs/audit.md). */
  audit: AuditTrail;
  /** A folder session's folder must be one of the tenant's (404 otherwise). */
  folders: Pick<FoldersService, 'get'>;
  /** Which documents a folder or tenant question reads (search's semantic ranking). */
  retrieval: DocumentRetrieval;
}

/**
 * Conversations about a document (docs/api-decisions.md §7), or across a folder's or the tenant's
 * documents (docs/api-decisions.md "Chat across a folder or the tenant"). A session belongs to the
 * user who opened it (API keys, acting for the tenant, see every session); it needs read access to
 * its document, checked again on every question, so revoking a share ends the conversation too. A
 * folder or tenant question reads only the documents the caller may read at that moment.
 */
export class ChatService {
  readonly #deps: Deps;
  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async create(auth: AuthContext, input: ChatTarget & { name: string }): Promise<ChatSession> {
    const { database, clock, chat, access, events, folders } = this.#deps;
    const name = input.name.trim();
    if (name === '') throw errors.field('name', 'must not be empty');
    const documentId = 'documentId' in input ? input.documentId : null;
    const folderId = 'folderId' in input ? input.folderId : null;
    const scope: ChatScope = documentId !== null ? 'document' : folderId !== null ? 'folder' : 'tenant';
    // Folders are the tenant's shared tree, visible to every member (folder-access.ts): existing is enough.
    if (folderId !== null) await folders.get(auth, folderId);
    return database.db.transaction().execute(async (trx) => {
      if (documentId !== null) await access.authorize(trx, auth, documentId, 'read');
      const now = clock.now();
      const session: ChatSession = {
        id: newId(now),
        tenantId: auth.tenant.id,
        scope,
        documentId,
        folderId,
        userId: auth.userId,
        name,
        messageCount: 0,
        createdAt: now,
        updatedAt: now,
      };
      await chat.insertSession(trx, session);
      await events.record(trx, {
        tenantId: auth.tenant.id,
        name: 'chat.session.created',
        at: now,
        data: {
          session_id: session.id,
          document_id: session.documentId,
          name: session.name,
          user_id: session.userId,
          ...(scope !== 'document' ? { scope, folder_id: folderId } : {}),
        },
      });
      return session;
    });
  }

  list(auth: AuthContext, page: { limit: number; offset: number; documentId?: string }) {
    return this.#deps.chat.listSessions(this.#deps.database.db, auth.tenant.id, ownerFilter(auth), page);
  }

  async get(auth: AuthContext, id: string): Promise<ChatSession> {
    const session = await this.#deps.chat.findSession(this.#deps.database.db, auth.tenant.id, id, ownerFilter(auth));
    if (!session) throw errors.notFound('chat_session', id);
    return session;
  }

  async delete(auth: AuthContext, id: string): Promise<void> {
    const { database, chat } = this.#deps;
    await database.db.transaction().execute(async (trx) => {
      const session = await chat.findSession(trx, auth.tenant.id, id, ownerFilter(auth));
      if (!session) throw errors.notFound('chat_session', id);
      await chat.deleteSession(trx, auth.tenant.id, id);
    });
  }

  async messages(
    auth: AuthContext,
    id: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ChatMessage[]; total: number }> {
    const session = await this.get(auth, id);
    const rows = await this.#deps.chat.listMessages(this.#deps.database.db, auth.tenant.id, id, page);
    return { rows, total: session.messageCount };
  }

  /**
   * Answers a question from the document's best passages, with citations. Streams through
   * `onDelta`; `signal` stops the generation (a client that went away). One credit is charged in
   * the transaction that stores the question and the answer, so a failed or abandoned answer costs
   * nothing; without credits left it is 402 before any work.
   */
  async ask(
    auth: AuthContext,
    sessionId: string,
    message: string,
    options: { onDelta?: (text: string) => void; signal?: AbortSignal } = {},
  ): Promise<ChatMessage> {
    return this.answer(await this.prepareAsk(auth, sessionId, message), options);
  }

  /**
   * Asks about a document without managing sessions (AI agents through MCP): the caller's session
   * named `sessionName` on that document is reused, or opened on first use, so the conversation
   * keeps its history and is visible in the session list like any other.
   */
  async askDocument(
    auth: AuthContext,
    documentId: string,
    question: string,
    sessionName: string,
  ): Promise<ChatMessage> {
    const found = await this.#deps.chat.findNamedSession(
      this.#deps.database.db,
      auth.tenant.id,
      documentId,
      auth.userId,
      sessionName,
    );
    const session = found ?? (await this.create(auth, { documentId, name: sessionName }));
    return this.ask(auth, session.id, question);
  }

  /**
   * The checks of `ask` that can refuse it (session, access, a document still processing, credits),
   * done before any answer streams. A document answers once its processing is `completed`: before
   * that it has no passages (or is replacing them), so the question is refused with 409
   * `document_not_ready` and nothing is charged.
   */
  async prepareAsk(auth: AuthContext, sessionId: string, message: string): Promise<PreparedQuestion> {
    const question = message.trim();
    if (question === '') throw errors.field('message', 'must not be empty');
    const session = await this.get(auth, sessionId);
    if (session.documentId !== null) {
      const { document } = await this.#deps.access.authorize(this.#deps.database.db, auth, session.documentId, 'read');
      if (document.status !== 'completed') throw documentNotReady(document.id, document.status);
    }
    await this.#deps.credits.assertAvailable(auth.tenant, 'chat_ask');
    const now = this.#deps.clock.now();
    return { auth, session, question, questionId: newId(now), answerId: newId(now) };
  }

  /**
   * The stored answer `answerId` of this session when it answered `message` (a client reconnecting
   * with the `Last-Event-ID` of a stream it already received), or null when there is none: the
   * stream was left before the answer was stored, or the question is another one.
   */
  async storedAnswer(
    auth: AuthContext,
    sessionId: string,
    message: string,
    answerId: string,
  ): Promise<ChatMessage | null> {
    const { database, chat, access } = this.#deps;
    const session = await this.get(auth, sessionId);
    if (session.documentId !== null) await access.authorize(database.db, auth, session.documentId, 'read');
    const pair = await chat.answerWithQuestion(database.db, auth.tenant.id, sessionId, answerId);
    return pair && pair.question.content === message.trim() ? pair.answer : null;
  }

  /** Retrieves, answers and stores a prepared question (see `ask`). */
  async answer(
    prepared: PreparedQuestion,
    options: { onDelta?: (text: string) => void; signal?: AbortSignal } = {},
  ): Promise<ChatMessage> {
    const { database, clock, chat, credits, ai, events, versions } = this.#deps;
    const { auth, session, question } = prepared;
    const sessionId = session.id;
    const history: ChatTurn[] = (
      await chat.recentMessages(database.db, auth.tenant.id, sessionId, HISTORY_MESSAGES)
    ).map((m) => ({
      role: m.role,
      content: m.content,
    }));
    const best = await this.#retrieve(prepared, history, options.signal);
    const answer = await ai.answer(
      question,
      best.map((p) => ({ documentId: p.documentId, text: p.text, page: p.page, score: p.score })),
      { history, signal: options.signal, onDelta: options.onDelta },
    );
    options.signal?.throwIfAborted();
    const used = answer.used.map((i) => best[i]).filter((p) => p !== undefined);
    const cited = [...new Set(used.map((p) => p.documentId))];
    // Only completed documents answer (prepareAsk, or the folder and tenant filter), so their passages are of their current version.
    const versionOf = cited.length > 0 ? await versions.currentNumbers(database.db, auth.tenant.id, cited) : new Map();
    const citations: Citation[] = used.map((p) => ({
      documentId: p.documentId,
      version: versionOf.get(p.documentId) ?? 1,
      text: p.text,
      ...(p.page !== null ? { page: p.page } : {}),
      score: round(p.score),
    }));

    const now = clock.now();
    const asked: ChatMessage = {
      id: prepared.questionId,
      tenantId: auth.tenant.id,
      sessionId,
      role: 'user',
      content: question,
      citations: null,
      createdAt: now,
    };
    const answered: ChatMessage = {
      id: prepared.answerId,
      tenantId: auth.tenant.id,
      sessionId,
      role: 'assistant',
      content: answer.text,
      citations,
      createdAt: now + 1,
    };
    await database.db.transaction().execute(async (trx) => {
      await credits.charge(trx, auth.tenant, 'chat_ask', answered.id);
      await chat.insertMessages(trx, [asked, answered], sessionId, auth.tenant.id, now + 1);
      for (const m of [asked, answered]) {
        await events.record(trx, {
          tenantId: auth.tenant.id,
          name: 'chat.message.created',
          at: m.createdAt,
          data: { message_id: m.id, session_id: sessionId, document_id: session.documentId, role: m.role },
        });
      }
    });
    for (const documentId of cited) {
      this.#deps.audit.read(
        auth,
        'document.cited',
        { type: 'document', id: documentId },
        { message_id: answered.id, citations: citations.filter((c) => c.documentId === documentId).length },
      );
    }
    return answered;
  }

  /**
   * The passages a question is answered from, best first. A document session ranks its document's
   * passages. A folder or tenant session asks search which documents to read (its semantic
   * ranking, within what the caller may read now, completed documents only: an unshared document
   * drops out at the next question) and ranks their passages together the same way.
   */
  async #retrieve(
    prepared: PreparedQuestion,
    history: ChatTurn[],
    signal: AbortSignal | undefined,
  ): Promise<(RankedPassage & { documentId: string })[]> {
    const { database, passages, ai, retrieval } = this.#deps;
    const { auth, session, question } = prepared;
    const analysis = analyzeQuestion(question, history);
    const rank = (stored: Candidate[], vector: Float32Array | null) =>
      rankPassages({ analysis, vector }, stored, { top: CHAT_TOP_PASSAGES, minScore: CHAT_MIN_PASSAGE_SCORE }).map(
        (p) => ({ ...p, documentId: p.documentId! }),
      );
    if (session.documentId !== null) {
      const documentId = session.documentId;
      const stored = (await passages.forDocument(database.db, auth.tenant.id, documentId)).map((p) => ({
        ...p,
        documentId,
      }));
      const [vector] = stored.some((p) => p.vector) ? await ai.embed([question], { purpose: 'query', signal }) : [null];
      return rank(stored, vector ?? null);
    }
    const [vector] = await ai.embed([question], { purpose: 'query', signal });
    const filters: DocumentFilters = {
      completedOnly: true,
      ...(session.folderId !== null ? { folderTree: session.folderId } : {}),
    };
    const found = await retrieval.documentsFor(auth, question, filters, CHAT_SCOPE_DOCUMENTS, vector ?? null);
    const stored: Candidate[] = [];
    const top = found[0]?.score ?? 0;
    for (const { id, score } of found) {
      const weight = top > 0 ? score / top : 1;
      for (const p of await passages.forDocument(database.db, auth.tenant.id, id))
        stored.push({ ...p, documentId: id, weight });
    }
    return rank(stored, vector ?? null);
  }
}

/** 409 `document_not_ready`: the document has no finished text to answer from (docs/api-decisions.md §7). */
function documentNotReady(documentId: string, status: string): AppError {
  const message =
    status === 'failed'
      ? 'The document could not be processed, so there is no text to answer from; reprocess it first'
      : 'The document is still being processed; ask again when its status is completed';
  return errors.documentNotReady(message, { document_id: documentId, status });
}

/** A passage up for ranking, with its document (and, across documents, its document's weight). */
type Candidate = Parameters<typeof rankPassages>[1][number] & { documentId: string };

/** Users see their own sessions; API keys act for the whole tenant. */
function ownerFilter(auth: AuthContext): string | null {
  return auth.via === 'api_key' ? null : auth.userId;
}

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}
