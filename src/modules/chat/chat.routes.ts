import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdParams, MessageBody, Paged, pageWindow, standardErrors } from '../../http/common-schemas.ts';
import { type App, authOf } from '../../http/fastify-types.ts';
import { AppError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { presentAnswer, presentMessage, presentSession } from './chat.presenter.ts';
import { AskAnswer, AskBody, ChatMessage, ChatSession, ChatSessionListQuery, CreateChatSessionBody } from './chat.schemas.ts';
import type { ChatService } from './chat.service.ts';

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
        summary: 'Start a chat about a document',
        description: 'The caller must be able to read the document (404 otherwise). Emits `chat.session.created`.',
        body: CreateChatSessionBody,
        response: { 201: ChatSession, ...standardErrors },
      },
    },
    async (request, reply) => {
      const session = await chat.create(authOf(request), { documentId: request.body.document_id, name: request.body.name });
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
        description: 'Most recently active first. Users see the sessions they opened; API keys see every session of the tenant.',
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
    { config, schema: { tags, summary: 'Get a chat session', params: IdParams, response: { 200: ChatSession, ...standardErrors } } },
    async (request) => presentSession(await chat.get(authOf(request), request.params.id)),
  );

  app.delete(
    '/chat/sessions/:id',
    {
      config,
      schema: { tags, summary: 'Delete a chat session and its messages', params: IdParams, response: { 200: MessageBody, ...standardErrors } },
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
        summary: 'Ask a question about the document',
        description:
          'Answers from the best passages of the document, with `citations`. With `Accept: text/event-stream` the answer streams as server-sent events: `delta` events (`{"content": "..."}`), then one `done` event carrying the full message (or `error` with the error body). Costs 1 AI credit (402 `insufficient_credits` when spent); a failed or abandoned answer is not charged.',
        params: IdParams,
        body: AskBody,
        response: { 200: AskAnswer, ...standardErrors },
      },
    },
    async (request, reply) => {
      if (wantsStream(request)) return streamAnswer(request, reply, chat, s.logger);
      const answer = await chat.ask(authOf(request), request.params.id, request.body.message);
      return presentAnswer(answer);
    },
  );
}

function wantsStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/event-stream');
}

/**
 * Checks that can fail (session, access, credits) run before the stream opens, so they answer
 * as ordinary JSON errors; once streaming, a failure becomes an `error` event. A client that
 * disconnects aborts the generation, and nothing is stored or charged.
 */
async function streamAnswer(request: FastifyRequest<{ Params: { id: string }; Body: { message: string } }>, reply: FastifyReply, chat: ChatService, logger: Logger) {
  const prepared = await chat.prepareAsk(authOf(request), request.params.id, request.body.message);
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableEnded) controller.abort(new Error('the client went away'));
  };
  reply.raw.on('close', onClose);
  reply.hijack();
  reply.raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const send = (event: string, data: unknown) => reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  try {
    const answer = await chat.answer(prepared, {
      signal: controller.signal,
      onDelta: (content) => send('delta', { content }),
    });
    send('done', presentAnswer(answer));
  } catch (error) {
    if (controller.signal.aborted) return;
    if (error instanceof AppError) send('error', { error: error.error, code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) });
    else {
      logger.error({ err: error, reqId: request.id }, 'streamed chat answer failed');
      send('error', { error: 'internal_error', code: 'INTERNAL_ERROR', message: 'An internal error occurred' });
    }
  } finally {
    reply.raw.off('close', onClose);
    reply.raw.end();
  }
}
