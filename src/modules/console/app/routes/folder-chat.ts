// "Ask about this folder" on the documents page: a chat session across the folder and its subfolders
// (`POST /chat/sessions {folder_id}`), or across every readable document at the top level
// (`{scope: "tenant"}`); the answer streams, and each source opens its document at the cited page.
import { useRef } from 'preact/hooks';
import { t } from '../i18n.ts';
import { client } from '../sdk.ts';
import { h, href } from '../ui.ts';
import { ChatLog, QuestionForm, useConversation } from './chat-conversation.ts';

/** `folderId` '' is the top level: the whole tenant. */
export function FolderChat({ folderId, folderName }: { folderId: string; folderName: string }) {
  const { turns, asking, ask } = useConversation();
  // One conversation per folder shown: the documents page mounts this with the folder as its key.
  const session = useRef<string | null>(null);
  const sessionId = async () => {
    if (!session.current) {
      const body = folderId
        ? { folder_id: folderId, name: t('folderChat.session', { name: folderName }).slice(0, 200) }
        : { scope: 'tenant' as const, name: t('folderChat.sessionAll') };
      session.current = (await client().call('createChatSession', { body })).id;
    }
    return session.current;
  };
  return h(
    'details',
    { class: 'folder-chat' },
    h('summary', {}, t(folderId ? 'folderChat.open' : 'folderChat.openAll')),
    h('p', { class: 'muted' }, t(folderId ? 'folderChat.hint' : 'folderChat.hintAll')),
    h(ChatLog, {
      turns,
      source: (c, n) =>
        h(
          'a',
          { class: 'button small', href: href('document', c.document_id, c.page ? { page: String(c.page) } : {}) },
          c.page ? t('folderChat.sourcePage', { n: n + 1, page: c.page }) : t('folderChat.source', { n: n + 1 }),
        ),
    }),
    h(QuestionForm, { disabled: asking, onAsk: (q: string) => void ask(q, sessionId) }),
  );
}
