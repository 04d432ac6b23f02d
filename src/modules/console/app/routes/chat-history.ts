// The chat's earlier conversations on a document (`GET /chat/sessions?document_id=`): listed newest
// first, one resumed with its messages, or deleted. In the document page's chunk.
import { t } from '../i18n.ts';
import { client } from '../sdk.ts';
import { ErrorLine, h } from '../ui.ts';
import { attempt, useLoad, when } from './account-ui.ts';

/** A question and its answer, as the chat shows them. */
export interface ChatTurn {
  question: string;
  answer: string;
  citations: { page?: number | null; text: string; document_id: string }[];
  error?: unknown;
}

const SHOWN = 20;

/** A session's messages as turns: each question with the answer that followed it. */
export async function turnsOf(sessionId: string): Promise<ChatTurn[]> {
  const turns: ChatTurn[] = [];
  for await (const m of client().paginate('listChatSessionMessages', {
    path: { id: sessionId },
    query: { page_size: 100 },
  })) {
    if (m.role === 'user') turns.push({ question: m.content, answer: '', citations: [] });
    else {
      const last = turns.at(-1);
      // An answer with no question before it (none is stored so, but say it rather than drop it).
      const turn =
        last && !last.answer ? last : (turns[turns.push({ question: '', answer: '', citations: [] }) - 1] as ChatTurn);
      turn.answer = m.content;
      turn.citations = m.citations ?? [];
    }
  }
  return turns;
}

export function ChatHistory({
  documentId,
  current,
  round,
  onOpen,
  onNew,
}: {
  documentId: string;
  current: string | null;
  /** Changes when a conversation was started or added to, to list again. */
  round: number;
  onOpen: (id: string) => void;
  onNew: () => void;
}) {
  const sessions = useLoad(
    () => client().call('listChatSessions', { query: { document_id: documentId, page_size: SHOWN } }),
    [documentId, round],
  );
  const rows = sessions.data?.data ?? [];
  const remove = (id: string, name: string) => {
    if (!confirm(t('chat.history.confirmDelete', { name }))) return;
    void attempt(() => client().call('deleteChatSession', { path: { id } }), sessions.setError).then((ok) => {
      if (!ok) return;
      if (id === current) onNew();
      sessions.reload();
    });
  };
  return h(
    'div',
    { class: 'chat-history' },
    h(
      'details',
      {},
      h('summary', {}, t('chat.history', { n: sessions.data?.total ?? 0 })),
      h(
        'ul',
        { class: 'list', 'aria-label': t('chat.history.list') },
        rows.map((s) =>
          h(
            'li',
            { key: s.id },
            h(
              'span',
              { class: 'member-info' },
              h('strong', { class: 'break' }, s.name),
              h(
                'span',
                { class: 'muted sub-line' },
                t('chat.history.line', { n: s.message_count, when: when(s.updated_at) }),
              ),
            ),
            s.id === current
              ? h('span', { class: 'badge ok' }, t('chat.history.current'))
              : h(
                  'button',
                  {
                    type: 'button',
                    class: 'small',
                    'aria-label': t('chat.history.resumeOf', { name: s.name }),
                    onClick: () => onOpen(s.id),
                  },
                  t('chat.history.resume'),
                ),
            h(
              'button',
              {
                type: 'button',
                class: 'small',
                'aria-label': t('chat.history.deleteOf', { name: s.name }),
                onClick: () => remove(s.id, s.name),
              },
              t('chat.history.delete'),
            ),
          ),
        ),
      ),
      (sessions.data?.total ?? 0) > SHOWN ? h('p', { class: 'muted' }, t('chat.history.more', { n: SHOWN })) : null,
    ),
    current ? h('button', { type: 'button', class: 'small', onClick: onNew }, t('chat.history.new')) : null,
    h(ErrorLine, { error: sessions.error }),
  );
}
