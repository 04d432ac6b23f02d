import { defineModule } from '../../platform/module.ts';
import { CHAT_EVENTS } from './chat.events.ts';
import { ChatRepository } from './chat.repository.ts';
import { chatRoutes } from './chat.routes.ts';
import { ChatService } from './chat.service.ts';

export { presentCitation } from './chat.presenter.ts';
export type { ChatMessage, Citation } from './chat.repository.ts';
export type { ChatService } from './chat.service.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** Conversations about documents: sessions, questions answered with citations. */
    chat: ChatService;
  }
}

/** Chat: sessions on a document, answers from its passages with citations, streamed or whole. */
export const chatModule = defineModule({
  name: 'chat',
  setup({ database, clock, logger, events, use }) {
    const chat = new ChatService({
      database,
      clock,
      events,
      chat: new ChatRepository(),
      access: use('documentAccess'),
      versions: use('documentVersions'),
      passages: use('passages'),
      credits: use('credits'),
      ai: use('ai'),
      audit: use('audit'),
      folders: use('folders'),
      retrieval: use('documentRetrieval'),
    });
    return {
      eventSchemas: CHAT_EVENTS,
      provides: { chat },
      routes: (app) => chatRoutes(app, { chat, logger }),
      async sandboxCleanup(trx, tenantId) {
        await trx.deleteFrom('chat_messages').where('tenant_id', '=', tenantId).execute();
        await trx.deleteFrom('chat_sessions').where('tenant_id', '=', tenantId).execute();
      },
    };
  },
});
