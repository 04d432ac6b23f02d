// Search: one box, the mode named as people think of it (Keyword, Meaning, Both → the API's text,
// semantic, hybrid), folder, type and dates; every choice in the address. Results show where the
// document lives and when it came, how well it matched and by which arm; no results suggest the
// other modes.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { formatDate, t } from '../i18n.ts';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, type Folder, h, href, replaceRoute, type ViewProps } from '../ui.ts';

const MODES = ['text', 'semantic', 'hybrid'] as const;
type Mode = (typeof MODES)[number];
type Answer = OperationResponse<'search'>;
const modeName = (m: Mode) => t(`search.mode.${m}`);

/** The service's highlight with only its `<mark>` kept: everything else is shown as text. */
function Highlight({ text }: { text: string }) {
  const parts = text.split(/(<mark>|<\/mark>)/);
  const out: ComponentChildren[] = [];
  let marked = false;
  parts.forEach((part, i) => {
    if (part === '<mark>') marked = true;
    else if (part === '</mark>') marked = false;
    else if (part) out.push(marked ? h('mark', { key: i }, part) : part);
  });
  return h('p', {}, out);
}

export default function Search({ route }: ViewProps) {
  const p = route.params;
  const q = p.get('q') ?? '';
  const mode: Mode = (MODES as readonly string[]).includes(p.get('mode') ?? '') ? (p.get('mode') as Mode) : 'hybrid';
  const folder = p.get('folder') ?? '';
  const type = p.get('type') ?? '';
  const from = p.get('from') ?? '';
  const to = p.get('to') ?? '';
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [folders, setFolders] = useState<Folder[]>([]);
  useEffect(
    () =>
      void client()
        .call('listFolders')
        .then((a) => setFolders(a.folders), setError),
    [],
  );
  useEffect(() => {
    setAnswer(null);
    setError(null);
    if (!q) return;
    const filters = { ...(folder ? { folder_id: folder } : {}), ...(type ? { file_type: type } : {}) };
    const work =
      mode === 'hybrid'
        ? client().call('postSearchHybrid', {
            body: {
              query: q,
              filters: {
                ...filters,
                ...(from || to
                  ? { date_range: { ...(from ? { start: from } : {}), ...(to ? { end: `${to}T23:59:59.999Z` } : {}) } }
                  : {}),
              },
            },
          })
        : client().call('search', {
            query: {
              q,
              mode,
              ...filters,
              ...(from ? { date_start: from } : {}),
              ...(to ? { date_end: `${to}T23:59:59.999Z` } : {}),
            },
          });
    work.then((a) => setAnswer(a as Answer), setError);
  }, [q, mode, folder, type, from, to]);
  const go = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const value = (k: string) => String(data.get(k) ?? '').trim();
    replaceRoute(
      href('search', '', {
        q: value('q'),
        mode: value('mode'),
        folder: value('folder'),
        type: value('type'),
        from: value('from'),
        to: value('to'),
      }),
    );
  };
  const folderName = (id: string | null) => (id ? (folders.find((f) => f.id === id)?.name ?? '') : t('docs.top'));
  const others = MODES.filter((m) => m !== mode);
  return h(
    'div',
    {},
    h('h1', {}, t('nav.search')),
    h(
      'form',
      // Uncontrolled fields (defaultValue, selected options), remounted when the address changes: a
      // re-render while the user is choosing (the folder list arriving) must not undo the choice.
      { class: 'card search-form', role: 'search', onSubmit: go, key: route.params.toString() },
      h(
        'label',
        { class: 'field grow' },
        h('span', {}, t('search.label')),
        h('input', { name: 'q', type: 'search', defaultValue: q, required: true }),
      ),
      h(
        'label',
        { class: 'field' },
        h('span', {}, t('search.mode')),
        h(
          'select',
          { name: 'mode' },
          MODES.map((m) => h('option', { key: m, value: m, selected: m === mode }, modeName(m))),
        ),
      ),
      h(
        'label',
        { class: 'field' },
        h('span', {}, t('search.folder')),
        h(
          'select',
          { name: 'folder' },
          h('option', { value: '', selected: !folder }, t('search.anyFolder')),
          folders.map((f) => h('option', { key: f.id, value: f.id, selected: f.id === folder }, f.name)),
        ),
      ),
      h(
        'label',
        { class: 'field' },
        h('span', {}, t('docs.type')),
        h('input', { name: 'type', defaultValue: type, placeholder: 'application/pdf', size: 12 }),
      ),
      h(
        'label',
        { class: 'field' },
        h('span', {}, t('docs.from')),
        h('input', { name: 'from', type: 'date', defaultValue: from }),
      ),
      h(
        'label',
        { class: 'field' },
        h('span', {}, t('docs.to')),
        h('input', { name: 'to', type: 'date', defaultValue: to }),
      ),
      h('div', { class: 'field' }, h('button', { type: 'submit', class: 'primary' }, t('search.submit'))),
    ),
    h(ErrorLine, { error }),
    !q ? h('p', { class: 'muted' }, t('search.prompt')) : null,
    q && !answer && !error ? h('p', { class: 'muted', role: 'status' }, t('loading')) : null,
    answer
      ? h(
          'section',
          { 'aria-labelledby': 'results-title', 'aria-live': 'polite' },
          h('h2', { id: 'results-title' }, t('search.results', { n: answer.total }), ` · ${modeName(mode)}`),
          answer.results.length === 0
            ? h(
                'p',
                {},
                t('search.none'),
                ' ',
                others.map((m, i) =>
                  h(
                    'span',
                    { key: m },
                    i ? ' · ' : '',
                    h(
                      'a',
                      { href: href('search', '', { q, mode: m, folder, type, from, to }) },
                      t('search.tryMode', { mode: modeName(m) }),
                    ),
                  ),
                ),
              )
            : h(
                'ol',
                { class: 'results' },
                answer.results.map((r) =>
                  h(
                    'li',
                    { key: r.document.id, class: 'card result' },
                    h('h2', {}, h('a', { href: href('document', r.document.id) }, r.document.filename)),
                    h(
                      'div',
                      { class: 'meta' },
                      h('span', {}, `${t('search.folder')}: ${folderName(r.document.folder_id)}`),
                      h('span', {}, formatDate(r.document.created_at)),
                      h('span', {}, t(`search.relevance.${r.relevance}`)),
                      r.matched?.length
                        ? h(
                            'span',
                            {},
                            t('search.matched', {
                              arms: r.matched.map((a) => modeName(a === 'text' ? 'text' : 'semantic')).join(' + '),
                            }),
                          )
                        : null,
                    ),
                    r.highlight ? h(Highlight, { text: r.highlight }) : null,
                  ),
                ),
              ),
        )
      : null,
  );
}
