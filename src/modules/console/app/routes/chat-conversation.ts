// What a chat beside a document and a chat across a folder share: asking with the answer streamed
// into the last turn, the log of turns with their sources, and the question box.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { client } from '../sdk.ts';
import { ErrorLine, h } from '../ui.ts';
import type { ChatTurn } from './chat-history.ts';

export type Citation = ChatTurn['citations'][number];

/**
 * The turns of a conversation and `ask`: it adds the question as a turn, gets the session from
 * `session` (made on the first question), and streams the answer and then its sources into it.
 */
export function useConversation() {
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [asking, setAsking] = useState(false);
  const ask = async (question: string, session: () => Promise<string>) => {
    setAsking(true);
    const turn: ChatTurn = { question, answer: '', citations: [] };
    setTurns((old) => [...old, turn]);
    const update = () => setTurns((old) => [...old.slice(0, -1), { ...turn }]);
    try {
      for await (const event of client().chat.stream(await session(), question)) {
        if (event.type === 'delta') turn.answer += event.content;
        else turn.citations = event.message.citations as Citation[];
        update();
      }
    } catch (error) {
      turn.error = error;
      update();
    } finally {
      setAsking(false);
    }
  };
  return { turns, setTurns, asking, ask };
}

/** The questions and answers, each answer's sources drawn by `source` (a page button, a link). */
export function ChatLog({
  turns,
  source,
}: {
  turns: ChatTurn[];
  source: (citation: Citation, n: number) => ComponentChildren;
}) {
  return h(
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
                h('li', { key: n }, source(c, n), ' ', h('span', { class: 'muted' }, c.text.slice(0, 160))),
              ),
            )
          : null,
        h(ErrorLine, { error: turn.error }),
      ),
    ),
  );
}

/** The question box: `onAsk` gets the trimmed question; the box empties as it is sent. */
export function QuestionForm({
  disabled,
  onAsk,
  describedBy,
}: {
  disabled: boolean;
  onAsk: (question: string) => void;
  describedBy?: string;
}) {
  const [question, setQuestion] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    const q = question.trim();
    if (!q) return;
    setQuestion('');
    onAsk(q);
  };
  return h(
    'form',
    { class: 'inline', onSubmit: submit },
    h('input', {
      value: question,
      required: true,
      disabled,
      'aria-label': t('chat.question'),
      placeholder: t('chat.question'),
      'aria-describedby': describedBy,
      onInput: (e: Event) => setQuestion((e.target as HTMLInputElement).value),
    }),
    h('button', { type: 'submit', class: 'primary', disabled }, t('chat.ask')),
  );
}
