// One document: preview (thumbnail, the PDF's pages in the browser's own viewer), processing state
// that follows the work live, summary, tags, entities, text, shares and chat.
import { type Answer, askStreaming, blobUrl, call, send } from './api.ts';
import { sharesPanel } from './shares.ts';
import { actionButton, errorLine, formatBytes, h, rerender, show } from './views.ts';

type Doc = Answer<'getDocument'>;

const busy = (d: Doc) =>
  d.status === 'processing' || d.status === 'pending' || ['queued', 'processing', 'pending'].includes(d.ai_status);

export async function documentView(id: string): Promise<void> {
  const path = `/api/v1/documents/${encodeURIComponent(id)}`;
  const doc = await call('getDocument', 'GET', path);
  const content =
    doc.status === 'completed' ? await call('getDocumentContent', 'GET', `${path}/content`).catch(() => null) : null;
  const state = h('p', { role: 'status' }, stateLine(doc));
  show(
    h('h2', {}, doc.filename),
    h(
      'div',
      { class: 'doc' },
      preview(doc, path),
      h(
        'section',
        { 'aria-label': 'Details' },
        state,
        h('p', {}, `${formatBytes(doc.file_size)} · ${doc.file_type}`),
        doc.ai_summary && h('p', {}, h('strong', {}, 'Summary: '), doc.ai_summary),
        h(
          'p',
          {},
          `Tags: ${doc.tags.join(', ') || '–'} · AI tags: ${doc.ai_tags.join(', ') || '–'} `,
          actionButton('Apply AI tags', () => send('POST', `${path}/apply-ai-tags`).then(rerender)),
        ),
        doc.entities &&
          h(
            'p',
            {},
            `People: ${doc.entities.people.join(', ') || '–'} · Organisations: ${doc.entities.organizations.join(', ') || '–'} · Dates: ${doc.entities.dates.join(', ') || '–'}`,
          ),
        doc.entities &&
          h(
            'p',
            {},
            `Places: ${doc.entities.locations.join(', ') || '–'} · Amounts: ${doc.entities.amounts.map((a) => a.text).join(', ') || '–'}`,
          ),
        keyFields(doc),
        doc.ai_review && h('p', {}, h('strong', {}, 'Waiting for review: '), doc.ai_review.pending.join(', ')),
      ),
    ),
    chatPanel(id, doc.status === 'completed'),
    sharesPanel(id),
    content &&
      h(
        'details',
        {},
        h('summary', {}, `Text content (${content.length} characters)`),
        h('pre', { class: 'content' }, content.content.slice(0, 50_000)),
      ),
  );
  if (busy(doc)) follow(id, path, state);
}

/** The AI's document type and key fields, read-only, each with its confidence. */
function keyFields(doc: Doc): HTMLElement | null {
  if (!doc.ai_document_type) return null;
  const percent = (c: number | null, confirmed?: boolean) =>
    confirmed ? ' (confirmed)' : c === null ? '' : ` (${Math.round(c * 100)} %)`;
  const shown = (v: Doc['ai_fields'][string]['value']): string =>
    typeof v === 'string'
      ? v
      : Array.isArray(v)
        ? v.join(', ')
        : 'currency' in v
          ? `${v.currency} ${v.value.toLocaleString()}${v.period ? ` a ${v.period}` : ''}`
          : v.text;
  const rows = Object.entries(doc.ai_fields).map(([name, f]) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, name.replace(/_/g, ' ')),
      h('td', {}, `${shown(f.value)}${percent(f.confidence, f.confirmed)}`),
    ),
  );
  return h(
    'section',
    { 'aria-label': 'Document type and key fields' },
    h(
      'p',
      {},
      h('strong', {}, 'Type: '),
      `${doc.ai_document_type.value.replace(/_/g, ' ')}${percent(doc.ai_document_type.confidence, doc.ai_document_type.confirmed)}`,
    ),
    rows.length > 0 ? h('table', { class: 'fields' }, h('tbody', {}, ...rows)) : null,
  );
}

function stateLine(doc: Doc): string {
  return `Processing: ${doc.status} · AI: ${doc.ai_status}`;
}

/** Live processing state: polls the state line while the work goes on, then draws the finished view. */
function follow(id: string, path: string, state: HTMLElement): void {
  const tick = async () => {
    if (!location.hash.endsWith(id) || !state.isConnected) return;
    const doc = await call('getDocument', 'GET', path);
    state.textContent = stateLine(doc);
    if (busy(doc)) setTimeout(tick, 1000);
    else rerender();
  };
  setTimeout(tick, 1000);
}

/** The thumbnail in a box of fixed size (no shift when it arrives); a PDF's pages on request. */
function preview(doc: Doc, path: string): HTMLElement {
  const img = h('img', {
    alt: `Preview of ${doc.filename}`,
    width: 160,
    height: 208,
    class: 'thumb',
  }) as HTMLImageElement;
  void blobUrl(`${path}/thumbnail`)
    .then((url) => {
      img.src = url;
    })
    .catch(() => img.replaceWith(h('div', { class: 'thumb' }, 'No preview')));
  const box = h('figure', { class: 'preview' }, img);
  if (doc.file_type === 'application/pdf') {
    box.append(
      actionButton('Show pages', async () => {
        const frame = h('iframe', {
          title: `Pages of ${doc.filename}`,
          class: 'pages',
          src: await blobUrl(`${path}/download`),
        });
        box.replaceWith(h('figure', { class: 'preview wide-preview' }, frame));
      }),
    );
  }
  return box;
}

/** Questions wait for the document: until it is completed the API answers 409 `document_not_ready`, so Ask is off. */
function chatPanel(documentId: string, ready: boolean): HTMLElement {
  const log = h('div', { class: 'chat-log', 'aria-live': 'polite', 'aria-label': 'Chat' });
  const off = ready ? {} : { disabled: true, 'aria-describedby': 'chat-wait' };
  const form = h(
    'form',
    { class: 'inline', onsubmit: (e: Event) => void ask(e, documentId, log) },
    h('label', { for: 'question' }, 'Ask about this document '),
    h('input', { id: 'question', name: 'question', required: true, ...off }),
    h('button', { type: 'submit', ...off }, 'Ask'),
  );
  const wait = ready ? null : h('p', { id: 'chat-wait' }, 'Questions can be asked once processing is completed.');
  return h('section', { 'aria-labelledby': 'chat-title' }, h('h3', { id: 'chat-title' }, 'Chat'), form, wait, log);
}

async function ask(event: Event, documentId: string, log: HTMLElement): Promise<void> {
  event.preventDefault();
  const input = (event.target as HTMLFormElement).elements.namedItem('question') as HTMLInputElement;
  const question = input.value;
  input.value = '';
  const answer = h('p', { class: 'answer' });
  log.append(h('p', {}, h('strong', {}, 'You: '), question), answer);
  try {
    const session = await call('createChatSession', 'POST', '/api/v1/chat/sessions', {
      document_id: documentId,
      name: question.slice(0, 100),
    });
    const done = await askStreaming(session.id, question, (text) => answer.append(text));
    const cite = (c: (typeof done.citations)[number], i: number) =>
      h(
        'li',
        {},
        h(
          'a',
          { href: `#/document/${c.document_id}`, 'aria-label': `Source ${i + 1}${c.page ? `, page ${c.page}` : ''}` },
          c.page ? `p. ${c.page}` : 'source',
        ),
        ': ',
        c.text.slice(0, 200),
      );
    log.append(h('ol', { class: 'citations', 'aria-label': 'Sources' }, ...done.citations.map(cite)));
  } catch (error) {
    log.append(errorLine(error));
  }
}
