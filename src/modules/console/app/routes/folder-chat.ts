// "Ask about this folder" on the documents page: a chat session across the folder and its subfolders
// (`POST /chat/sessions {folder_id}`), or across every readable document at the top level
// (`{scope: "tenant"}`); the answer streams, and each source opens its document at the cited page.
import { useRef, useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { client } from '../sdk.ts';
import { ErrorLine, h, href } from '../ui.ts';
import type { ChatTurn } from './chat-history.ts';

/** `folderId` '' is the top level: the whole tenant. */
export function FolderChat({ folderId, folderName }: { folderId: string; folderName: string }) {
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [question, setQuestion] = useState('');
  const [asking, setAsking] = useState(false);
  // One conversation per folder shown: the documents page mounts this with the folder as its key.
  const session = useRef<string | null>(null);
  const ask = async (e: Event) => {
    e.preventDefault();
    const q = question.trim();
    if (!q) return;
    setQuestion('');
    setAsking(true);
    const turn: ChatTurn = { question: q, answer: '', citations: [] };
    setTurns((old) => [...old, turn]);
    const update = () => setTurns((old) => [...old.slice(0, -1), { ...turn }]);
    try {
      if (!session.current) {
        const body = folderId
          ? { folder_id: folderId, name: t('folderChat.session', { name: folderName }).slice(0, 200) }
          : { scope: 'tenant' as const, name: t('folderChat.sessionAll') };
        session.current = (await client().call('createChatSession', { body })).id;
      }
      for await (const event of client().chat.stream(session.current, q)) {
        if (event.type === 'delta') turn.answer += event.content;
        else turn.citations = event.message.citations as ChatTurn['citations'];
        update();
      }
    } catch (error) {
      turn.error = error;
      update();
    } finally {
      setAsking(false);
    }
  };
  return h(
    'details',
    { class: 'folder-chat' },
    h('summary', {}, t(folderId ? 'folderChat.open' : 'folderChat.openAll')),
    h('p', { class: 'muted' }, t(folderId ? 'folderChat.hint' : 'folderChat.hintAll')),
    h(
      'div',
      { class: 'chat-log', 'aria-live': 'polite' },
      turns.map((turn, i) =>
        h(
          'div',
          { key: i },
          h('p', { class: 'chat-q' }, h('span', { class: 'visually-hidden' }, `${t('chat.you')}: `), turn.question),
          turn.answer ? h('p', { class: 'chat-a' }, turn.answer) : null,
          turn.citations.length
            ? h(
                'ol',
                { class: 'citations', 'aria-label': t('chat.sources') },
                turn.citations.map((c, n) =>
                  h(
                    'li',
                    { key: n },
                    h(
                      'a',
                      {
                        class: 'button small',
                        href: href('document', c.document_id, c.page ? { page: String(c.page) } : {}),
                      },
                      c.page
                        ? t('folderChat.sourcePage', { n: n + 1, page: c.page })
                        : t('folderChat.source', { n: n + 1 }),
                    ),
                    ' ',
                    h('span', { class: 'muted' }, c.text.slice(0, 160)),
                  ),
                ),
              )
            : null,
          h(ErrorLine, { error: turn.error }),
        ),
      ),
    ),
    h(
      'form',
      { class: 'inline', onSubmit: ask },
      h('input', {
        value: question,
        required: true,
        disabled: asking,
        'aria-label': t('chat.question'),
        placeholder: t('chat.question'),
        onInput: (e: Event) => setQuestion((e.target as HTMLInputElement).value),
      }),
      h('button', { type: 'submit', class: 'primary', disabled: asking }, t('chat.ask')),
    ),
  );
}
