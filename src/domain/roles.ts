import { errors } from '../lib/errors.ts';
import type { AuthContext, BuiltInRole } from './auth-context.ts';

/**
 * Who may do what with tenant-level resources (docs/api-decisions.md §3). An API key acts as a tenant
 * administrator; `owner` and `admin` manage the tenant; `member` works with what they made or
 * were given; `viewer` only reads (and so can never create: 403 `forbidden`).
 * Document permissions (view/edit/admin from shares) live in document-access.ts.
 */
type Caller = Pick<AuthContext, 'via' | 'role' | 'userId'>;

/** Owner, admin, or an API key. */
export function isTenantAdmin(auth: Caller): boolean {
  return auth.via === 'api_key' || auth.role === 'owner' || auth.role === 'admin';
}

export function isOwner(auth: Caller): boolean {
  return auth.via === 'user_token' && auth.role === 'owner';
}

/** Anyone but a viewer may create things (documents, folders, tags, workspaces...). */
export function canCreate(auth: Caller): boolean {
  return auth.role !== 'viewer';
}

export const canManageUsers = isTenantAdmin;
export const canManageApiKeys = isTenantAdmin;

/** Whether the caller may give or take away `role`: only an owner touches the owner role. */
export function canAssignRole(auth: Caller, role: BuiltInRole): boolean {
  if (!isTenantAdmin(auth)) return false;
  return role !== 'owner' || isOwner(auth);
}

/** Whether the caller may change or delete a user who currently holds `targetRole`. */
export function canManageUser(auth: Caller, targetRole: BuiltInRole): boolean {
  return canAssignRole(auth, targetRole);
}

/** A workspace is managed (renamed, deleted, members changed) by tenant admins and its creator. */
export function canManageWorkspace(auth: Caller, workspace: { createdBy: string | null }): boolean {
  if (isTenantAdmin(auth)) return true;
  return auth.role !== 'viewer' && auth.userId !== null && workspace.createdBy === auth.userId;
}

/** Throws 403 `forbidden` unless `allowed`. */
export function requirePermission(allowed: boolean, message?: string): void {
  if (!allowed) throw errors.forbidden(message);
}

export function requireCreate(auth: Caller, what = 'resources'): void {
  requirePermission(canCreate(auth), `Viewers cannot create ${what}`);
}

export function requireTenantAdmin(auth: Caller, message = 'Only an owner or admin may do this'): void {
  requirePermission(isTenantAdmin(auth), message);
}
