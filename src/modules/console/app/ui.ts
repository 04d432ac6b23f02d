// Small shared pieces of the console's views: preact's `h`, errors in words, and the address bar.
import { type ComponentChildren, h } from 'preact';
import { DocuVaultError } from './sdk.ts';
import { t } from './i18n.ts';

export { h };

/** An error in words: the service's message (never a bare status), and the request id to quote. */
export function ErrorLine({ error }: { error: unknown }) {
  if (!error) return null;
  const message =
    error instanceof DocuVaultError
      ? error.message
      : error instanceof TypeError
        ? t('error.network')
        : String((error as Error)?.message ?? error);
  const id = error instanceof DocuVaultError ? error.requestId : undefined;
  return h(
    'p',
    { class: 'error', role: 'alert' },
    message,
    id ? h('span', { class: 'request-id' }, ` ${t('error.request', { id })}`) : null,
  );
}

export function Section({
  title,
  id,
  children,
  class: cls,
}: {
  title: string;
  id: string;
  children: ComponentChildren;
  class?: string;
}) {
  return h(
    'section',
    { class: `card ${cls ?? ''}`, 'aria-labelledby': id },
    h('h2', { id, class: 'card-title' }, title),
    children,
  );
}

/** The view's place and parameters: `#/name/arg?key=value`. */
export interface Route {
  name: string;
  arg: string;
  params: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [name = 'documents', ...rest] = path.split('/');
  return { name: name || 'documents', arg: decodeURIComponent(rest.join('/')), params: new URLSearchParams(query) };
}

/** The address of a view with parameters (empty values left out). */
export function href(name: string, arg = '', params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => Boolean(e[1])));
  const q = query.toString();
  return `#/${name}${arg ? `/${encodeURIComponent(arg)}` : ''}${q ? `?${q}` : ''}`;
}

/** Changes the address without a new history entry (filters, sort). */
export function replaceRoute(target: string): void {
  history.replaceState(null, '', target);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

/** Who is signed in: their role (`api_key` for an operator's key) decides what the navigation offers. */
export interface Me {
  role: string;
  name: string;
  tenant: string;
  tier: string;
}

/** What every view is given. */
export interface ViewProps {
  route: Route;
  me: Me;
}

export type Doc = import('./sdk.ts').OperationResponse<'getDocument'>;
export type Folder = import('./sdk.ts').OperationResponse<'listFolders'>['folders'][number];
