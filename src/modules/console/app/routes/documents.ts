// Documents: folder tree and breadcrumbs, list or thumbnail grid (virtualised: only the rows in
// view are drawn, pages fetched as they scroll into view), sort and filters in the address,
// multi-select bulk actions, and uploads by drag-and-drop of files and folders onto any folder.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatBytes, formatDate, stateWord, t } from '../i18n.ts';
import { client } from '../sdk.ts';
import { type Doc, ErrorLine, type Folder, h, href, replaceRoute, type ViewProps } from '../ui.ts';
import { cancellable, filesOfDrop, filesOfPicker, retriable, type UploadItem, Uploads } from '../upload.ts';
import { FolderChat } from './folder-chat.ts';
import { useListedUsers } from './people.ts';
import { SavedViews } from './saved-views.ts';

type Row = Omit<
  Doc,
  'storage_path' | 'thumbnail_url' | 'ai_thumbnail_url' | 'entities' | 'ai_summary_confidence' | 'ai_fields'
> &
  Partial<Doc>;

const PAGE = 50;
const ROW_HEIGHT = 52;
const TILE_HEIGHT = 220;
const TILE_WIDTH = 180;
const SORTS = ['created_at', 'name', 'size', 'updated_at'] as const;
const TYPES: [string, string][] = [
  ['', t('docs.type.any')],
  ['application/pdf', 'PDF'],
  ['image/', 'Images'],
  ['text/', 'Text'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'Word'],
  ['audio/', 'Audio'],
  ['video/', 'Video'],
];

const ENTITY_TYPES = ['person', 'organization', 'date', 'location', 'amount'] as const;
const AI_STATES = ['queued', 'processing', 'completed', 'failed', 'skipped'] as const;
/** Tags one filter may name: their ids fit in one value of a saved view (500 characters). */
const MAX_FILTER_TAGS = 12;
/** Requests of a bulk action in flight at once: a large selection does not meet the rate limit in one burst. */
const BULK_PARALLEL = 4;

const oneOf = <T extends string>(values: readonly T[], value: string | null): T | '' =>
  (values as readonly string[]).includes(value ?? '') ? (value as T) : '';

/** The filters of the address, as the list asks the API. */
function filtersOf(params: URLSearchParams) {
  const sort = (SORTS as readonly string[]).includes(params.get('sort') ?? '')
    ? (params.get('sort') as (typeof SORTS)[number])
    : 'created_at';
  return {
    sort,
    type: params.get('type') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    view: params.get('view') === 'grid' ? 'grid' : 'list',
    /** Tag ids, comma-separated (`tag_ids`), matched all (default) or any (`match=any`). */
    tags: (params.get('tags') ?? '').split(',').filter(Boolean).slice(0, MAX_FILTER_TAGS).join(','),
    match: params.get('match') === 'any' ? 'any' : '',
    entity: (params.get('entity') ?? '').trim(),
    etype: oneOf(ENTITY_TYPES, params.get('etype')),
    ai: oneOf(AI_STATES, params.get('ai')),
  };
}

type Filters = ReturnType<typeof filtersOf>;

/** The list's query for those filters (the API's names: docs/api-decisions.md §18). */
function listQueryOf(filters: Pick<Filters, 'type' | 'from' | 'to' | 'tags' | 'match' | 'entity' | 'etype' | 'ai'>) {
  return {
    ...(filters.type ? { file_type: filters.type } : {}),
    ...(filters.from ? { date_start: filters.from } : {}),
    ...(filters.to ? { date_end: `${filters.to}T23:59:59.999Z` } : {}),
    ...(filters.tags ? { tag_ids: filters.tags, ...(filters.match ? { tag_match: 'any' as const } : {}) } : {}),
    ...(filters.entity ? { entity: filters.entity, ...(filters.etype ? { entity_type: filters.etype } : {}) } : {}),
    ...(filters.ai ? { ai_status: filters.ai } : {}),
  };
}

/** The address query of those filters, defaults left out: what the address and a saved view keep. */
function queryOf(filters: Filters): Record<string, string> {
  const all = {
    view: filters.view === 'grid' ? 'grid' : '',
    sort: filters.sort === 'created_at' ? '' : filters.sort,
    type: filters.type,
    from: filters.from,
    to: filters.to,
    tags: filters.tags,
    match: filters.tags ? filters.match : '',
    entity: filters.entity,
    etype: filters.entity ? filters.etype : '',
    ai: filters.ai,
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== ''));
}

export default function Documents({ route, me }: ViewProps) {
  const folderId = route.arg;
  // Viewers read only: no upload, no drop, no bulk changes (the API would refuse them).
  const canEdit = me.role !== 'viewer';
  const filters = filtersOf(route.params);
  const [folders, setFolders] = useState<Folder[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);
  const [outcomes, setOutcomes] = useState<Outcome[] | null>(null);
  // Stored uploads refresh the list and the counts: at once when the last file is stored, and at most
  // every 3 s while a folder pours in (each refresh asks the service for the tree with its counts and
  // the list again, which competed with the uploads themselves: docs/benchmarks-console.md).
  const refresh = useRef<ReturnType<typeof setTimeout> | null>(null);
  const uploads = useMemo(() => {
    const reload = () => {
      if (refresh.current) clearTimeout(refresh.current);
      refresh.current = null;
      setGeneration((g) => g + 1);
    };
    const queue: Uploads = new Uploads(() => {
      if (queue.active === 0) reload();
      else refresh.current ??= setTimeout(reload, 3000);
    });
    return queue;
  }, []);
  const loadFolders = useCallback(() => {
    client()
      .call('listFolders', { query: { include_document_count: 'true' } })
      .then((a) => setFolders(a.folders), setError);
  }, []);
  useEffect(loadFolders, [generation]);

  const setParam = (changes: Record<string, string>) => {
    replaceRoute(href('documents', folderId, { ...queryOf(filters), ...changes }));
  };
  const [dragging, setDragging] = useState(false);
  const drop = async (event: DragEvent, target: string | null) => {
    event.preventDefault();
    event.stopPropagation();
    setDragging(false);
    if (!event.dataTransfer) return;
    uploads.add(await filesOfDrop(event.dataTransfer), target);
  };
  const dragOver = (event: DragEvent) => {
    if (!event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    setDragging(true);
  };

  const toolbar = h(
    'div',
    { class: 'toolbar', role: 'group', 'aria-label': t('docs.filter') },
    h(
      'div',
      { class: 'segmented', role: 'group', 'aria-label': t('docs.view') },
      (['list', 'grid'] as const).map((v) =>
        h(
          'button',
          {
            key: v,
            type: 'button',
            'aria-pressed': filters.view === v ? 'true' : 'false',
            onClick: () => setParam({ view: v === 'grid' ? 'grid' : '' }),
          },
          t(`docs.view.${v}`),
        ),
      ),
    ),
    h(
      'label',
      { class: 'field inline' },
      h('span', {}, t('docs.sort')),
      h(
        'select',
        { value: filters.sort, onChange: (e: Event) => setParam({ sort: (e.target as HTMLSelectElement).value }) },
        SORTS.map((s) => h('option', { key: s, value: s }, t(`docs.sort.${s}`))),
      ),
    ),
    h(
      'label',
      { class: 'field inline' },
      h('span', {}, t('docs.type')),
      h(
        'select',
        { value: filters.type, onChange: (e: Event) => setParam({ type: (e.target as HTMLSelectElement).value }) },
        TYPES.map(([value, label]) => h('option', { key: value, value }, label)),
      ),
    ),
    h(
      'label',
      { class: 'field inline' },
      h('span', {}, t('docs.from')),
      h('input', {
        type: 'date',
        value: filters.from,
        onChange: (e: Event) => setParam({ from: (e.target as HTMLInputElement).value }),
      }),
    ),
    h(
      'label',
      { class: 'field inline' },
      h('span', {}, t('docs.to')),
      h('input', {
        type: 'date',
        value: filters.to,
        onChange: (e: Event) => setParam({ to: (e.target as HTMLInputElement).value }),
      }),
    ),
    h(TagFilter, { filters, setParam }),
    h(
      'form',
      {
        class: 'inline entity-filter',
        role: 'search',
        'aria-label': t('filter.entity'),
        onSubmit: (e: Event) => {
          e.preventDefault();
          const data = new FormData(e.target as HTMLFormElement);
          setParam({ entity: String(data.get('entity') ?? '').trim(), etype: String(data.get('etype') ?? '') });
        },
      },
      h(
        'label',
        { class: 'field inline' },
        h('span', {}, t('filter.entity')),
        h('input', {
          name: 'entity',
          type: 'search',
          value: filters.entity,
          placeholder: t('filter.entityHint'),
          maxLength: 200,
          // Applied on Enter or on leaving the field, not at each key (each would be a new list).
          onChange: (e: Event) => setParam({ entity: (e.target as HTMLInputElement).value.trim() }),
        }),
      ),
      h(
        'label',
        { class: 'field inline' },
        h('span', {}, t('filter.entityType')),
        h(
          'select',
          {
            name: 'etype',
            value: filters.etype,
            onChange: (e: Event) => setParam({ etype: (e.target as HTMLSelectElement).value }),
          },
          ['', ...ENTITY_TYPES].map((v) =>
            h('option', { key: v, value: v }, t(`filter.entityType.${v || 'any'}` as 'filter.entityType.any')),
          ),
        ),
      ),
    ),
    h(
      'label',
      { class: 'field inline' },
      h('span', {}, t('filter.ai')),
      h(
        'select',
        { value: filters.ai, onChange: (e: Event) => setParam({ ai: (e.target as HTMLSelectElement).value }) },
        ['', ...AI_STATES].map((v) =>
          h('option', { key: v, value: v }, t(`filter.ai.${v || 'any'}` as 'filter.ai.any')),
        ),
      ),
    ),
    filters.tags || filters.entity || filters.ai || filters.type || filters.from || filters.to
      ? h(
          'button',
          {
            type: 'button',
            class: 'ghost',
            onClick: () => setParam({ tags: '', match: '', entity: '', etype: '', ai: '', type: '', from: '', to: '' }),
          },
          t('filter.clear'),
        )
      : null,
    canEdit ? h(Pickers, { onFiles: (files) => uploads.add(files, folderId || null) }) : null,
  );

  return h(
    'div',
    { class: 'documents' },
    h(
      'div',
      { class: 'sidebar' },
      h(FolderTree, { folders, current: folderId, onDrop: canEdit ? drop : null }),
      h(SavedViews, { folderId, filters: queryOf(filters) }),
    ),
    h(
      'section',
      {
        class: `folder-content${dragging ? ' dragging' : ''}`,
        'aria-labelledby': 'folder-title',
        onDragOver: canEdit ? dragOver : undefined,
        onDragLeave: (e: DragEvent) => e.currentTarget === e.target && setDragging(false),
        onDrop: canEdit ? (e: DragEvent) => drop(e, folderId || null) : undefined,
      },
      h(Breadcrumbs, { folders, current: folderId }),
      h(FolderChat, { key: folderId, folderId, folderName: folders.find((f) => f.id === folderId)?.name ?? '' }),
      toolbar,
      h(ErrorLine, { error }),
      h(UploadList, { uploads }),
      outcomes ? h(BulkOutcomes, { outcomes, close: () => setOutcomes(null) }) : null,
      h(DocumentList, {
        key: `${folderId}|${JSON.stringify(listQueryOf(filters))}|${filters.sort}|${generation}`,
        folderId,
        filters,
        folders,
        canEdit,
        onChanged: () => setGeneration((g) => g + 1),
        report: setOutcomes,
      }),
      dragging ? h('div', { class: 'drop-hint', 'aria-hidden': 'true' }, t('upload.drop')) : null,
    ),
  );
}

/** The tenant's tags as checkboxes in a disclosure; the checked ones filter the list (all or any of them). */
function TagFilter({ filters, setParam }: { filters: Filters; setParam: (changes: Record<string, string>) => void }) {
  const [tags, setTags] = useState<{ id: string; name: string }[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const chosen = new Set(filters.tags.split(',').filter(Boolean));
  const load = () => {
    if (tags === null)
      client()
        .call('listTags', { query: { page_size: 100 } })
        .then((a) => setTags(a.data), setError);
  };
  // Ids in the address are named once the tags are read.
  useEffect(() => {
    if (chosen.size > 0) load();
  }, []);
  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else if (next.size < MAX_FILTER_TAGS) next.add(id);
    setParam({ tags: [...next].join(',') });
  };
  return h(
    'details',
    { class: 'tag-filter', onToggle: (e: Event) => (e.target as HTMLDetailsElement).open && load() },
    h('summary', {}, chosen.size > 0 ? t('filter.tagsCount', { n: chosen.size }) : t('filter.tags')),
    h(
      'div',
      { class: 'tag-filter-body card' },
      h(
        'fieldset',
        {},
        h('legend', {}, t('filter.tagMatch')),
        (['all', 'any'] as const).map((m) =>
          h(
            'label',
            { key: m, class: 'check' },
            h('input', {
              type: 'radio',
              name: 'tag-match',
              checked: (filters.match || 'all') === m,
              onChange: () => setParam({ match: m === 'any' ? 'any' : '' }),
            }),
            h('span', {}, t(`filter.tagMatch.${m}`)),
          ),
        ),
      ),
      tags && tags.length === 0 ? h('p', { class: 'muted' }, t('filter.tagsNone')) : null,
      h(
        'ul',
        { class: 'tag-choices', 'aria-label': t('filter.tags') },
        (tags ?? []).map((tag) =>
          h(
            'li',
            { key: tag.id },
            h(
              'label',
              { class: 'check' },
              h('input', { type: 'checkbox', checked: chosen.has(tag.id), onChange: () => toggle(tag.id) }),
              h('span', {}, tag.name),
            ),
          ),
        ),
      ),
      h(ErrorLine, { error }),
    ),
  );
}

function Pickers({ onFiles }: { onFiles: (files: { file: File; dir: string }[]) => void }) {
  const pick = (e: Event, folder: boolean) => {
    const input = e.target as HTMLInputElement;
    if (input.files) onFiles(folder ? filesOfPicker(input.files) : [...input.files].map((file) => ({ file, dir: '' })));
    input.value = '';
  };
  return h(
    'div',
    { class: 'pickers' },
    h(
      'label',
      { class: 'button primary' },
      t('upload.files'),
      h('input', { type: 'file', multiple: true, class: 'visually-hidden', onChange: (e: Event) => pick(e, false) }),
    ),
    h(
      'label',
      { class: 'button' },
      t('upload.folder'),
      h('input', {
        type: 'file',
        multiple: true,
        webkitdirectory: true,
        class: 'visually-hidden',
        onChange: (e: Event) => pick(e, true),
      }),
    ),
  );
}

function FolderTree({
  folders,
  current,
  onDrop,
}: {
  folders: Folder[];
  current: string;
  onDrop: ((e: DragEvent, target: string | null) => void) | null;
}) {
  const [over, setOver] = useState<string | null>(null);
  const link = (id: string, label: string, count?: number) =>
    h(
      'a',
      {
        href: href('documents', id),
        class: over === id ? 'folder-link drop-target' : 'folder-link',
        'aria-current': current === id ? 'page' : undefined,
        onDragOver: (e: DragEvent) => {
          if (!onDrop || !e.dataTransfer?.types.includes('Files')) return;
          e.preventDefault();
          e.stopPropagation();
          setOver(id);
        },
        onDragLeave: () => setOver(null),
        onDrop: (e: DragEvent) => {
          setOver(null);
          onDrop?.(e, id || null);
        },
      },
      h('span', { class: 'folder-name' }, label),
      count === undefined ? null : ' ',
      count === undefined ? null : h('span', { class: 'count' }, `(${count})`),
    );
  const branch = (parent: string | null): ReturnType<typeof h> | null => {
    const children = folders.filter((f) => f.parent_id === parent).sort((a, b) => a.name.localeCompare(b.name));
    if (children.length === 0) return null;
    return h(
      'ul',
      {},
      children.map((f) => h('li', { key: f.id }, link(f.id, f.name, f.document_count), branch(f.id))),
    );
  };
  return h(
    'nav',
    { class: 'tree card', 'aria-label': t('docs.folders') },
    h('ul', {}, h('li', {}, link('', t('docs.top')), branch(null))),
  );
}

function Breadcrumbs({ folders, current }: { folders: Folder[]; current: string }) {
  const trail: Folder[] = [];
  for (let f = folders.find((x) => x.id === current); f; f = folders.find((x) => x.id === f?.parent_id))
    trail.unshift(f);
  const last = trail.at(-1);
  return h(
    'div',
    { class: 'heading' },
    h(
      'nav',
      { 'aria-label': t('docs.breadcrumb'), class: 'breadcrumbs' },
      h(
        'ol',
        {},
        h('li', {}, h('a', { href: href('documents'), 'aria-current': last ? undefined : 'page' }, t('docs.home'))),
        trail.map((f) =>
          h(
            'li',
            { key: f.id },
            h('a', { href: href('documents', f.id), 'aria-current': f === last ? 'page' : undefined }, f.name),
          ),
        ),
      ),
    ),
    h('h1', { id: 'folder-title' }, last?.name ?? t('docs.top')),
  );
}

function UploadList({ uploads }: { uploads: Uploads }) {
  const [, redraw] = useState(0);
  useEffect(() => uploads.subscribe(() => redraw((n) => n + 1)), [uploads]);
  if (uploads.items.length === 0) return null;
  const count = (...states: UploadItem['state'][]) => uploads.items.filter((i) => states.includes(i.state)).length;
  const line = (item: UploadItem) => {
    const name = item.dir ? `${item.dir}/${item.file.name}` : item.file.name;
    const status =
      item.state === 'stored'
        ? item.duplicateOf
          ? t('upload.storedDuplicate')
          : t('upload.stored')
        : item.state === 'cancelled'
          ? t('upload.cancelled')
          : item.state === 'waiting'
            ? t('upload.waiting')
            : item.state === 'uploading'
              ? item.loaded >= 1
                ? t('upload.storing')
                : `${Math.round(item.loaded * 100)} %`
              : (item.reason ?? '');
    return h(
      'li',
      { key: item.id, class: `upload ${item.state}` },
      h(
        'span',
        { class: 'upload-name' },
        item.documentId ? h('a', { href: href('document', item.documentId) }, name) : name,
      ),
      // A refused or cancelled file shows no full bar: the bar says how much was sent, nothing more.
      h('progress', {
        max: 1,
        value: item.state === 'stored' ? 1 : item.state === 'uploading' ? item.loaded : 0,
        'aria-label': t('upload.of', { name }),
      }),
      h(
        'span',
        { class: 'upload-status' },
        status,
        item.duplicateOf
          ? h(
              'a',
              { href: href('document', item.duplicateOf), 'aria-label': t('upload.duplicateOf', { name }) },
              ` ${t('upload.duplicateLink')}`,
            )
          : null,
        item.requestId ? h('span', { class: 'request-id' }, ` ${t('error.request', { id: item.requestId })}`) : null,
      ),
      cancellable(item)
        ? h(
            'button',
            {
              type: 'button',
              class: 'small',
              'aria-label': t('upload.cancelOf', { name }),
              onClick: () => uploads.cancel(item.id),
            },
            t('upload.cancel'),
          )
        : null,
      retriable(item)
        ? h(
            'button',
            {
              type: 'button',
              class: 'small',
              'aria-label': t('upload.retryOf', { name }),
              onClick: () => uploads.retry(item.id),
            },
            t('upload.retry'),
          )
        : null,
    );
  };
  return h(
    'section',
    { class: 'card uploads', 'aria-labelledby': 'uploads-title' },
    h(
      'div',
      { class: 'row' },
      h('h2', { id: 'uploads-title', class: 'card-title' }, t('upload.title')),
      h(
        'p',
        { role: 'status', class: 'muted' },
        t('upload.summary', {
          ok: count('stored'),
          refused: count('refused', 'failed'),
          active: count('waiting', 'uploading'),
        }),
      ),
      h('button', { type: 'button', class: 'small', onClick: () => uploads.clearFinished() }, t('upload.clear')),
    ),
    h('ul', { class: 'upload-list' }, uploads.items.map(line)),
  );
}

interface ListProps {
  folderId: string;
  filters: ReturnType<typeof filtersOf>;
  folders: Folder[];
  canEdit: boolean;
  onChanged: () => void;
  /** Where a bulk action's outcomes are shown: outside the list, which is drawn anew after a change. */
  report: (outcomes: Outcome[] | null) => void;
}

/** The folder's documents: rows (or tiles) drawn only where the scroll box shows them; pages fetched on first sight. */
function DocumentList({ folderId, filters, folders, canEdit, onChanged, report }: ListProps) {
  const [total, setTotal] = useState<number | null>(null);
  const [rows, setRows] = useState<(Row | undefined)[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [scroll, setScroll] = useState({ top: 0, height: 600, width: 800 });
  const box = useRef<HTMLDivElement>(null);
  const pages = useRef(new Set<number>());
  const { sort, type, from: since, to: until, tags, match, entity, etype, ai } = filters;
  const query = useMemo(
    () => listQueryOf({ type, from: since, to: until, tags, match, entity, etype, ai }),
    [type, since, until, tags, match, entity, etype, ai],
  );

  const fetchPage = useCallback(
    (page: number) => {
      if (pages.current.has(page)) return;
      pages.current.add(page);
      client()
        .call('listDocuments', {
          query: {
            folder_id: folderId || 'root',
            page,
            limit: PAGE,
            sort,
            order: sort === 'name' ? 'asc' : 'desc',
            ...query,
          },
        })
        .then((answer) => {
          setTotal(answer.total);
          setRows((old) => {
            const next =
              old.length === answer.total ? [...old] : Array.from({ length: answer.total }, (_, i) => old[i]);
            answer.data.forEach((d, i) => {
              next[(page - 1) * PAGE + i] = d as Row;
            });
            return next;
          });
          if (!performance.getEntriesByName('console:interactive').length) performance.mark('console:interactive');
        })
        .catch((e) => {
          pages.current.delete(page);
          setError(e);
        });
    },
    [folderId, sort, query],
  );
  useEffect(() => fetchPage(1), [fetchPage]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setScroll({ top: el.scrollTop, height: el.clientHeight, width: el.clientWidth });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    el.addEventListener('scroll', measure, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener('scroll', measure);
    };
  }, [total === null]);

  const grid = filters.view === 'grid';
  const cols = grid ? Math.max(1, Math.floor(scroll.width / TILE_WIDTH)) : 1;
  const lineHeight = grid ? TILE_HEIGHT : ROW_HEIGHT;
  const count = total ?? 0;
  const lines = Math.ceil(count / cols);
  const firstLine = Math.max(0, Math.floor(scroll.top / lineHeight) - 3);
  const lastLine = Math.min(lines, Math.ceil((scroll.top + scroll.height) / lineHeight) + 3);
  const from = firstLine * cols;
  const to = Math.min(count, lastLine * cols);
  useEffect(() => {
    for (let i = from; i < to; i += PAGE) if (rows[i] === undefined) fetchPage(Math.floor(i / PAGE) + 1);
    if (to > 0 && rows[to - 1] === undefined) fetchPage(Math.floor((to - 1) / PAGE) + 1);
  }, [from, to, rows, fetchPage]);

  // Documents still being processed in view: their pages are asked again every 2 s until done.
  const busyInView = rows
    .slice(from, to)
    .some(
      (r) =>
        r &&
        (r.status === 'processing' ||
          r.status === 'pending' ||
          r.ai_status === 'queued' ||
          r.ai_status === 'processing'),
    );
  useEffect(() => {
    if (!busyInView) return;
    const timer = setTimeout(() => {
      for (let page = Math.floor(from / PAGE) + 1; page <= Math.floor(Math.max(to - 1, 0) / PAGE) + 1; page++) {
        pages.current.delete(page);
        fetchPage(page);
      }
    }, 2000);
    return () => clearTimeout(timer);
  }, [busyInView, rows, from, to, fetchPage]);

  if (error) return h(ErrorLine, { error });
  if (total === null) return h('p', { class: 'muted', role: 'status' }, t('loading'));
  const toggle = (id: string) =>
    setSelected((old) => {
      const next = new Set(old);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const shown = rows.slice(from, to).filter((r): r is Row => Boolean(r));
  const allShown = shown.length > 0 && shown.every((r) => selected.has(r.id));
  const items = [];
  for (let i = from; i < to; i++) {
    const row = rows[i];
    const style = grid
      ? {
          top: `${Math.floor(i / cols) * TILE_HEIGHT}px`,
          left: `${((i % cols) * 100) / cols}%`,
          width: `${100 / cols}%`,
          height: `${TILE_HEIGHT}px`,
        }
      : { top: `${i * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` };
    items.push(
      h(
        'li',
        {
          key: row?.id ?? `slot-${i}`,
          class: grid ? 'tile' : 'line',
          style,
          'aria-setsize': count,
          'aria-posinset': i + 1,
        },
        row
          ? grid
            ? h(Tile, { row, selected: selected.has(row.id), toggle })
            : h(Line, { row, selected: selected.has(row.id), toggle })
          : h('span', { class: 'placeholder muted' }, t('loading')),
      ),
    );
  }
  return h(
    'div',
    { class: 'list-wrap' },
    h(
      'div',
      { class: 'list-head' },
      h(
        'label',
        { class: 'check' },
        h('input', {
          type: 'checkbox',
          checked: allShown,
          onChange: () => setSelected(allShown ? new Set() : new Set(shown.map((r) => r.id))),
        }),
        h('span', {}, t('docs.selectAll')),
      ),
      h('span', { class: 'muted' }, t('docs.count', { n: count })),
    ),
    selected.size > 0 && canEdit
      ? h(BulkBar, { selected, rows, folders, clear: () => setSelected(new Set()), changed: onChanged, report })
      : null,
    count === 0
      ? h('p', { class: 'empty' }, t('docs.empty'))
      : h(
          'div',
          { class: 'scroller', ref: box, tabIndex: 0, 'aria-label': t('docs.table'), role: 'region' },
          h(
            'ul',
            {
              class: grid ? 'grid' : 'rows',
              'aria-label': t('docs.table'),
              style: { height: `${lines * lineHeight}px` },
            },
            items,
          ),
        ),
  );
}

function Line({ row, selected, toggle }: { row: Row; selected: boolean; toggle: (id: string) => void }) {
  return h(
    'div',
    { class: `line-inner${selected ? ' selected' : ''}` },
    h('input', {
      type: 'checkbox',
      checked: selected,
      'aria-label': t('docs.select', { name: row.filename }),
      onChange: () => toggle(row.id),
    }),
    h('a', { class: 'doc-name', href: href('document', row.id) }, row.filename),
    h('span', { class: 'muted size' }, formatBytes(row.file_size)),
    h(StateBadge, { status: row.status, ai: row.ai_status }),
    h('span', { class: 'muted date' }, formatDate(row.created_at)),
  );
}

export function StateBadge({ status, ai }: { status: string; ai: string }) {
  const busy = status === 'processing' || status === 'pending' || ai === 'queued' || ai === 'processing';
  const text =
    status === 'completed' && !busy
      ? t('state.completed')
      : status === 'failed'
        ? t('state.failed')
        : status !== 'completed'
          ? stateWord(status)
          : t('state.ai', { s: stateWord(ai) });
  return h('span', { class: `badge ${status === 'failed' ? 'bad' : busy ? 'busy' : 'ok'}` }, text);
}

/** A thumbnail fetched with the credential (an <img src> could not carry it), drawn in a box of fixed size. */
export function Thumb({ id, name }: { id: string; name: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    let made: string | null = null;
    client()
      .send('getDocumentThumbnail', { path: { id } })
      .then((res) => res.blob())
      .then((blob) => {
        made = URL.createObjectURL(blob);
        if (live) setUrl(made);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [id]);
  if (failed) return h('div', { class: 'thumb none', 'aria-hidden': 'true' }, name.split('.').pop()?.toUpperCase());
  return url
    ? h('img', { class: 'thumb', src: url, alt: '', width: 150, height: 150 })
    : h('div', { class: 'thumb', 'aria-hidden': 'true' });
}

function Tile({ row, selected, toggle }: { row: Row; selected: boolean; toggle: (id: string) => void }) {
  return h(
    'div',
    { class: `tile-inner${selected ? ' selected' : ''}` },
    h('input', {
      type: 'checkbox',
      class: 'tile-check',
      checked: selected,
      'aria-label': t('docs.select', { name: row.filename }),
      onChange: () => toggle(row.id),
    }),
    h(
      'a',
      { href: href('document', row.id), class: 'tile-link' },
      h(Thumb, { id: row.id, name: row.filename }),
      h('span', { class: 'doc-name' }, row.filename),
    ),
    h(StateBadge, { status: row.status, ai: row.ai_status }),
  );
}

/** What one document of a bulk action came to. */
interface Outcome {
  id: string;
  name: string;
  reason: string | null;
  requestId?: string;
}

/** A refusal in words, with the request id when the service gave one. */
function reasonOf(error: unknown): { reason: string; requestId?: string } {
  const requestId = (error as { requestId?: unknown } | null)?.requestId;
  const reason = error instanceof TypeError ? t('error.network') : String((error as Error)?.message ?? error);
  return typeof requestId === 'string' ? { reason, requestId } : { reason };
}

/** The last bulk action: how many went through, and each document's outcome in words. */
function BulkOutcomes({ outcomes, close }: { outcomes: Outcome[]; close: () => void }) {
  const failed = outcomes.filter((o) => o.reason !== null).length;
  return h(
    'section',
    { class: 'card bulk-result', 'aria-label': t('bulk.outcomes') },
    h(
      'div',
      { class: 'row' },
      h('p', { role: 'status' }, t('bulk.done', { ok: outcomes.length - failed, failed })),
      h('button', { type: 'button', class: 'small', onClick: close }, t('bulk.dismiss')),
    ),
    h(
      'ul',
      { class: 'bulk-outcomes', 'aria-label': t('bulk.outcomes') },
      outcomes.map((o) =>
        h(
          'li',
          { key: o.id, class: o.reason === null ? 'ok' : 'bad' },
          h('span', { class: 'doc-name' }, o.name),
          ': ',
          o.reason === null ? t('bulk.ok') : t('bulk.failedOf', { reason: o.reason }),
          o.requestId ? h('span', { class: 'request-id' }, ` ${t('error.request', { id: o.requestId })}`) : null,
        ),
      ),
    ),
  );
}

function BulkBar({
  selected,
  rows,
  folders,
  clear,
  changed,
  report,
}: {
  selected: Set<string>;
  rows: (Row | undefined)[];
  folders: Folder[];
  clear: () => void;
  changed: () => void;
  report: (outcomes: Outcome[] | null) => void;
}) {
  const [tag, setTag] = useState('');
  const users = useListedUsers();
  const ids = [...selected];
  const byId = (id: string) => rows.find((r) => r?.id === id);
  // Through the one-document endpoints, a few at a time; each document's outcome is listed.
  const run = async (action: (id: string) => Promise<unknown>, reload: boolean) => {
    report(null);
    const results: PromiseSettledResult<unknown>[] = [];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < ids.length; i = next++)
        results[i] = await action(ids[i] as string).then(
          (value) => ({ status: 'fulfilled', value }) as const,
          (reason) => ({ status: 'rejected', reason }) as const,
        );
    };
    await Promise.all(Array.from({ length: Math.min(BULK_PARALLEL, ids.length) }, worker));
    const done: Outcome[] = results.map((r, i) => {
      const id = ids[i] as string;
      const name = byId(id)?.filename ?? id;
      return r.status === 'fulfilled' ? { id, name, reason: null } : { id, name, ...reasonOf(r.reason) };
    });
    report(done);
    if (reload && done.some((o) => o.reason === null)) changed();
  };
  const folderName = (f: Folder): string => {
    const parent = folders.find((p) => p.id === f.parent_id);
    return parent ? `${folderName(parent)} / ${f.name}` : f.name;
  };
  const places = [
    { id: '', name: t('docs.top') },
    ...folders.map((f) => ({ id: f.id, name: folderName(f) })).sort((a, b) => a.name.localeCompare(b.name)),
  ];
  return h(
    'div',
    { class: 'bulk card', role: 'group', 'aria-label': t('docs.selected', { n: ids.length }) },
    h('strong', {}, t('docs.selected', { n: ids.length })),
    h(
      'form',
      {
        class: 'inline',
        onSubmit: (e: Event) => {
          e.preventDefault();
          const name = tag.trim();
          if (!name) return;
          void run(
            (id) =>
              client().call('updateDocument', {
                path: { id },
                body: { tags: [...new Set([...(byId(id)?.tags ?? []), name])] },
              }),
            true,
          );
          setTag('');
        },
      },
      h('input', {
        value: tag,
        'aria-label': t('bulk.tagName'),
        placeholder: t('bulk.tagName'),
        onInput: (e: Event) => setTag((e.target as HTMLInputElement).value),
      }),
      h('button', { type: 'submit' }, t('bulk.tag')),
    ),
    h(
      'button',
      { type: 'button', onClick: () => run((id) => client().call('applyDocumentAiTags', { path: { id } }), true) },
      t('bulk.aiTags'),
    ),
    h(
      'button',
      { type: 'button', onClick: () => run((id) => client().call('reprocessDocument', { path: { id } }), true) },
      t('bulk.reprocess'),
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        onClick: () => {
          if (confirm(t('bulk.confirmDelete', { n: ids.length })))
            void run((id) => client().call('deleteDocument', { path: { id } }), true);
        },
      },
      t('bulk.delete'),
    ),
    h(
      'form',
      {
        class: 'inline',
        onSubmit: (e: Event) => {
          e.preventDefault();
          const target = String(new FormData(e.target as HTMLFormElement).get('folder') ?? '');
          void run(
            (id) => client().call('updateDocument', { path: { id }, body: { folder_id: target || null } }),
            true,
          );
        },
      },
      h(
        'label',
        { class: 'field inline' },
        h('span', {}, t('bulk.moveTo')),
        h(
          'select',
          { name: 'folder' },
          places.map((p) => h('option', { key: p.id, value: p.id }, p.name)),
        ),
      ),
      h('button', { type: 'submit' }, t('bulk.move')),
    ),
    users.length
      ? h(
          'form',
          {
            class: 'inline',
            onSubmit: (e: Event) => {
              e.preventDefault();
              const data = new FormData(e.target as HTMLFormElement);
              const user = String(data.get('user'));
              const permission = String(data.get('permission')) as 'view' | 'edit' | 'admin';
              void run(
                (id) => client().call('shareDocument', { path: { id }, body: { user_id: user, permission } }),
                false,
              );
            },
          },
          h(
            'label',
            { class: 'field inline' },
            h('span', {}, t('bulk.shareWith')),
            h(
              'select',
              { name: 'user', required: true },
              users.map((u) => h('option', { key: u.id, value: u.id }, `${u.name} <${u.email}>`)),
            ),
          ),
          h(
            'label',
            { class: 'field inline' },
            h('span', {}, t('bulk.shareAs')),
            h(
              'select',
              { name: 'permission' },
              (['view', 'edit', 'admin'] as const).map((p) => h('option', { key: p, value: p }, t(`share.${p}`))),
            ),
          ),
          h('button', { type: 'submit' }, t('bulk.share')),
        )
      : null,
    h('button', { type: 'button', class: 'ghost', onClick: clear }, t('bulk.clear')),
  );
}
