// Saved views of the documents page (docs/console.md "Saved views"): the signed-in person's own
// folder + sort + filters + list/grid, kept by the API under a name; shown under the folder tree.
// In the documents chunk: it is drawn with that page only.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h, href } from '../ui.ts';

type View = OperationResponse<'getSavedView'>;

/** Where a view opens: the documents route with its folder and query, as the page writes it. */
function viewHref(view: View): string {
  return href('documents', view.folder_id ?? '', view.filters);
}

export function SavedViews({ folderId, filters }: { folderId: string; filters: Record<string, string> }) {
  const [views, setViews] = useState<View[]>([]);
  const [name, setName] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  // One page of 100 holds every view anyone keeps by hand; more are not listed (docs/console.md).
  const load = useCallback(() => {
    client()
      .savedViews.list({ page_size: 100 })
      .then((a) => setViews(a.data), setError);
  }, []);
  useEffect(load, []);
  const act = async (work: () => Promise<unknown>, done: string) => {
    setError(null);
    setNote('');
    try {
      await work();
      setNote(done);
      load();
      return true;
    } catch (e) {
      setError(e);
      return false;
    }
  };
  const here = window.location.hash;

  return h(
    'section',
    { class: 'card saved-views', 'aria-labelledby': 'saved-views-title' },
    h('h2', { id: 'saved-views-title', class: 'card-title' }, t('views.title')),
    views.length === 0 ? h('p', { class: 'muted' }, t('views.none')) : null,
    h(
      'ul',
      {},
      views.map((v) =>
        h(
          'li',
          { key: v.id, class: 'saved-view' },
          editing === v.id
            ? h(
                'form',
                {
                  class: 'inline',
                  onSubmit: async (e: Event) => {
                    e.preventDefault();
                    const renamed = draft;
                    if (await act(() => client().savedViews.update(v.id, { name: renamed }), t('views.renamed')))
                      setEditing(null);
                  },
                },
                h('input', {
                  value: draft,
                  'aria-label': t('views.newName', { name: v.name }),
                  onInput: (e: Event) => setDraft((e.target as HTMLInputElement).value),
                }),
                h('button', { type: 'submit', class: 'small' }, t('views.save')),
                h(
                  'button',
                  { type: 'button', class: 'small ghost', onClick: () => setEditing(null) },
                  t('views.cancel'),
                ),
              )
            : [
                h(
                  'a',
                  {
                    key: 'open',
                    href: viewHref(v),
                    class: 'folder-link',
                    'aria-current': viewHref(v) === here ? 'page' : undefined,
                  },
                  v.name,
                ),
                h(
                  'span',
                  { key: 'actions', class: 'view-actions' },
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'small ghost',
                      'aria-label': t('views.renameOf', { name: v.name }),
                      onClick: () => {
                        setDraft(v.name);
                        setEditing(v.id);
                      },
                    },
                    t('views.rename'),
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'small ghost',
                      'aria-label': t('views.deleteOf', { name: v.name }),
                      onClick: () => {
                        if (confirm(t('views.confirmDelete', { name: v.name })))
                          void act(() => client().savedViews.delete(v.id), t('views.deleted', { name: v.name }));
                      },
                    },
                    t('views.delete'),
                  ),
                ),
              ],
        ),
      ),
    ),
    h(
      'form',
      {
        class: 'inline',
        onSubmit: async (e: Event) => {
          e.preventDefault();
          const given = name;
          const saved = await act(
            () => client().savedViews.create({ name: given, folder_id: folderId || null, filters }),
            t('views.saved', { name: given.trim() }),
          );
          if (saved) setName('');
        },
      },
      h('input', {
        value: name,
        required: true,
        'aria-label': t('views.name'),
        placeholder: t('views.name'),
        onInput: (e: Event) => setName((e.target as HTMLInputElement).value),
      }),
      h('button', { type: 'submit', class: 'small' }, t('views.saveThis')),
    ),
    h('p', { role: 'status', class: 'muted' }, note),
    h(ErrorLine, { error }),
  );
}
