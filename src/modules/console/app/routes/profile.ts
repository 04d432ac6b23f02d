// One's own account: name and notification mail, a password change, and the sessions signed in
// elsewhere (each can be signed out). People only: an API key has no profile.
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h, type ViewProps } from '../ui.ts';
import { attempt, Field, Loading, PasswordField, useLoad, when } from './account-ui.ts';

type User = NonNullable<OperationResponse<'getAuthMe'>['user']>;
type Session = OperationResponse<'listAuthSessions'>['data'][number];

export default function Profile({ me }: ViewProps) {
  const account = useLoad(() => client().call('getAuthMe'));
  if (me.role === 'api_key')
    return h('div', { class: 'account' }, h('h1', {}, t('profile.title')), h('p', {}, t('profile.apiKey')));
  const user = account.data?.user;
  return h(
    'div',
    { class: 'account profile' },
    h('h1', {}, t('profile.title')),
    user && account.data
      ? [h(Details, { key: 'details', user, workspace: account.data.tenant.name }), h(Sessions, { key: 'sessions' })]
      : h(Loading, { error: account.error }),
  );
}

function Details({ user, workspace }: { user: User; workspace: string }) {
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const save = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    setSaved(false);
    void attempt(
      () =>
        client().call('updateUser', {
          path: { id: user.id },
          body: { name: String(data.get('name')), notification_mail: data.get('notification_mail') === 'on' },
        }),
      setError,
    ).then(setSaved);
  };
  return [
    h(
      'form',
      { class: 'card', onSubmit: save, 'aria-labelledby': 'profile-details' },
      h('h2', { id: 'profile-details', class: 'card-title' }, t('profile.details')),
      h(
        'dl',
        { class: 'entities' },
        h('dt', {}, t('profile.email')),
        h('dd', { class: 'break' }, user.email, h('span', { class: 'muted' }, ` (${t('profile.emailHint')})`)),
        h('dt', {}, t('profile.role')),
        h('dd', {}, t(`role.${user.role}` as 'role.owner')),
        h('dt', {}, t('profile.workspace')),
        h('dd', {}, workspace),
      ),
      h(
        Field,
        { label: t('profile.name') },
        h('input', { name: 'name', required: true, maxLength: 200, value: user.name, autocomplete: 'name' }),
      ),
      h(
        'label',
        { class: 'check' },
        h('input', { type: 'checkbox', name: 'notification_mail', checked: user.notification_mail }),
        ` ${t('profile.notificationMail')}`,
      ),
      h('p', { class: 'muted' }, t('profile.notificationHint')),
      h('button', { type: 'submit', class: 'primary' }, t('profile.save')),
      saved ? h('p', { role: 'status' }, t('profile.saved')) : null,
      h(ErrorLine, { error }),
    ),
    h(ChangePassword, { key: 'password' }),
  ];
}

function ChangePassword() {
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const change = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    setDone(false);
    if (data.get('new_password') !== data.get('repeat')) return setError(new Error(t('profile.mismatch')));
    void attempt(
      () =>
        client().call('changeAuthPassword', {
          body: { current_password: String(data.get('current')), new_password: String(data.get('new_password')) },
        }),
      setError,
    ).then((ok) => {
      if (!ok) return;
      form.reset();
      setDone(true);
      // The other sessions are gone: the list below says so.
      window.dispatchEvent(new Event('docuvault:sessions'));
    });
  };
  return h(
    'form',
    { class: 'card', onSubmit: change, 'aria-labelledby': 'profile-password' },
    h('h2', { id: 'profile-password', class: 'card-title' }, t('profile.password')),
    h(PasswordField, { label: t('profile.current'), name: 'current', current: true }),
    h(PasswordField, { label: t('profile.new'), name: 'new_password' }),
    h(PasswordField, { label: t('profile.repeat'), name: 'repeat' }),
    h('button', { type: 'submit' }, t('profile.password')),
    done ? h('p', { role: 'status' }, t('profile.changed')) : null,
    h(ErrorLine, { error }),
  );
}

/** "Firefox on Linux" from a user agent: enough to tell one's devices apart. */
export function deviceOf(userAgent: string | null): string {
  if (!userAgent) return t('profile.unknownDevice');
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : (/^[\w.-]+/.exec(userAgent)?.[0] ?? '');
  const os = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad/.test(userAgent)
      ? 'iOS'
      : /Windows/.test(userAgent)
        ? 'Windows'
        : /Mac OS X/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : '';
  if (!browser) return t('profile.unknownDevice');
  return os ? t('profile.device', { browser, os }) : browser;
}

function Sessions() {
  const sessions = useLoad(() => client().call('listAuthSessions', { query: { page_size: 100 } }));
  const [error, setError] = useState<unknown>(null);
  const [revoked, setRevoked] = useState<number | null>(null);
  // A password change signs the other sessions out: listen for it and list again.
  useEffect(() => {
    const again = () => sessions.reload();
    window.addEventListener('docuvault:sessions', again);
    return () => window.removeEventListener('docuvault:sessions', again);
  }, []);
  const revoke = (list: Session[]) =>
    void attempt(async () => {
      for (const s of list) await client().call('deleteAuthSession', { path: { id: s.id } });
      setRevoked(list.length);
    }, setError).finally(sessions.reload);
  const rows = sessions.data?.data ?? [];
  const others = rows.filter((s) => !s.current);
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'profile-sessions' },
    h('h2', { id: 'profile-sessions', class: 'card-title' }, t('profile.sessions')),
    sessions.data
      ? h(
          'ul',
          { class: 'list', 'aria-label': t('profile.sessions') },
          rows.map((s) => {
            const device = deviceOf(s.user_agent);
            const used = when(s.last_used_at);
            return h(
              'li',
              { key: s.id },
              h(
                'span',
                { class: 'member-info' },
                h('strong', {}, device),
                s.current ? h('span', { class: 'badge ok' }, ` ${t('profile.thisSession')}`) : null,
                h(
                  'span',
                  { class: 'muted sub-line' },
                  t('profile.sessionLine', { ip: s.ip ?? '?', created: when(s.created_at), used }),
                ),
              ),
              s.current
                ? null
                : h(
                    'button',
                    {
                      type: 'button',
                      'aria-label': t('profile.revokeOf', { device, used }),
                      onClick: () => revoke([s]),
                    },
                    t('profile.revoke'),
                  ),
            );
          }),
        )
      : h(Loading, { error: sessions.error }),
    sessions.data && others.length === 0 ? h('p', { class: 'muted' }, t('profile.sessionsNone')) : null,
    others.length > 1
      ? h('button', { type: 'button', onClick: () => revoke(others) }, t('profile.revokeOthers'))
      : null,
    revoked !== null ? h('p', { role: 'status' }, t('profile.revoked', { n: revoked })) : null,
    h(ErrorLine, { error }),
  );
}
