// Members: invite (an invitation mail is sent), change role and other roles, disable or enable,
// remove; the invitation's mail state; workspaces with their members. Owners, admins, API keys.
import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h, href, type ViewProps } from '../ui.ts';
import { attempt, Field, Loading, StatusBadge, useLoad, when } from './account-ui.ts';

type User = OperationResponse<'listUsers'>['data'][number];
const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
type Role = (typeof ROLES)[number];
const roleWord = (r: string) => (ROLES.includes(r as Role) ? t(`role.${r as Role}`) : r);

export default function Members({ route, me }: ViewProps) {
  const users = useLoad(() => client().call('listUsers', { query: { page_size: 100 } }));
  const [error, setError] = useState<unknown>(null);
  const [invited, setInvited] = useState<string | null>(null);
  const invite = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    void attempt(async () => {
      const u = await client().call('createUser', {
        body: { name: String(data.get('name')), email: String(data.get('email')), role: data.get('role') as Role },
      });
      setInvited(u.email);
      form.reset();
      users.reload();
    }, setError);
  };
  return h(
    'div',
    { class: 'account' },
    h('h1', {}, t('members.title')),
    h(
      'form',
      { class: 'card row', onSubmit: invite, 'aria-label': t('members.invite') },
      h(Field, { label: t('members.name') }, h('input', { name: 'name', required: true, maxLength: 200 })),
      h(Field, { label: t('members.email') }, h('input', { name: 'email', type: 'email', required: true })),
      h(
        Field,
        { label: t('members.role') },
        h(
          'select',
          { name: 'role', value: 'member' },
          ROLES.filter((r) => r !== 'owner' || me.role === 'owner').map((r) =>
            h('option', { key: r, value: r }, roleWord(r)),
          ),
        ),
      ),
      h('button', { type: 'submit', class: 'primary' }, t('members.invite')),
    ),
    invited ? h('p', { role: 'status' }, t('members.invited', { email: invited })) : null,
    h(ErrorLine, { error }),
    users.data
      ? h(
          'ul',
          { class: 'list card', 'aria-label': t('members.title') },
          users.data.data.map((u) => h(MemberRow, { key: u.id, user: u, me, onChange: users.reload })),
        )
      : h(Loading, { error: users.error }),
    h(Workspaces, { users: users.data?.data ?? [], open: route.arg }),
  );
}

function MemberRow({ user, me, onChange }: { user: User; me: ViewProps['me']; onChange: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const patch = (body: { role?: Role; roles?: string[]; status?: 'active' | 'disabled' }) =>
    void attempt(() => client().call('updateUser', { path: { id: user.id }, body }), setError).then(
      (ok) => ok && onChange(),
    );
  const remove = () => {
    if (confirm(t('members.confirmRemove', { name: user.name })))
      void attempt(() => client().call('deleteUser', { path: { id: user.id } }), setError).then(
        (ok) => ok && onChange(),
      );
  };
  const canTouch = user.role !== 'owner' || me.role === 'owner';
  const invitation = user.invitation
    ? t('members.invitation', {
        state: user.invitation.status,
        date: when(user.invitation.sent_at ?? user.invitation.created_at),
      }) + (user.invitation.last_error ? ` · ${user.invitation.last_error}` : '')
    : '';
  const others = user.roles.filter((r) => !ROLES.includes(r as Role));
  return h(
    'li',
    { class: 'member' },
    h(
      'span',
      { class: 'member-info' },
      h('strong', {}, user.name),
      ' ',
      h('span', { class: 'muted break' }, user.email),
      invitation ? h('div', { class: 'muted' }, invitation) : null,
      others.length ? h('div', { class: 'muted' }, t('members.otherRoles', { roles: others.join(', ') })) : null,
      h(ErrorLine, { error }),
    ),
    h(StatusBadge, { value: user.status }),
    h(
      'select',
      {
        'aria-label': t('members.roleOf', { name: user.name }),
        value: user.role,
        disabled: !canTouch,
        onChange: (e: Event) => patch({ role: (e.target as HTMLSelectElement).value as Role }),
      },
      ROLES.filter((r) => r !== 'owner' || me.role === 'owner' || user.role === 'owner').map((r) =>
        h('option', { key: r, value: r }, roleWord(r)),
      ),
    ),
    canTouch
      ? h(
          'button',
          {
            type: 'button',
            class: 'small',
            onClick: () => patch({ status: user.status === 'disabled' ? 'active' : 'disabled' }),
            'aria-label': t(user.status === 'disabled' ? 'members.enableOf' : 'members.disableOf', { name: user.name }),
          },
          t(user.status === 'disabled' ? 'members.enable' : 'members.disable'),
        )
      : null,
    canTouch
      ? h(
          'button',
          {
            type: 'button',
            class: 'danger small',
            onClick: remove,
            'aria-label': t('members.removeOf', { name: user.name }),
          },
          t('members.remove'),
        )
      : null,
  );
}

function Workspaces({ users, open }: { users: User[]; open: string }) {
  const spaces = useLoad(() => client().call('listWorkspaces', { query: { page_size: 100 } }));
  const [error, setError] = useState<unknown>(null);
  const create = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    void attempt(
      () =>
        client().call('createWorkspace', {
          body: { name: String(data.get('name')), description: String(data.get('description')) || null },
        }),
      setError,
    ).then((ok) => {
      if (ok) {
        form.reset();
        spaces.reload();
      }
    });
  };
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'ws-title' },
    h('h2', { id: 'ws-title', class: 'card-title' }, t('ws.title')),
    h(
      'form',
      { class: 'row', onSubmit: create, 'aria-label': t('ws.create') },
      h(Field, { label: t('ws.name') }, h('input', { name: 'name', required: true, maxLength: 200 })),
      h(Field, { label: t('ws.description') }, h('input', { name: 'description', maxLength: 1000 })),
      h('button', { type: 'submit' }, t('ws.create')),
    ),
    h(ErrorLine, { error }),
    spaces.data
      ? h(
          'ul',
          { class: 'list', 'aria-label': t('ws.title') },
          spaces.data.data.map((w) =>
            h(
              'li',
              { key: w.id, class: 'column' },
              h(
                'div',
                { class: 'row spread' },
                h(
                  'span',
                  {},
                  h('strong', {}, w.name),
                  ' ',
                  h('span', { class: 'muted' }, t('ws.count', { n: w.member_count })),
                ),
                h(
                  'a',
                  {
                    class: 'button small',
                    href: open === w.id ? href('members') : href('members', w.id),
                    'aria-expanded': open === w.id,
                  },
                  t('ws.membersOf', { name: w.name }),
                ),
              ),
              open === w.id ? h(WorkspaceMembers, { id: w.id, users, onChange: spaces.reload }) : null,
            ),
          ),
        )
      : h(Loading, { error: spaces.error }),
  );
}

function WorkspaceMembers({ id, users, onChange }: { id: string; users: User[]; onChange: () => void }) {
  const ws = useLoad(() => client().call('getWorkspace', { path: { id } }), [id]);
  const [error, setError] = useState<unknown>(null);
  const done = (ok: boolean) => {
    if (ok) {
      ws.reload();
      onChange();
    }
  };
  const add = (e: Event) => {
    e.preventDefault();
    const user = String(new FormData(e.target as HTMLFormElement).get('user'));
    void attempt(
      () => client().call('createWorkspaceMember', { path: { id }, body: { user_id: user } }),
      setError,
    ).then(done);
  };
  const remove = (userId: string) =>
    void attempt(() => client().call('deleteWorkspaceMember', { path: { id, user_id: userId } }), setError).then(done);
  const remove_ = () => {
    if (ws.data && confirm(t('ws.confirmDelete', { name: ws.data.name })))
      void attempt(() => client().call('deleteWorkspace', { path: { id } }), setError).then((ok) => ok && onChange());
  };
  if (!ws.data) return h(Loading, { error: ws.error });
  const inside = new Set(ws.data.members.map((m) => m.user_id));
  return h(
    'div',
    { class: 'nested' },
    h(
      'ul',
      { class: 'list', 'aria-label': t('ws.membersOf', { name: ws.data.name }) },
      ws.data.members.map((m) =>
        h(
          'li',
          { key: m.user_id },
          h('span', {}, m.name, ' ', h('span', { class: 'muted' }, roleWord(m.role))),
          h(
            'button',
            {
              type: 'button',
              class: 'small',
              onClick: () => remove(m.user_id),
              'aria-label': t('ws.removeOf', { name: m.name }),
            },
            t('members.remove'),
          ),
        ),
      ),
    ),
    h(
      'form',
      { class: 'row', onSubmit: add, 'aria-label': t('ws.add') },
      h(
        Field,
        { label: t('ws.addWho') },
        h(
          'select',
          { name: 'user', required: true },
          users.filter((u) => !inside.has(u.id)).map((u) => h('option', { key: u.id, value: u.id }, u.name)),
        ),
      ),
      h('button', { type: 'submit' }, t('ws.add')),
      h('button', { type: 'button', class: 'danger', onClick: remove_ }, t('ws.delete')),
    ),
    h(ErrorLine, { error }),
  );
}
