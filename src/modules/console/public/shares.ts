// A document's shares: the list with names, adding a user or workspace share, removing one.
import { call, send } from './api.ts';
import { actionButton, errorLine, h } from './views.ts';

const PERMISSIONS = ['view', 'edit', 'admin'];

export function sharesPanel(documentId: string): HTMLElement {
  const base = `/api/v1/documents/${encodeURIComponent(documentId)}`;
  const list = h('ul', { 'aria-label': 'Shares' });
  const panel = h('section', { 'aria-labelledby': 'shares-title' }, h('h3', { id: 'shares-title' }, 'Shares'), list);
  const reload = async () => {
    const { shares } = await call('listDocumentShares', 'GET', `${base}/shares`);
    list.replaceChildren(
      ...(shares.length === 0 ? [h('li', {}, 'Not shared.')] : []),
      ...shares.map((s) => {
        const who = s.user_id ? `${s.user_name ?? s.user_id}` : `workspace ${s.workspace_name ?? s.workspace_id}`;
        return h(
          'li',
          {},
          `${who}: ${s.permission} `,
          actionButton(
            'Remove',
            () => send('DELETE', `${base}/shares/${encodeURIComponent(s.share_id)}`).then(reload),
            { 'aria-label': `Remove share with ${who}` },
          ),
        );
      }),
    );
  };
  void reload().catch((error) => list.replaceChildren(h('li', {}, errorLine(error))));
  void addForm(base, reload).then((form) => panel.append(form));
  return panel;
}

/** The add form: people and workspaces to pick when the caller may list them, else an id to type. */
async function addForm(base: string, reload: () => Promise<void>): Promise<HTMLElement> {
  const [users, spaces] = await Promise.all([
    call('listUsers', 'GET', '/api/v1/users?page_size=100').then(
      (r) => r.data,
      () => [],
    ),
    call('listWorkspaces', 'GET', '/api/v1/workspaces?page_size=100').then(
      (r) => r.data,
      () => [],
    ),
  ]);
  const target =
    users.length + spaces.length > 0
      ? h(
          'select',
          { id: 'share-with', name: 'with', required: true },
          h(
            'optgroup',
            { label: 'People' },
            ...users.map((u) => h('option', { value: `user:${u.id}` }, `${u.name} <${u.email}>`)),
          ),
          h(
            'optgroup',
            { label: 'Workspaces' },
            ...spaces.map((w) => h('option', { value: `workspace:${w.id}` }, w.name)),
          ),
        )
      : h('input', { id: 'share-with', name: 'with', required: true, placeholder: 'user id' });
  const form = h(
    'form',
    { class: 'inline' },
    h('label', { for: 'share-with' }, 'Share with '),
    target,
    h('label', { for: 'share-permission' }, ' as '),
    h(
      'select',
      { id: 'share-permission', name: 'permission' },
      ...PERMISSIONS.map((p) => h('option', { value: p }, p)),
    ),
    h('button', { type: 'submit' }, 'Share'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    form.querySelector('.error')?.remove();
    const data = new FormData(form as HTMLFormElement);
    const [kind, id] = String(data.get('with')).includes(':')
      ? String(data.get('with')).split(':')
      : ['user', String(data.get('with'))];
    try {
      await send('POST', `${base}/share`, {
        body: { [kind === 'workspace' ? 'workspace_id' : 'user_id']: id, permission: data.get('permission') },
      });
      await reload();
    } catch (error) {
      form.append(errorLine(error));
    }
  });
  return form;
}
