// The console: a hash-routed single page over the public API. Each view loads what it shows.
import { passwordView, profileView, usersView } from './account.ts';
import { keysView, webhooksView } from './admin.ts';
import { ApiError, loadSession, login, saveSession, send } from './api.ts';
import { documentsView, searchView } from './browse.ts';
import { documentView } from './document.ts';
import { uploadView } from './upload.ts';
import { errorLine, field, h, show } from './views.ts';
import { executionsView, executionView, tasksView } from './workflows.ts';

const routes: Record<string, (arg: string) => Promise<void>> = {
  documents: documentsView,
  document: documentView,
  upload: uploadView,
  search: searchView,
  tasks: tasksView,
  executions: executionsView,
  execution: executionView,
  webhooks: webhooksView,
  keys: keysView,
  people: usersView,
  profile: profileView,
};

/** Draws the view the address names; `moveFocus` when the view changed (not on a redraw after a change). */
async function route(moveFocus = false): Promise<void> {
  const signedIn = loadSession() !== null;
  (document.getElementById('nav') as HTMLElement).classList.toggle('off', !signedIn);
  (document.querySelector('search') as HTMLElement).classList.toggle('off', !signedIn);
  const main = document.getElementById('main') as HTMLElement;
  main.setAttribute('aria-busy', 'true');
  try {
    const [route = '', query = ''] = location.hash.replace(/^#\//, '').split('?');
    // The link of an invitation or password reset mail works signed in or not.
    if (route === 'password') return passwordView(new URLSearchParams(query));
    if (!signedIn) return loginView();
    const [name = 'documents', arg = ''] = route.split('/').map(decodeURIComponent);
    markCurrent(name);
    await (routes[name] ?? documentsView)(arg);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      saveSession(null);
      return route();
    }
    show(errorLine(error));
  } finally {
    main.removeAttribute('aria-busy');
    // The first view drawn: the moment the console is usable (read by bench/console-load.bench.ts).
    if (performance.getEntriesByName('console:interactive').length === 0) performance.mark('console:interactive');
    if (moveFocus) {
      main.focus({ preventScroll: true });
      window.scrollTo(0, 0);
    }
  }
}

function markCurrent(name: string): void {
  for (const a of document.querySelectorAll<HTMLAnchorElement>('#nav a')) {
    if (a.hash === `#/${name}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function loginView(): void {
  const user = h(
    'form',
    { 'aria-labelledby': 'user-title', onsubmit: (e: Event) => void signIn(e, 'user') },
    h('h2', { id: 'user-title' }, 'Sign in'),
    field('Workspace (subdomain)', 'tenant', 'text'),
    field('E-mail', 'email', 'email'),
    field('Password', 'password', 'password'),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  const key = h(
    'form',
    { 'aria-labelledby': 'key-title', onsubmit: (e: Event) => void signIn(e, 'key') },
    h('h2', { id: 'key-title' }, 'Operator: API key'),
    field('API key', 'apiKey', 'password'),
    h('button', { type: 'submit' }, 'Use key'),
  );
  show(h('div', { class: 'layout' }, user, key));
}

async function signIn(event: Event, mode: 'user' | 'key'): Promise<void> {
  event.preventDefault();
  const form = event.target as HTMLFormElement;
  const data = new FormData(form);
  form.querySelector('.error')?.remove();
  try {
    if (mode === 'key') {
      saveSession({ apiKey: String(data.get('apiKey')) });
      await send('GET', '/api/v1/tags?page_size=1');
    } else {
      await login(String(data.get('tenant')), String(data.get('email')), String(data.get('password')));
    }
    if (location.hash === '#/documents') await route(true);
    else location.hash = '#/documents';
  } catch (error) {
    saveSession(null);
    form.append(errorLine(error));
  }
}

document.getElementById('search')?.addEventListener('submit', (e) => {
  e.preventDefault();
  if (location.hash === '#/search') void route(true);
  else location.hash = '#/search';
});
document.getElementById('signout')?.addEventListener('click', () => {
  void send('POST', '/api/v1/auth/logout').catch(() => undefined);
  saveSession(null);
  history.replaceState(null, '', '/console/');
  void route(true);
});
window.addEventListener('hashchange', () => void route(true));
window.addEventListener('console:rerender', () => void route());
void route();
