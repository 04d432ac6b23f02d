import type { ApiCaller } from './api-caller.ts';
import { errorFromBody } from './errors.ts';
import type { ErrorBody } from './generated/api-types.ts';
import type { ChatAnswer } from './operation-types.ts';
import { readServerSentEvents } from './sse.ts';

/** A streamed answer: text as it is written, then the stored message with its citations. */
export type ChatStreamEvent = { type: 'delta'; content: string } | { type: 'done'; message: ChatAnswer };

// The error event carries the contract body but no status: give it the status its code answers with.
const STATUS_OF: Record<string, number> = {
  insufficient_credits: 402,
  not_found: 404,
  rate_limit_exceeded: 429,
  forbidden: 403,
  validation_error: 400,
};

/** Chat on a document: one answer, or the answer streamed as it is written. */
export class ChatApi {
  readonly #client: ApiCaller;

  constructor(client: ApiCaller) {
    this.#client = client;
  }

  /** Opens a chat session on a document. */
  createSession(documentId: string, name: string) {
    return this.#client.call('createChatSession', { body: { document_id: documentId, name } });
  }

  /** Asks and waits for the whole answer. */
  ask(sessionId: string, message: string): Promise<ChatAnswer> {
    return this.#client.call('askChatSession', { path: { id: sessionId }, body: { message } });
  }

  /** Asks and yields the answer as it streams (server-sent events); breaking out of the loop stops the answer. */
  async *stream(
    sessionId: string,
    message: string,
    options: { signal?: AbortSignal } = {},
  ): AsyncGenerator<ChatStreamEvent> {
    const controller = new AbortController();
    options.signal?.addEventListener('abort', () => controller.abort(options.signal?.reason), { once: true });
    const res = await this.#client.send('askChatSession', {
      path: { id: sessionId },
      body: { message },
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    if (!res.body) return;
    try {
      for await (const event of readServerSentEvents(res.body)) {
        const data = JSON.parse(event.data);
        if (event.event === 'delta') yield { type: 'delta', content: String(data.content) };
        else if (event.event === 'done') yield { type: 'done', message: data as ChatAnswer };
        else if (event.event === 'error')
          throw errorFromBody(STATUS_OF[(data as ErrorBody).error] ?? 500, data as ErrorBody, {
            requestId: res.headers.get('x-request-id') ?? undefined,
          });
      }
    } finally {
      controller.abort();
    }
  }
}
