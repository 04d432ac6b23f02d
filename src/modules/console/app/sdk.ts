// The console's one way to the service: the typed SDK (packages/sdk) with this tab's credential.
// Bundled for the browser by scripts/build-console.ts (the SDK's Node-only helpers, file uploads
// from a path and downloads to a file, are replaced by empty modules there and never called here).
import type { UserTokens } from '../../../../packages/sdk/src/auth.ts';
import { DocuVault } from '../../../../packages/sdk/src/client.ts';
import { DocuVaultError } from '../../../../packages/sdk/src/errors.ts';

export type { OperationResponse } from '../../../../packages/sdk/src/operation-types.ts';
export { DocuVaultError };

/** The credential kept for this tab (sessionStorage): a user's tokens or an operator's API key. */
export type Session = { tokens: UserTokens } | { apiKey: string };

const KEY = 'docuvault.console.session';

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(KEY);
  return raw ? (JSON.parse(raw) as Session) : null;
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
  current = null;
}

let current: DocuVault | null = null;

/** The client of this tab's session (refreshed tokens are saved back). */
export function client(): DocuVault {
  if (current) return current;
  const session = loadSession();
  const base = location.origin;
  current = new DocuVault({
    baseUrl: base,
    ...(session && 'apiKey' in session ? { apiKey: session.apiKey } : {}),
    ...(session && 'tokens' in session
      ? {
          tokens: session.tokens,
          onTokens: (tokens: UserTokens) => sessionStorage.setItem(KEY, JSON.stringify({ tokens })),
        }
      : {}),
    retry: { maxRetries: 2 },
  });
  return current;
}

/** Signs a user in and keeps their tokens for this tab; throws DocuVaultError when refused. */
export async function signIn(tenant: string, email: string, password: string): Promise<void> {
  let kept: UserTokens | null = null;
  await DocuVault.login({
    baseUrl: location.origin,
    tenant,
    email,
    password,
    onTokens: (t) => {
      kept = t;
    },
  });
  if (kept) saveSession({ tokens: kept });
}

/** The request headers of this tab's credential, for the few requests the SDK cannot make in a browser (uploads with progress). */
export function credentialHeaders(): Record<string, string> {
  const session = loadSession();
  if (!session) return {};
  if ('apiKey' in session) return { 'x-api-key': session.apiKey };
  const t = client().tokens ?? session.tokens;
  return { authorization: `Bearer ${t.accessToken}`, 'x-tenant-subdomain': t.tenant, 'x-csrf-token': t.csrfToken };
}

/** A client with no credential: for the public calls (a password set from a mailed token, a reset asked for). */
function anonymous(): DocuVault {
  return new DocuVault({ baseUrl: location.origin, retry: { maxRetries: 2 } });
}

/** Sets a password from an invitation or reset mail's token; the token alone says whose password it is. */
export async function setPasswordFromToken(token: string, newPassword: string): Promise<void> {
  await anonymous().call('resetAuthPassword', { body: { token, new_password: newPassword } });
}

/** Asks the service to mail a reset link (it answers the same whether the account exists or not). */
export async function askPasswordReset(tenant: string, email: string): Promise<void> {
  await anonymous().call('forgotAuthPassword', { body: { email }, headers: { 'x-tenant-subdomain': tenant } });
}
