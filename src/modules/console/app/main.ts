// The console's shell: sign-in, navigation by role, dark mode, the router. Each view is its own
// chunk, loaded when first shown (esbuild code splitting).
import { type ComponentChildren, type ComponentType, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from './i18n.ts';
import { askPasswordReset, client, loadSession, saveSession, signIn } from './sdk.ts';
import { ErrorLine, h, type Me, parseRoute, type Route, type ViewProps } from './ui.ts';

type ViewModule = { default: ComponentType<ViewProps> };
const VIEWS: Record<string, () => Promise<ViewModule>> = {
  documents: () => import('./routes/documents.ts'),
  document: () => import('./routes/document.ts'),
  search: () => import('./routes/search.ts'),
  keys: () => import('./routes/keys.ts'),
  webhooks: () => import('./routes/webhooks.ts'),
  members: () => import('./routes/members.ts'),
  subscription: () => import('./routes/subscription.ts'),
  storage: () => import('./routes/storage.ts'),
  imports: () => import('./routes/imports.ts'),
  audit: () => import('./routes/audit.ts'),
  workflows: () => import('./routes/workflows.ts'),
  workflow: () => import('./routes/workflow-editor.ts'),
  executions: () => import('./routes/executions.ts'),
  tasks: () => import('./routes/tasks.ts'),
  profile: () => import('./routes/profile.ts'),
};
// The link of invitation and reset mails: shown signed in or not.
const passwordView = () => import('./routes/password.ts');

const ADMINS = ['owner', 'admin', 'api_key'];
const TEAM = ['team', 'enterprise'];
/** Who may see which section: nobody is shown a page they cannot use. */
const NAV: {
  name: string;
  label: () => string;
  roles?: string[];
  tiers?: string[];
  also?: string[];
  hide?: string[];
}[] = [
  { name: 'documents', label: () => t('nav.documents') },
  { name: 'search', label: () => t('nav.search') },
  { name: 'keys', label: () => t('nav.keys'), roles: ADMINS },
  { name: 'webhooks', label: () => t('nav.webhooks'), roles: ADMINS },
  { name: 'members', label: () => t('nav.members'), roles: ADMINS },
  { name: 'subscription', label: () => t('nav.subscription'), roles: ADMINS },
  { name: 'storage', label: () => t('nav.storage'), roles: ADMINS },
  { name: 'imports', label: () => t('nav.imports'), roles: ADMINS, tiers: ['team', 'enterprise'] },
  { name: 'audit', label: () => t('nav.audit'), roles: ADMINS },
  {
    name: 'workflows',
    label: () => t('nav.workflows'),
    tiers: TEAM,
    also: ['workflow', 'executions'],
    hide: ['viewer'],
  },
  { name: 'tasks', label: () => t('nav.tasks'), tiers: TEAM },
];

export function allowed(name: string, me: Me): boolean {
  const item = NAV.find((n) => n.name === name || n.also?.includes(name));
  return (
    (!item?.roles || item.roles.includes(me.role)) &&
    (!item?.tiers || item.tiers.includes(me.tier)) &&
    !item?.hide?.includes(me.role)
  );
}

function useHash(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return parseRoute(hash);
}

const THEME_KEY = 'docuvault.console.theme';
function useTheme(): [boolean, () => void] {
  const [dark, setDark] = useState(
    () =>
      (localStorage.getItem(THEME_KEY) ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light')) ===
      'dark',
  );
  useEffect(() => {
    document.documentElement.dataset['theme'] = dark ? 'dark' : 'light';
  }, [dark]);
  return [
    dark,
    () => {
      localStorage.setItem(THEME_KEY, dark ? 'light' : 'dark');
      setDark(!dark);
    },
  ];
}

function SignIn({ onDone }: { onDone: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event, mode: 'user' | 'key') => {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      if (mode === 'key') {
        saveSession({ apiKey: String(data.get('apiKey')) });
        await client().call('getAuthMe');
      } else await signIn(String(data.get('tenant')), String(data.get('email')), String(data.get('password')));
      onDone();
    } catch (e) {
      saveSession(null);
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const field = (label: string, name: string, type: string, autocomplete: string) =>
    h('label', { class: 'field' }, h('span', {}, label), h('input', { name, type, required: true, autocomplete }));
  return h(
    'div',
    { class: 'signin' },
    h(
      'form',
      { class: 'card', 'aria-labelledby': 'signin-title', onSubmit: (e: Event) => submit(e, 'user') },
      h('h1', { id: 'signin-title' }, t('signin.title')),
      field(t('signin.tenant'), 'tenant', 'text', 'organization'),
      field(t('signin.email'), 'email', 'email', 'username'),
      field(t('signin.password'), 'password', 'password', 'current-password'),
      h(ErrorLine, { error }),
      h('button', { type: 'submit', class: 'primary', disabled: busy }, t('signin.submit')),
    ),
    h(Forgot, null),
    h(
      'form',
      { class: 'card', 'aria-labelledby': 'key-title', onSubmit: (e: Event) => submit(e, 'key') },
      h('h2', { id: 'key-title' }, t('signin.key.title')),
      field(t('signin.key'), 'apiKey', 'password', 'off'),
      h('button', { type: 'submit', disabled: busy }, t('signin.key.submit')),
    ),
  );
}

/** Asks for a reset mail; its link opens the password view (`#/password?token=…`). */
function Forgot() {
  const [sent, setSent] = useState('');
  const [error, setError] = useState<unknown>(null);
  // The fields exist only while unfolded: the sign-in form's own fields stay the only ones by their names.
  const [open, setOpen] = useState(false);
  const ask = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const email = String(data.get('email'));
    setError(null);
    askPasswordReset(String(data.get('tenant')), email).then(() => setSent(email), setError);
  };
  return h(
    'details',
    { class: 'card forgot', onToggle: (e: Event) => setOpen((e.target as HTMLDetailsElement).open) },
    h('summary', {}, t('forgot.title')),
    open &&
      h(
        'form',
        { 'aria-label': t('forgot.title'), onSubmit: ask },
        h(
          'label',
          { class: 'field' },
          h('span', {}, t('forgot.tenant')),
          h('input', { name: 'tenant', required: true, autocomplete: 'organization' }),
        ),
        h(
          'label',
          { class: 'field' },
          h('span', {}, t('forgot.email')),
          h('input', { name: 'email', type: 'email', required: true, autocomplete: 'username' }),
        ),
        h(ErrorLine, { error }),
        sent ? h('p', { role: 'status' }, t('password.sent', { email: sent })) : null,
        h('button', { type: 'submit' }, t('forgot.submit')),
      ),
  );
}

/** The password view, its own chunk, loaded when a mail's link is opened. */
function PasswordView({ route, onSignedIn }: { route: Route; onSignedIn: () => void }) {
  const [view, setView] = useState<ComponentType<{ route: Route; onSignedIn: () => void }> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    passwordView().then((m) => setView(() => m.default), setError);
  }, []);
  if (error) return h(ErrorLine, { error });
  return view ? h(view, { route, onSignedIn }) : h('p', { class: 'muted', role: 'status' }, t('loading'));
}

function View({ route, me }: ViewProps) {
  const [view, setView] = useState<{ name: string; Component: ComponentType<ViewProps> } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const name = VIEWS[route.name] && allowed(route.name, me) ? route.name : '';
  useEffect(() => {
    if (!name) return;
    let live = true;
    setError(null);
    VIEWS[name]!()
      .then((m) => live && setView({ name, Component: m.default }))
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [name]);
  if (!name) return h('p', {}, t('notFound'));
  if (error) return h(ErrorLine, { error });
  if (!view || view.name !== name) return h('p', { class: 'muted', role: 'status' }, t('loading'));
  return h(view.Component, { route, me });
}

function App() {
  const route = useHash();
  const [dark, toggleTheme] = useTheme();
  const [me, setMe] = useState<Me | null>(null);
  const [signedIn, setSignedIn] = useState(() => loadSession() !== null);
  const [error, setError] = useState<unknown>(null);
  // Bumped when another person signs in from a mail's link: who is signed in is asked again.
  const [round, setRound] = useState(0);
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!signedIn) return;
    client()
      .call('getAuthMe')
      .then((a) =>
        setMe({
          role: a.auth.via === 'api_key' ? 'api_key' : a.auth.role,
          name: a.user?.name ?? a.tenant.name,
          tenant: a.tenant.name,
          tier: a.tenant.tier,
        }),
      )
      .catch((e) => {
        if ((e as { status?: number }).status === 401) {
          saveSession(null);
          setSignedIn(false);
        } else setError(e);
      });
  }, [signedIn, round]);
  // A new view: focus moves to it (keyboard and screen-reader users start there), scrolled to the top.
  const key = `${route.name}/${route.arg}`;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }, [key]);
  const signOut = () => {
    void client()
      .logout()
      .catch(() => undefined);
    saveSession(null);
    setMe(null);
    setSignedIn(false);
  };
  const header = h(
    'header',
    { class: 'top' },
    h('a', { class: 'brand', href: '#/documents' }, t('app.name')),
    signedIn && me
      ? h(
          'nav',
          { 'aria-label': t('nav.label') },
          NAV.filter((n) => allowed(n.name, me)).map((n) =>
            h(
              'a',
              {
                key: n.name,
                class: 'nav-link',
                href: `#/${n.name}`,
                'aria-current':
                  route.name === n.name ||
                  (n.name === 'documents' && route.name === 'document') ||
                  n.also?.includes(route.name)
                    ? 'page'
                    : undefined,
              },
              n.label(),
            ),
          ),
        )
      : h('span', { class: 'spacer' }),
    h(
      'button',
      { type: 'button', class: 'ghost', 'aria-pressed': dark ? 'true' : 'false', onClick: toggleTheme },
      t('theme.toggle'),
    ),
    signedIn && me && me.role !== 'api_key'
      ? h(
          'a',
          { class: 'nav-link', href: '#/profile', 'aria-current': route.name === 'profile' ? 'page' : undefined },
          t('nav.profile'),
        )
      : null,
    signedIn ? h('button', { type: 'button', class: 'ghost', onClick: signOut }, t('signout')) : null,
  );
  let body: ComponentChildren;
  const signedInByLink = () => {
    setMe(null);
    setError(null);
    setSignedIn(true);
    setRound((r) => r + 1);
  };
  if (route.name === 'password') body = h(PasswordView, { route, onSignedIn: signedInByLink });
  else if (!signedIn) body = h(SignIn, { onDone: () => setSignedIn(true) });
  else if (error) body = h(ErrorLine, { error });
  else if (!me) body = h('p', { class: 'muted', role: 'status' }, t('loading'));
  else body = h(View, { route, me });
  const skip = (e: Event) => {
    e.preventDefault();
    main.current?.focus();
  };
  return h(
    'div',
    { class: 'shell' },
    h('a', { class: 'skip', href: '#main', onClick: skip }, t('app.skip')),
    header,
    h('main', { id: 'main', tabIndex: -1, ref: main }, body),
  );
}

render(h(App, null), document.getElementById('app') as HTMLElement);
