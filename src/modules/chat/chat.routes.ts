import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdParams, MessageBody, Paged, pageWindow, standardErrors } from '../../http/common-schemas.ts';
import { type App, authOf } from '../../http/fastify-types.ts';
import { settleStreamedRequest } from '../../http/idempotency.ts';
import { AppError, errors } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { presentAnswer, presentMessage, presentSession } from './chat.presenter.ts';
import type { ChatMessage as ChatMessageRecord } from './chat.repository.ts';
import {
  AskAnswer,
  AskBody,
  ChatMessage,
  ChatSession,
  ChatSessionListQuery,
  CreateChatSessionBody,
} from './chat.schemas.ts';
import type { ChatService, ChatTarget } from './chat.service.ts';

const tags = ['chat'];
const config = { rateLimit: 'chat' };

/** Spec: Endpoints > Chat; docs/api-decisions.md §7. */
export function chatRoutes(app: App, s: { chat: ChatService; logger: Logger }): void {
  const { chat } = s;

  app.post(
    '/chat/sessions',
    {
      config,
      schema: {
        tags,
        summary: 'Start a chat about a document, a folder or everything',
        description:
          'Exactly one of `document_id` (the caller must be able to read the document, 404 otherwise), `folder_id` (a folder of the tenant, 404 otherwise: the folder and every folder below it) or `scope: "tenant"` (every document the caller may read); none or more than one is 400. Folder and tenant sessions answer from the completed documents the caller may read when asking, and cite which document each passage came from. Emits `chat.session.created`.',
        body: CreateChatSessionBody,
        response: { 201: ChatSession, ...standardErrors },
      },
    },
    async (request, reply) => {
      const session = await chat.create(authOf(request), { ...chatTarget(request.body), name: request.body.name });
      return reply.status(201).send(presentSession(session));
    },
  );

  app.get(
    '/chat/sessions',
    {
      config,
      schema: {
        tags,
        summary: 'List your chat sessions',
        description:
          'Most recently active first. Users see the sessions they opened; API keys see every session of the tenant.',
        querystring: ChatSessionListQuery,
        response: { 200: Paged(ChatSession), ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await chat.list(authOf(request), { ...page, documentId: request.query.document_id });
      return { data: rows.map(presentSession), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/chat/sessions/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Get a chat session',
        description: 'A chat session the caller opened (API keys: any of the tenant), with its `message_count`.',
        params: IdParams,
        response: { 200: ChatSession, ...standardErrors },
      },
    },
    async (request) => presentSession(await chat.get(authOf(request), request.params.id)),
  );

  app.delete(
    '/chat/sessions/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Delete a chat session and its messages',
        description: 'Permanently removes the session and every message in it; the document is not touched.',
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await chat.delete(authOf(request), request.params.id);
      return { message: 'Chat session deleted' };
    },
  );

  app.get(
    '/chat/sessions/:id/messages',
    {
      config,
      schema: {
        tags,
        summary: 'List the messages of a chat session',
        description: 'Oldest first, paged `{data, total, page, page_size}`; answers carry their `citations`.',
        params: IdParams,
        querystring: ChatSessionListQuery,
        response: { 200: Paged(ChatMessage), ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await chat.messages(authOf(request), request.params.id, page);
      return { data: rows.map(presentMessage), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.post(
    '/chat/sessions/:id/ask',
    {
      config,
      schema: {
        tags,
        summary: 'Ask a question in a chat session',
        description:
          'Answers from the best passages of the document (folder and tenant sessions: of the completed documents in scope the caller may read now), with `citations` naming each passage\'s document and page. 409 `document_not_ready` while a document session\'s document is not `completed` (nothing charged). With `Accept: text/event-stream` the answer streams as server-sent events: `delta` events (`{"content": "..."}`), then one `done` event carrying the full message (or `error` with the error body); each event has an `id`. A repeat with the same `Idempotency-Key` replays the stored answer; a reconnect with the `Last-Event-ID` of an answer already stored gets the rest of it (204 when the `done` event was received) instead of a new answer. Costs 1 AI credit (402 `insufficient_credits` when spent); a failed, abandoned or replayed answer is not charged (docs/chat-and-agents.md).',
        params: IdParams,
        body: AskBody,
        response: { 200: AskAnswer, ...standardErrors },
      },
    },
    async (request, reply) => {
      if (wantsStream(request)) {
        const resumed = await resumeFrom(request, chat);
        if (resumed) return replayStream(reply, resumed.answer, resumed.after);
        return streamAnswer(request, reply, chat, s.logger);
      }
      const answer = await chat.ask(authOf(request), request.params.id, request.body.message);
      return presentAnswer(answer);
    },
  );
}

/** Exactly one of `document_id`, `folder_id` and `scope: "tenant"` names what a session is about. */
function chatTarget(body: { document_id?: string; folder_id?: string; scope?: 'tenant' }): ChatTarget {
  const named = [body.document_id, body.folder_id, body.scope].filter((v) => v !== undefined).length;
  if (named !== 1)
    throw errors.field(
      body.document_id !== undefined ? 'document_id' : body.folder_id !== undefined ? 'folder_id' : 'scope',
      named === 0
        ? 'name a document_id, a folder_id or scope "tenant"'
        : 'only one of document_id, folder_id and scope "tenant" may be given',
    );
  if (body.document_id !== undefined) return { documentId: body.document_id };
  if (body.folder_id !== undefined) return { folderId: body.folder_id };
  return { scope: 'tenant' };
}

function wantsStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/event-stream');
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** One server-sent event; `id` lets a reconnecting client say how far it got (`Last-Event-ID`). */
function sseEvent(event: string, data: unknown, id?: string): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

// Event ids: `<answer id>:<characters of content sent so far>` for deltas, `<answer id>:done` last.
const EVENT_ID = /^([0-9a-f-]{36}):(\d{1,7}|done)$/i;

/** A reconnect naming (in `Last-Event-ID`) an answer of this session to the same question, already stored. */
async function resumeFrom(
  request: FastifyRequest<{ Params: { id: string }; Body: { message: string } }>,
  chat: ChatService,
) {
  const header = request.headers['last-event-id'];
  const m = typeof header === 'string' ? EVENT_ID.exec(header.trim()) : null;
  if (!m || !isUuid(m[1]!)) return null;
  const answer = await chat.storedAnswer(authOf(request), request.params.id, request.body.message, m[1]!.toLowerCase());
  return answer ? { answer, after: m[2] === 'done' ? null : Number(m[2]) } : null;
}

/**
 * What a reconnecting client missed of a stored answer: the rest of its content and the `done`
 * event; nothing (204, which also tells a standard EventSource to stop reconnecting) when it had
 * the `done` event already. Never a new answer, never a charge.
 */
function replayStream(reply: FastifyReply, answer: ChatMessageRecord, after: number | null) {
  if (after === null) return reply.status(204).send();
  const rest = answer.content.slice(after);
  const body =
    (rest ? sseEvent('delta', { content: rest }, `${answer.id}:${answer.content.length}`) : '') +
    sseEvent('done', presentAnswer(answer), `${answer.id}:done`);
  return reply.status(200).headers(SSE_HEADERS).send(body);
}

/**
 * Checks that can fail (session, access, a document not ready, credits) run before the stream
 * opens, so they answer as ordinary JSON errors; once streaming, a failure becomes an `error`
 * event. A client that disconnects aborts the generation, and nothing is stored or charged. What
 * was streamed is kept for a repeat with the same Idempotency-Key (the idempotency layer never
 * sees a hijacked reply, so it is handed over here).
 */
async function streamAnswer(
  request: FastifyRequest<{ Params: { id: string }; Body: { message: string } }>,
  reply: FastifyReply,
  chat: ChatService,
  logger: Logger,
) {
  const prepared = await chat.prepareAsk(authOf(request), request.params.id, request.body.message);
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableEnded) controller.abort(new Error('the client went away'));
  };
  reply.raw.on('close', onClose);
  reply.hijack();
  const headers = { ...(reply.getHeaders() as Record<string, string>), ...SSE_HEADERS };
  reply.raw.writeHead(200, { ...headers, connection: 'keep-alive' });
  let streamed = '';
  let sent = 0;
  const send = (event: string, data: unknown, id: string) => {
    const text = sseEvent(event, data, id);
    streamed += text;
    reply.raw.write(text);
  };
  let completed = false;
  try {
    const answer = await chat.answer(prepared, {
      signal: controller.signal,
      onDelta: (content) => {
        sent += content.length;
        send('delta', { content }, `${prepared.answerId}:${sent}`);
      },
    });
    send('done', presentAnswer(answer), `${answer.id}:done`);
    completed = true;
  } catch (error) {
    if (controller.signal.aborted) return;
    if (error instanceof AppError)
      send(
        'error',
        {
          error: error.error,
          code: error.code,
          message: error.message,
          ...(error.details ? { details: error.details } : {}),
        },
        `${prepared.answerId}:error`,
      );
    else {
      logger.error({ err: error, reqId: request.id }, 'streamed chat answer failed');
      send(
        'error',
        { error: 'internal_error', code: 'INTERNAL_ERROR', message: 'An internal error occurred' },
        `${prepared.answerId}:error`,
      );
    }
  } finally {
    reply.raw.off('close', onClose);
    // Only a stored (and charged) answer is replayed; after a failure the key is free again.
    // Settled before the stream ends, so an immediate repeat finds the answer, not a running request.
    await settleStreamedRequest(request, completed ? { statusCode: 200, headers, body: streamed } : null);
    reply.raw.end();
  }
}
