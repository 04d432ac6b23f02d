// People and one's own account: the users with the state of their invitation mail, the profile
// (notification mail on or off), and choosing a password from an invitation or reset mail's link.
import { type Answer, ApiError, call, login, send } from './api.ts';
import { errorLine, field, formatDate, h, show } from './views.ts';

type Invitation = NonNullable<Answer<'listUsers'>['data'][number]['invitation']>;

/** What an open invitation's mail did, in words. */
function invitationState(i: Invitation): string {
  if (i.status === 'sent') return `invited · mail delivered ${formatDate(i.sent_at)}`;
  if (i.status === 'failed' || i.status === 'dead') return `invited · mail not delivered: ${i.last_error ?? i.status}`;
  if (i.status === 'retrying') return `invited · mail delayed, trying again (${i.last_error ?? 'no answer'})`;
  return 'invited · mail waiting to be sent';
}

export async function usersView(): Promise<void> {
  const users = await call('listUsers', 'GET', '/api/v1/users?page_size=100');
  const row = (u: (typeof users.data)[number]) =>
    h(
      'tr',
      {},
      h('td', {}, u.name),
      h('td', {}, u.email),
      h('td', {}, u.role),
      h('td', { class: 'wide' }, u.invitation ? invitationState(u.invitation) : u.status),
    );
  show(h('h2', {}, 'People'), h('table', { 'aria-label': 'People' }, h('tbody', {}, ...users.data.map(row))));
}

export async function profileView(): Promise<void> {
  const me = await call('getAuthMe', 'GET', '/api/v1/auth/me');
  const user = me.user;
  if (!user) return show(h('h2', {}, 'Profile'), h('p', {}, 'Signed in with an API key: there is no profile.'));
  const box = h('input', {
    type: 'checkbox',
    id: 'notification_mail',
    name: 'notification_mail',
    checked: user.notification_mail,
  }) as HTMLInputElement;
  const status = h('p', { role: 'status' });
  const save = async (event: Event) => {
    event.preventDefault();
    status.replaceChildren();
    try {
      await send('PATCH', `/api/v1/users/${encodeURIComponent(user.id)}`, { body: { notification_mail: box.checked } });
      status.append('Saved.');
    } catch (error) {
      status.append(errorLine(error));
    }
  };
  show(
    h('h2', {}, 'Profile'),
    h('p', {}, `${user.name} · ${user.email} · ${me.tenant.name}`),
    h(
      'form',
      { 'aria-label': 'Mail', onsubmit: save },
      h(
        'p',
        {},
        box,
        ' ',
        h('label', { for: 'notification_mail' }, 'Notification mail (tasks, failed workflows, plan and usage)'),
      ),
      h('p', { class: 'note' }, 'Invitations, password resets and e-mail changes are always sent.'),
      h('button', { type: 'submit' }, 'Save'),
      status,
    ),
  );
}

/** `#/password?token=&tenant=&email=`: the link of an invitation or reset mail. Sets the password, then signs in. */
export async function passwordView(query: URLSearchParams): Promise<void> {
  const token = query.get('token') ?? '';
  const tenant = query.get('tenant') ?? '';
  const email = query.get('email') ?? '';
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    form.querySelector('.error')?.remove();
    const password = String(new FormData(form).get('new_password'));
    try {
      // Sent without the tab's credential: the token alone says whose password this is.
      const res = await fetch('/api/v1/auth/password/reset', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, new_password: password }),
      });
      if (!res.ok) throw new ApiError(res.status, await res.json());
      await login(tenant, email, password);
      // The token is spent: it leaves the address bar and the history entry.
      history.replaceState(null, '', '/console/#/documents');
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    } catch (error) {
      form.append(errorLine(error));
    }
  };
  show(
    h(
      'form',
      { 'aria-labelledby': 'password-title', onsubmit: submit },
      h('h2', { id: 'password-title' }, 'Choose a password'),
      h('p', {}, `For ${email} on ${tenant}.`),
      field('New password (at least 8 characters)', 'new_password', 'password', {
        minlength: 8,
        autocomplete: 'new-password',
      }),
      h('button', { type: 'submit' }, 'Set password and sign in'),
    ),
  );
}
