// `#/password?token=&tenant=&email=`: the link of an invitation or password-reset mail. Choose a
// password, then be signed in as that person, whoever was signed in in this tab before.
import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { askPasswordReset, setPasswordFromToken, signIn } from '../sdk.ts';
import { ErrorLine, h, type Route } from '../ui.ts';
import { PasswordField } from './account-ui.ts';

export default function Password({ route, onSignedIn }: { route: Route; onSignedIn: () => void }) {
  const token = route.params.get('token') ?? '';
  const tenant = route.params.get('tenant') ?? '';
  const email = route.params.get('email') ?? '';
  const [error, setError] = useState<unknown>(null);
  const [refused, setRefused] = useState(false);
  const [busy, setBusy] = useState(false);
  const [mailed, setMailed] = useState(false);
  if (!token || !tenant || !email)
    return h(
      'div',
      { class: 'signin' },
      h('div', { class: 'card' }, h('h1', {}, t('password.title')), h('p', {}, t('password.incomplete'))),
    );
  const submit = async (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const password = String(data.get('new_password'));
    setError(null);
    if (password !== data.get('repeat')) return setError(new Error(t('profile.mismatch')));
    setBusy(true);
    try {
      try {
        await setPasswordFromToken(token, password);
      } catch (refusal) {
        // A spent or expired token is a 400: a new link is what helps.
        setRefused((refusal as { status?: number }).status === 400);
        throw refusal;
      }
      await signIn(tenant, email, password);
      // The token is spent: it leaves the address bar and the history entry.
      history.replaceState(null, '', `${location.pathname}#/documents`);
      window.dispatchEvent(new HashChangeEvent('hashchange'));
      onSignedIn();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const again = () => void askPasswordReset(tenant, email).then(() => setMailed(true), setError);
  return h(
    'div',
    { class: 'signin' },
    h(
      'form',
      { class: 'card', 'aria-labelledby': 'password-title', onSubmit: submit },
      h('h1', { id: 'password-title' }, t('password.title')),
      h('p', {}, t('password.for', { email, tenant })),
      // The account's name, for password managers to file the new password under.
      h('input', { type: 'hidden', name: 'username', autocomplete: 'username', value: email }),
      h(PasswordField, { label: t('profile.new'), name: 'new_password' }),
      h(PasswordField, { label: t('profile.repeat'), name: 'repeat' }),
      h(ErrorLine, { error }),
      refused
        ? h(
            'p',
            {},
            t('password.again'),
            ' ',
            h('button', { type: 'button', onClick: again, disabled: mailed }, t('password.newLink')),
          )
        : null,
      mailed ? h('p', { role: 'status' }, t('password.sent', { email })) : null,
      h('button', { type: 'submit', class: 'primary', disabled: busy }, t('password.submit')),
    ),
  );
}
