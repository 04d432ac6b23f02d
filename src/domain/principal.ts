import type { AuthContext } from './auth-context.ts';

/**
 * Who an object belongs to and whom background work acts as (docs/security.md "Access inside a
 * tenant"): a user, an API key (which acts as a tenant administrator), or the tenant itself — work
 * no single caller started (rows older than ownership, internal jobs), which only tenant
 * administrators reach and which reads as one.
 */
export type Principal = { kind: 'user'; userId: string } | { kind: 'api_key'; apiKeyId: string } | { kind: 'tenant' };

export const TENANT_PRINCIPAL: Principal = { kind: 'tenant' };

/** The principal of a request's caller. */
export function principalOf(auth: Pick<AuthContext, 'userId' | 'apiKeyId'>): Principal {
  if (auth.userId !== null) return { kind: 'user', userId: auth.userId };
  if (auth.apiKeyId !== null) return { kind: 'api_key', apiKeyId: auth.apiKeyId };
  return TENANT_PRINCIPAL;
}

/** The stored form: `user:<id>`, `api_key:<id>`, or null for the tenant. */
export function principalKey(principal: Principal): string | null {
  if (principal.kind === 'user') return `user:${principal.userId}`;
  if (principal.kind === 'api_key') return `api_key:${principal.apiKeyId}`;
  return null;
}

/** Reads the stored form back; anything unrecognised is the tenant (administrators only). */
export function parsePrincipal(stored: string | null | undefined): Principal {
  if (stored?.startsWith('user:')) return { kind: 'user', userId: stored.slice(5) };
  if (stored?.startsWith('api_key:')) return { kind: 'api_key', apiKeyId: stored.slice(8) };
  return TENANT_PRINCIPAL;
}

/** Whether the caller is this principal (the same user, or the same API key). */
export function isPrincipal(auth: Pick<AuthContext, 'userId' | 'apiKeyId'>, principal: Principal): boolean {
  if (principal.kind === 'user') return auth.userId === principal.userId;
  if (principal.kind === 'api_key') return auth.userId === null && auth.apiKeyId === principal.apiKeyId;
  return false;
}
