import type { AuthContext } from '../../domain/auth-context.ts';
import { isPrincipal, type Principal, principalKey, principalOf } from '../../domain/principal.ts';
import { isTenantAdmin } from '../../domain/roles.ts';

/*
 * Who reaches which workflow, execution and task (docs/workflows.md "Who may do what"):
 * - owners, admins and API keys: every one of the tenant;
 * - members (custom roles change nothing here): the workflows they own and the executions that run
 *   as them (their own `execute` calls, and the triggers of their workflows);
 * - viewers: none (they read only what is shared with them, and nothing here is shared).
 * Out of reach answers 404 like a missing id, so ids reveal nothing.
 */

type Caller = Pick<AuthContext, 'via' | 'role' | 'userId' | 'apiKeyId'>;

/** Whether the caller may see and change an object owned by `owner`. */
export function reaches(auth: Caller, owner: Principal): boolean {
  if (isTenantAdmin(auth)) return true;
  return auth.role !== 'viewer' && isPrincipal(auth, owner);
}

/**
 * What the caller's lists are narrowed to: `undefined` = the whole tenant; a stored principal = the
 * objects that principal owns; `null` = nothing at all (viewers).
 */
export function ownerFilter(auth: Caller): string | null | undefined {
  if (isTenantAdmin(auth)) return undefined;
  if (auth.role === 'viewer') return null;
  return principalKey(principalOf(auth));
}
