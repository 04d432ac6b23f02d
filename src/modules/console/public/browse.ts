// Browsing: the folder tree with counts, breadcrumbs, the document list (sort, filter, pages) and search.
import { type Answer, call } from './api.ts';
import { formatBytes, h, highlight, show } from './views.ts';

export type Folder = Answer<'listFolders'>['folders'][number];

const SORTS = ['created_at', 'name', 'size', 'updated_at'];

export async function documentsView(folderId: string): Promise<void> {
  const params = new URLSearchParams(location.search);
  const page = Number(params.get('page') ?? 1);
  const sort = SORTS.includes(params.get('sort') ?? '') ? (params.get('sort') as string) : 'created_at';
  const type = params.get('file_type') ?? '';
  const query = new URLSearchParams({
    folder_id: folderId || 'root',
    page: String(page),
    limit: '20',
    sort,
    order: sort === 'name' ? 'asc' : 'desc',
    ...(type ? { file_type: type } : {}),
  });
  const [{ folders }, list] = await Promise.all([
    call('listFolders', 'GET', '/api/v1/folders'),
    call('listDocuments', 'GET', `/api/v1/documents?${query}`),
  ]);
  const link = (changes: Record<string, string>) =>
    `?${new URLSearchParams({ sort, page: String(page), ...(type ? { file_type: type } : {}), ...changes })}#/documents/${folderId}`;
  const rows = list.data.map((d) =>
    h(
      'tr',
      {},
      h('td', {}, h('a', { href: `#/document/${d.id}` }, d.filename)),
      h('td', {}, formatBytes(d.file_size)),
      h('td', {}, `${d.status} · AI ${d.ai_status}`),
      h('td', { class: 'wide' }, d.tags.join(', ')),
    ),
  );
  const pager = h(
    'nav',
    { 'aria-label': 'Pages' },
    page > 1 && h('a', { href: link({ page: String(page - 1) }) }, 'Previous'),
    ` Page ${page} of ${Math.max(list.total_pages, 1)} (${list.total} documents) `,
    page < list.total_pages && h('a', { href: link({ page: String(page + 1) }) }, 'Next'),
  );
  const sortLinks = h(
    'p',
    {},
    'Sort: ',
    ...SORTS.map((s) =>
      h(
        'a',
        { href: link({ sort: s, page: '1' }), 'aria-current': s === sort ? 'true' : undefined },
        `${s.replace('_at', '').replace('_', ' ')} `,
      ),
    ),
  );
  const filter = h(
    'form',
    { class: 'inline', onsubmit: (e: Event) => filterBy(e, folderId, sort) },
    h('label', { for: 'file-type' }, 'File type '),
    h('input', { id: 'file-type', name: 'file_type', value: type, placeholder: 'pdf', size: 6 }),
    h('button', { type: 'submit' }, 'Filter'),
  );
  const table = h(
    'table',
    { 'aria-label': 'Documents' },
    h(
      'thead',
      {},
      h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Size'), h('th', {}, 'State'), h('th', { class: 'wide' }, 'Tags')),
    ),
    h('tbody', {}, ...rows),
  );
  show(
    h(
      'div',
      { class: 'layout' },
      h('nav', { class: 'tree', 'aria-label': 'Folders' }, tree(folders, null, folderId)),
      h('section', { 'aria-label': 'Folder content' }, breadcrumbs(folders, folderId), sortLinks, filter, table, pager),
    ),
  );
}

function filterBy(event: Event, folderId: string, sort: string): void {
  event.preventDefault();
  const type = String(new FormData(event.target as HTMLFormElement).get('file_type') ?? '').trim();
  history.pushState(
    null,
    '',
    `?${new URLSearchParams({ sort, ...(type ? { file_type: type } : {}) })}#/documents/${folderId}`,
  );
  window.dispatchEvent(new Event('console:rerender'));
}

function tree(folders: Folder[], parent: string | null, current: string): HTMLElement {
  const children = folders.filter((f) => f.parent_id === parent);
  const top =
    parent === null
      ? [
          h(
            'li',
            {},
            h('a', { href: '#/documents/', 'aria-current': current === '' ? 'page' : undefined }, 'Top level'),
          ),
        ]
      : [];
  return h(
    'ul',
    {},
    ...top,
    ...children.map((f) =>
      h(
        'li',
        {},
        h(
          'a',
          { href: `#/documents/${f.id}`, 'aria-current': f.id === current ? 'page' : undefined },
          `${f.name} (${f.document_count ?? 0})`,
        ),
        tree(folders, f.id, current),
      ),
    ),
  );
}

function breadcrumbs(folders: Folder[], id: string): HTMLElement {
  const trail: Folder[] = [];
  for (let f = folders.find((x) => x.id === id); f; f = folders.find((x) => x.id === f?.parent_id)) trail.unshift(f);
  return h(
    'nav',
    { 'aria-label': 'Breadcrumb' },
    h('a', { href: '#/documents/' }, 'Home'),
    ...trail.flatMap((f) => [' / ', h('a', { href: `#/documents/${f.id}` }, f.name)]),
  );
}

export async function searchView(): Promise<void> {
  const form = document.getElementById('search') as HTMLFormElement;
  const q = (form.elements.namedItem('q') as HTMLInputElement).value;
  const mode = (form.elements.namedItem('mode') as HTMLSelectElement).value;
  if (!q) return show(h('p', {}, 'Type a query in the search box.'));
  const answer =
    mode === 'hybrid'
      ? await call('postSearchHybrid', 'POST', '/api/v1/search/hybrid', { query: q })
      : await call('search', 'GET', `/api/v1/search?q=${encodeURIComponent(q)}&mode=${mode}`);
  show(
    h('h2', {}, `${answer.total} results (${answer.mode})`),
    h(
      'ol',
      { class: 'results' },
      ...answer.results.map((r) =>
        h(
          'li',
          {},
          h('a', { href: `#/document/${r.document.id}` }, r.document.filename),
          ` · ${r.relevance} `,
          h('br'),
          highlight(r.highlight),
        ),
      ),
    ),
  );
}
