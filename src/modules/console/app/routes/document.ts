// One document: its preview (PDF pages through pdf.js, images, text, audio and video), details,
// editable tags, entities by type, shares, the extracted text with find-in-text, the actions
// (download, rename, move, reprocess, delete), processing followed live, and chat beside it whose
// citations turn the preview to the cited page.
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatBytes, formatDate, stateWord, t } from '../i18n.ts';
import { client } from '../sdk.ts';
import { type Doc, ErrorLine, type Folder, h, href, type ViewProps } from '../ui.ts';
import { ChatLog, QuestionForm, useConversation } from './chat-conversation.ts';
import { ChatHistory, turnsOf } from './chat-history.ts';
import { DocumentRecords } from './document-records.ts';
import { StateBadge } from './documents.ts';
import { useListedUsers } from './people.ts';

const busy = (d: Doc) =>
  d.status === 'processing' || d.status === 'pending' || ['queued', 'processing', 'pending'].includes(d.ai_status);

export default function DocumentPage({ route, me }: ViewProps) {
  const id = route.arg;
  const [doc, setDoc] = useState<Doc | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [page, setPage] = useState(Number(route.params.get('page') ?? 1) || 1);
  // The passage a citation names, marked on its page of the preview.
  const [cited, setCited] = useState<Cited | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () =>
      client()
        .call('getDocument', { path: { id } })
        .then((d) => {
          if (!live) return;
          setDoc(d);
          if (busy(d)) timer = setTimeout(tick, 1000);
        })
        .catch((e) => live && setError(e));
    void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, version]);
  if (error) return h(ErrorLine, { error });
  if (!doc) return h('p', { class: 'muted', role: 'status' }, t('loading'));
  const reload = () => setVersion((v) => v + 1);
  return h(
    'article',
    { 'aria-labelledby': 'doc-title' },
    h(
      'div',
      { class: 'doc-head' },
      h(
        'div',
        {},
        h('a', { href: href('documents', doc.folder_id ?? '') }, `← ${t('doc.back')}`),
        h('h1', { id: 'doc-title' }, doc.filename),
      ),
      h(
        'div',
        { role: 'status', 'aria-live': 'polite' },
        h(StateBadge, { status: doc.status, ai: doc.ai_status }),
        h(Progress, { doc }),
      ),
    ),
    h(Actions, { doc, canEdit: me.role !== 'viewer', onChange: (d) => (d ? setDoc(d) : reload()) }),
    h(
      'div',
      { class: 'doc-page' },
      h('div', { class: 'side' }, h(Preview, { doc, page, setPage, cited }), h(TextContent, { doc })),
      h(
        'div',
        { class: 'side' },
        h(Chat, {
          doc,
          openPage: (n: number, text?: string) => {
            setPage(n);
            setCited(text ? { page: n, text } : null);
          },
        }),
        h(Details, { doc }),
        h(Tags, { doc, onChange: setDoc }),
        h(Entities, { doc }),
        h(Shares, { id: doc.id }),
        h(DocumentRecords, { doc, me, onChange: reload }),
      ),
    ),
  );
}

function Actions({ doc, canEdit, onChange }: { doc: Doc; canEdit: boolean; onChange: (d: Doc | null) => void }) {
  const [mode, setMode] = useState<'' | 'rename' | 'move'>('');
  const [error, setError] = useState<unknown>(null);
  const [folders, setFolders] = useState<Folder[]>([]);
  const act = (work: Promise<unknown>) => {
    setError(null);
    return work.catch((e) => {
      setError(e);
      throw e;
    });
  };
  const download = async () => {
    const res = (await act(client().documents.download(doc.id))) as Response;
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = doc.filename;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  const save = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const body =
      mode === 'rename'
        ? { filename: String(data.get('filename')) }
        : { folder_id: String(data.get('folder')) || null };
    void act(client().call('updateDocument', { path: { id: doc.id }, body })).then(() => {
      setMode('');
      onChange(null);
    });
  };
  useEffect(() => {
    if (mode === 'move')
      void client()
        .call('listFolders')
        .then((a) => setFolders(a.folders), setError);
  }, [mode]);
  const remove = () => {
    if (!confirm(t('doc.confirmDelete', { name: doc.filename }))) return;
    void act(client().call('deleteDocument', { path: { id: doc.id } })).then(() => {
      location.hash = href('documents', doc.folder_id ?? '');
    });
  };
  return h(
    'div',
    { class: 'card', style: { marginBottom: 'var(--space)' } },
    h(
      'div',
      { class: 'actions', role: 'group', 'aria-label': t('doc.details') },
      h(
        'button',
        { type: 'button', class: 'primary', onClick: () => void download().catch(() => undefined) },
        t('doc.download'),
      ),
      canEdit
        ? h(
            'button',
            {
              type: 'button',
              'aria-expanded': mode === 'rename' ? 'true' : 'false',
              onClick: () => setMode(mode === 'rename' ? '' : 'rename'),
            },
            t('doc.rename'),
          )
        : null,
      canEdit
        ? h(
            'button',
            {
              type: 'button',
              'aria-expanded': mode === 'move' ? 'true' : 'false',
              onClick: () => setMode(mode === 'move' ? '' : 'move'),
            },
            t('doc.move'),
          )
        : null,
      canEdit
        ? h(
            'button',
            {
              type: 'button',
              disabled: busy(doc),
              onClick: () =>
                void act(client().call('reprocessDocument', { path: { id: doc.id } })).then(
                  () => onChange(null),
                  () => undefined,
                ),
            },
            t('doc.reprocess'),
          )
        : null,
      canEdit ? h('button', { type: 'button', class: 'danger', onClick: remove }, t('doc.delete')) : null,
    ),
    mode === 'rename'
      ? h(
          'form',
          { class: 'inline', onSubmit: save, style: { marginTop: '0.5rem' } },
          h(
            'label',
            { class: 'field inline' },
            h('span', {}, t('doc.newName')),
            h('input', { name: 'filename', required: true, defaultValue: doc.filename }),
          ),
          h('button', { type: 'submit' }, t('doc.save')),
          h('button', { type: 'button', class: 'ghost', onClick: () => setMode('') }, t('doc.cancel')),
        )
      : null,
    mode === 'move'
      ? h(
          'form',
          { class: 'inline', onSubmit: save, style: { marginTop: '0.5rem' } },
          h(
            'label',
            { class: 'field inline' },
            h('span', {}, t('doc.moveTo')),
            h(
              'select',
              { name: 'folder' },
              h('option', { value: '', selected: !doc.folder_id }, t('docs.top')),
              folders.map((f) => h('option', { key: f.id, value: f.id, selected: f.id === doc.folder_id }, f.name)),
            ),
          ),
          h('button', { type: 'submit' }, t('doc.save')),
          h('button', { type: 'button', class: 'ghost', onClick: () => setMode('') }, t('doc.cancel')),
        )
      : null,
    h(ErrorLine, { error }),
  );
}

/** The original, drawn by type: PDF pages (pdf.js), images, text, audio and video; else a note. */
/** A cited passage and its page. */
interface Cited {
  page: number;
  text: string;
}

function Preview({
  doc,
  page,
  setPage,
  cited,
}: {
  doc: Doc;
  page: number;
  setPage: (n: number) => void;
  cited: Cited | null;
}) {
  const [url, setUrl] = useState<string | null>(null);
  const [bytes, setBytes] = useState<ArrayBuffer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const type = doc.file_type;
  const kind =
    type === 'application/pdf'
      ? 'pdf'
      : type.startsWith('image/')
        ? 'image'
        : type.startsWith('audio/')
          ? 'audio'
          : type.startsWith('video/')
            ? 'video'
            : type.startsWith('text/')
              ? 'text'
              : 'none';
  useEffect(() => {
    if (kind === 'none' || kind === 'text') return;
    let live = true;
    let made: string | null = null;
    client()
      .documents.download(doc.id)
      .then(async (res) => {
        if (kind === 'pdf') {
          const data = await res.arrayBuffer();
          if (live) setBytes(data);
        } else {
          made = URL.createObjectURL(await res.blob());
          if (live) setUrl(made);
        }
      })
      .catch((e) => live && setError(e));
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [doc.id, kind]);
  const body =
    kind === 'pdf'
      ? bytes
        ? h(PdfPages, { data: bytes, name: doc.filename, page, setPage, cited })
        : h('p', { class: 'muted', role: 'status' }, t('loading'))
      : kind === 'image'
        ? url && h('img', { src: url, alt: t('doc.previewOf', { name: doc.filename }) })
        : kind === 'audio'
          ? url && h('audio', { src: url, controls: true, 'aria-label': t('doc.previewOf', { name: doc.filename }) })
          : kind === 'video'
            ? url && h('video', { src: url, controls: true, 'aria-label': t('doc.previewOf', { name: doc.filename }) })
            : h('p', { class: 'muted' }, t('doc.noPreview'));
  // A text file's preview is its text, shown with find-in-text below.
  if (kind === 'text') return null;
  return h(
    'section',
    { class: 'card preview', 'aria-labelledby': 'preview-title' },
    h('h2', { id: 'preview-title', class: 'card-title' }, t('doc.preview')),
    h(ErrorLine, { error }),
    body,
  );
}

function PdfPages({
  data,
  name,
  page,
  setPage,
  cited,
}: {
  data: ArrayBuffer;
  name: string;
  page: number;
  setPage: (n: number) => void;
  cited: Cited | null;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [marks, setMarks] = useState<{ page: number; boxes: import('../pdf.ts').Box[] } | null>(null);
  const [pdf, setPdf] = useState<import('pdfjs-dist').PDFDocumentProxy | null>(null);
  const [error, setError] = useState<unknown>(null);
  const lib = useMemo(() => import('../pdf.ts'), []);
  useEffect(() => {
    let live = true;
    void lib
      .then((m) => m.openPdf(data.slice(0)))
      .then(
        (p) => live && setPdf(p),
        (e) => live && setError(e),
      );
    return () => {
      live = false;
    };
  }, [data]);
  const total = pdf?.numPages ?? 0;
  const shown = Math.min(Math.max(page, 1), Math.max(total, 1));
  const passage = cited && cited.page === shown ? cited.text : null;
  useEffect(() => {
    if (!pdf || !canvas.current) return;
    // The box around the drawn page sets its width (the page's own box is as wide as the canvas).
    const width = Math.min(canvas.current.parentElement?.parentElement?.clientWidth ?? 700, 900);
    setMarks(null);
    void lib
      .then(async (m) => {
        await m.drawPage(pdf, shown, canvas.current as HTMLCanvasElement, width);
        if (passage) setMarks({ page: shown, boxes: await m.passageBoxes(pdf, shown, width, passage) });
      })
      .catch(setError);
  }, [pdf, shown, passage]);
  if (error) return h(ErrorLine, { error });
  return h(
    'div',
    {},
    h(
      'div',
      { class: 'pdf-page' },
      h('canvas', {
        ref: canvas,
        role: 'img',
        'aria-label': `${t('doc.previewOf', { name })}: ${t('doc.page', { n: shown, total })}`,
      }),
      marks?.boxes.map((b, i) =>
        h('span', {
          key: i,
          class: 'pdf-mark',
          'aria-hidden': 'true',
          style: { left: `${b.left}px`, top: `${b.top}px`, width: `${b.width}px`, height: `${b.height}px` },
        }),
      ),
    ),
    passage && marks
      ? h(
          'p',
          { class: 'muted', role: 'status' },
          marks.boxes.length
            ? t('chat.cited.marked', { page: marks.page })
            : t('chat.cited.notFound', { page: marks.page }),
        )
      : null,
    total > 0
      ? h(
          'div',
          { class: 'pager' },
          h('button', { type: 'button', disabled: shown <= 1, onClick: () => setPage(shown - 1) }, t('doc.prevPage')),
          h('span', { role: 'status' }, t('doc.page', { n: shown, total })),
          h(
            'button',
            { type: 'button', disabled: shown >= total, onClick: () => setPage(shown + 1) },
            t('doc.nextPage'),
          ),
        )
      : null,
  );
}

function Details({ doc }: { doc: Doc }) {
  const percent = (c: number | null, confirmed?: boolean) =>
    confirmed ? ' ✓' : c === null ? '' : ` (${Math.round(c * 100)} %)`;
  const shown = (v: Doc['ai_fields'][string]['value']): string =>
    typeof v === 'string'
      ? v
      : Array.isArray(v)
        ? v.join(', ')
        : 'currency' in v
          ? `${v.currency} ${v.value.toLocaleString()}${v.period ? ` / ${v.period}` : ''}`
          : v.text;
  const fields = Object.entries(doc.ai_fields ?? {});
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'details-title' },
    h('h2', { id: 'details-title', class: 'card-title' }, t('doc.details')),
    h(
      'p',
      { class: 'muted' },
      t('doc.meta', { size: formatBytes(doc.file_size), type: doc.file_type, date: formatDate(doc.created_at) }),
    ),
    doc.ai_summary ? h('div', {}, h('h3', {}, t('doc.summary')), h('p', {}, doc.ai_summary)) : null,
    doc.ai_document_type
      ? h(
          'p',
          {},
          h('strong', {}, `${t('doc.type')}: `),
          stateWord(doc.ai_document_type.value),
          percent(doc.ai_document_type.confidence, doc.ai_document_type.confirmed),
        )
      : null,
    fields.length
      ? h(
          'table',
          { class: 'fields', 'aria-label': t('doc.fields') },
          h(
            'tbody',
            {},
            fields.map(([name, f]) =>
              h(
                'tr',
                { key: name },
                h('th', { scope: 'row' }, name.replace(/_/g, ' ')),
                h('td', {}, shown(f.value), percent(f.confidence, f.confirmed)),
              ),
            ),
          ),
        )
      : null,
  );
}

function Tags({ doc, onChange }: { doc: Doc; onChange: (d: Doc) => void }) {
  const [error, setError] = useState<unknown>(null);
  const [value, setValue] = useState('');
  const save = (tags: string[]) => {
    setError(null);
    client()
      .call('updateDocument', { path: { id: doc.id }, body: { tags } })
      .then(() => client().call('getDocument', { path: { id: doc.id } }))
      .then(onChange, setError);
  };
  const suggested = doc.ai_tags.filter((tag) => !doc.tags.includes(tag));
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'tags-title' },
    h('h2', { id: 'tags-title', class: 'card-title' }, t('doc.tags')),
    h(
      'ul',
      { class: 'chips' },
      doc.tags.map((tag) =>
        h(
          'li',
          { key: tag, class: 'chip' },
          tag,
          h(
            'button',
            {
              type: 'button',
              'aria-label': t('doc.tagRemove', { tag }),
              onClick: () => save(doc.tags.filter((x) => x !== tag)),
            },
            '×',
          ),
        ),
      ),
    ),
    h(
      'form',
      {
        class: 'inline',
        onSubmit: (e: Event) => {
          e.preventDefault();
          const tag = value.trim();
          if (tag && !doc.tags.includes(tag)) save([...doc.tags, tag]);
          setValue('');
        },
      },
      h('input', {
        value,
        'aria-label': t('doc.tagAdd'),
        placeholder: t('doc.tagAdd'),
        onInput: (e: Event) => setValue((e.target as HTMLInputElement).value),
      }),
      h('button', { type: 'submit' }, '+'),
    ),
    suggested.length
      ? h(
          'div',
          {},
          h('h3', {}, t('doc.aiTags')),
          h(
            'ul',
            { class: 'chips' },
            suggested.map((tag) => h('li', { key: tag, class: 'chip suggested' }, tag)),
          ),
          h(
            'button',
            {
              type: 'button',
              onClick: () =>
                client()
                  .call('applyDocumentAiTags', { path: { id: doc.id } })
                  .then(() => client().call('getDocument', { path: { id: doc.id } }))
                  .then(onChange, setError),
            },
            t('doc.applyAi'),
          ),
        )
      : null,
    h(ErrorLine, { error }),
  );
}

function Entities({ doc }: { doc: Doc }) {
  const e = doc.entities;
  if (!e) return null;
  const groups: [string, string[]][] = [
    [t('doc.entity.people'), e.people],
    [t('doc.entity.organizations'), e.organizations],
    [t('doc.entity.locations'), e.locations],
    [t('doc.entity.dates'), e.dates],
    [t('doc.entity.amounts'), e.amounts.map((a) => a.text)],
  ];
  const present = groups.filter(([, values]) => values.length > 0);
  if (present.length === 0) return null;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'entities-title' },
    h('h2', { id: 'entities-title', class: 'card-title' }, t('doc.entities')),
    h(
      'dl',
      { class: 'entities' },
      present.flatMap(([label, values]) => [
        h('dt', { key: `t-${label}` }, label),
        h('dd', { key: `d-${label}` }, values.join(', ')),
      ]),
    ),
  );
}

const STAGES = ['queued', 'extraction', 'transcription', 'enrichment', 'embedding'];

/** While processing: the stage, and pages read of total while a scan is OCR'd (`processing_progress`). */
function Progress({ doc }: { doc: Doc }) {
  const p = doc.processing_progress;
  if (!p) return null;
  const stage = STAGES.includes(p.stage) ? t(`progress.${p.stage}` as 'progress.queued') : p.stage;
  const paged = p.pages_total !== null && p.pages_done !== null && p.pages_total > 0;
  return h(
    'div',
    { class: 'progress-line' },
    h('span', {}, stage),
    paged
      ? h(
          'span',
          { class: 'pages' },
          ' · ',
          t('progress.pages', { done: p.pages_done ?? 0, total: p.pages_total ?? 0 }),
          h('progress', { max: p.pages_total, value: p.pages_done, 'aria-label': t('progress.label') }),
        )
      : null,
  );
}

/** Who the document is shared with: add a person with a permission, remove a share. */
function Shares({ id }: { id: string }) {
  const [shares, setShares] = useState<import('../sdk.ts').OperationResponse<'listDocumentShares'>['shares'] | null>(
    null,
  );
  const users = useListedUsers();
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    void client()
      .call('listDocumentShares', { path: { id } })
      .then((a) => setShares(a.shares), setError);
  useEffect(load, [id]);
  const add = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const permission = String(data.get('permission')) as 'view' | 'edit' | 'admin';
    setError(null);
    client()
      .call('shareDocument', { path: { id }, body: { user_id: String(data.get('user')), permission } })
      .then(load, setError);
  };
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'shares-title' },
    h('h2', { id: 'shares-title', class: 'card-title' }, t('doc.shares')),
    shares && shares.length === 0 ? h('p', { class: 'muted' }, t('doc.noShares')) : null,
    h(
      'ul',
      { class: 'list' },
      (shares ?? []).map((s) => {
        const who = s.user_name ?? s.workspace_name ?? s.user_id ?? s.workspace_id ?? '';
        return h(
          'li',
          { key: s.share_id },
          h('span', {}, `${who}: ${t(`share.${s.permission}` as 'share.view')}`),
          h(
            'button',
            {
              type: 'button',
              class: 'small',
              'aria-label': t('doc.shareRemove', { who }),
              onClick: () =>
                void client()
                  .call('deleteDocumentShare', { path: { id, share_id: s.share_id } })
                  .then(load, setError),
            },
            '×',
          ),
        );
      }),
    ),
    users.length
      ? h(
          'form',
          { class: 'inline', onSubmit: add, style: { marginTop: '0.5rem' } },
          h('label', { for: 'share-user' }, t('share.with')),
          h(
            'select',
            { id: 'share-user', name: 'user', required: true },
            users.map((u) => h('option', { key: u.id, value: u.id }, `${u.name} <${u.email}>`)),
          ),
          h('label', { for: 'share-permission' }, t('share.as')),
          h(
            'select',
            { id: 'share-permission', name: 'permission' },
            (['view', 'edit', 'admin'] as const).map((p) => h('option', { key: p, value: p }, t(`share.${p}`))),
          ),
          h('button', { type: 'submit' }, t('share.submit')),
        )
      : null,
    h(ErrorLine, { error }),
  );
}

/** The extracted text, with find-in-text: every match marked, the count said. */
function TextContent({ doc }: { doc: Doc }) {
  const [text, setText] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (doc.status !== 'completed') return;
    client()
      .call('getDocumentContent', { path: { id: doc.id } })
      .then((a) => setText(a.content), setError);
  }, [doc.id, doc.status]);
  if (doc.status !== 'completed') return null;
  const parts: ComponentChildren[] = [];
  let matches = 0;
  const shown = (text ?? '').slice(0, 100_000);
  if (query.trim().length > 1) {
    const lower = shown.toLowerCase();
    const needle = query.trim().toLowerCase();
    let at = 0;
    for (let i = lower.indexOf(needle); i >= 0 && matches < 1000; i = lower.indexOf(needle, i + needle.length)) {
      parts.push(shown.slice(at, i), h('mark', { key: i }, shown.slice(i, i + needle.length)));
      at = i + needle.length;
      matches++;
    }
    parts.push(shown.slice(at));
  } else parts.push(shown);
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'text-title' },
    h('h2', { id: 'text-title', class: 'card-title' }, t('doc.text')),
    h(
      'div',
      { class: 'row' },
      h('input', {
        type: 'search',
        value: query,
        'aria-label': t('doc.findInText'),
        placeholder: t('doc.findInText'),
        onInput: (e: Event) => setQuery((e.target as HTMLInputElement).value),
      }),
      query.trim().length > 1 ? h('span', { role: 'status' }, t('doc.matches', { n: matches })) : null,
    ),
    h(ErrorLine, { error }),
    text === null
      ? null
      : h('div', { class: 'text-content', tabIndex: 0, role: 'region', 'aria-label': t('doc.text') }, parts),
  );
}

/** Chat beside the document: the answer streamed as it is written; a citation turns the preview to its page. */
function Chat({ doc, openPage }: { doc: Doc; openPage: (n: number, text?: string) => void }) {
  const ready = doc.status === 'completed';
  const { turns, setTurns, asking, ask } = useConversation();
  const [error, setError] = useState<unknown>(null);
  const session = useRef<string | null>(null);
  const [current, setCurrent] = useState<string | null>(null);
  // Bumped after each answer, so the history lists the new or grown conversation.
  const [round, setRound] = useState(0);
  const open = (id: string) => {
    setError(null);
    turnsOf(id).then((old) => {
      session.current = id;
      setCurrent(id);
      setTurns(old);
    }, setError);
  };
  const fresh = () => {
    session.current = null;
    setCurrent(null);
    setTurns([]);
  };
  const sessionId = async (question: string) => {
    session.current ??= (await client().chat.createSession(doc.id, question.slice(0, 100))).id;
    setCurrent(session.current);
    return session.current;
  };
  const onAsk = (q: string) => void ask(q, () => sessionId(q)).then(() => setRound((r) => r + 1));
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'chat-title' },
    h('h2', { id: 'chat-title', class: 'card-title' }, t('chat.title')),
    h(ChatHistory, { documentId: doc.id, current, round, onOpen: open, onNew: fresh }),
    h(ErrorLine, { error }),
    h(ChatLog, {
      turns,
      source: (c, n) =>
        c.page
          ? h(
              'button',
              { type: 'button', class: 'small', onClick: () => openPage(c.page as number, c.text) },
              t('chat.source', { n: n + 1, page: c.page }),
            )
          : h('span', {}, t('chat.sourceNoPage', { n: n + 1 })),
    }),
    h(QuestionForm, { disabled: !ready || asking, onAsk, describedBy: ready ? undefined : 'chat-wait' }),
    ready ? null : h('p', { id: 'chat-wait', class: 'muted' }, t('chat.wait')),
  );
}
