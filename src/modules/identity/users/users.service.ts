import type { Database } from '../../../db/database.ts';
import { lockTenant } from '../../../db/locks.ts';
import { isUniqueViolation } from '../../../db/db-errors.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { hashPassword } from '../../../lib/passwords.ts';
import { canAssignRole, canManageUser, requirePermission, requireTenantAdmin } from '../../../domain/roles.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { liveTenantId } from '../auth/auth.service.ts';
import { sendPasswordToken } from '../auth/password-tokens.ts';
import type { SessionsRepository } from '../auth/sessions.repository.ts';
import { identityTags } from '../auth/identity-changes.ts';
import type { MailOutboxRepository } from '../mail/mail-outbox.repository.ts';
import type { TenantsRepository } from '../tenants/tenants.repository.ts';
import type { User, UsersRepository } from './users.repository.ts';
import type { BuiltInRole } from '../../../domain/auth-context.ts';

export const USER_STATUSES = ['active', 'disabled'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export interface InviteUserInput {
  email: string;
  name: string;
  role?: BuiltInRole;
  roles?: string[];
  password?: string;
}

export interface UpdateUserInput {
  name?: string;
  role?: BuiltInRole;
  roles?: string[];
  status?: UserStatus;
}

/** Users of a tenant (docs/api-decisions.md §3). Users live on the live tenant; the sandbox sees the same people. */
export class UsersService {
  private readonly deps: {
    database: Database;
    clock: Clock;
    users: UsersRepository;
    tenants: TenantsRepository;
    sessions: SessionsRepository;
    mail: MailOutboxRepository;
    publicBaseUrl: string | null;
    /** Told after a committed change, so this process's credential cache drops the user at once. */
    identityChanged?: (tags: string[]) => void;
  };
  constructor(deps: UsersService['deps']) {
    this.deps = deps;
  }

  list(auth: AuthContext, page: { limit: number; offset: number }, filter: { role?: string } = {}) {
    return this.deps.users.list(this.deps.database.db, liveTenantId(auth), page, filter);
  }

  async get(auth: AuthContext, id: string): Promise<User> {
    const user = await this.deps.users.findById(this.deps.database.db, liveTenantId(auth), id);
    if (!user) throw errors.notFound('user', id);
    return user;
  }

  /** Invites a user; without a password an invitation with a set-password token goes to the mail outbox. */
  async invite(auth: AuthContext, input: InviteUserInput): Promise<User> {
    requireTenantAdmin(auth, 'Only an owner or admin may add users');
    const role = input.role ?? 'member';
    requirePermission(canAssignRole(auth, role), 'Only an owner may make another owner');
    const { database, clock, users, tenants, sessions, mail, publicBaseUrl } = this.deps;
    const now = clock.now();
    const tenantId = liveTenantId(auth);
    const user: User = {
      id: newId(now),
      tenantId,
      email: input.email.trim(),
      name: input.name,
      role,
      roles: normaliseRoles(input.roles ?? []),
      status: 'active',
      createdAt: now,
      updatedAt: now,
    };
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    try {
      await database.db.transaction().execute(async (trx) => {
        await users.insert(trx, user, passwordHash);
        if (!passwordHash) {
          const tenant = await tenants.findById(trx, tenantId);
          await sendPasswordToken(trx, { sessions, mail, publicBaseUrl }, { user, tenantSubdomain: tenant?.subdomain ?? '', kind: 'invitation', now });
        }
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.conflict(`A user with the e-mail "${user.email}" already exists`, { field: 'email' });
      throw error;
    }
    return user;
  }

  /**
   * Partial update. A user may rename themselves; role, custom roles and status are for owners and
   * admins (only an owner touches an owner). The tenant never loses its last active owner (409).
   */
  async update(auth: AuthContext, id: string, patch: UpdateUserInput): Promise<User> {
    const { database, clock, users, sessions } = this.deps;
    const tenantId = liveTenantId(auth);
    const target = await this.get(auth, id);
    const self = auth.userId === target.id;
    const adminFields = patch.role !== undefined || patch.roles !== undefined || patch.status !== undefined;
    if (!self || adminFields) {
      requireTenantAdmin(auth, 'Only an owner or admin may change other users, roles or status');
      requirePermission(canManageUser(auth, target.role), 'Only an owner may change an owner');
      if (patch.role !== undefined) requirePermission(canAssignRole(auth, patch.role), 'Only an owner may make another owner');
    }
    const now = clock.now();
    await database.db.transaction().execute(async (trx) => {
      const losesOwner =
        target.role === 'owner' && target.status === 'active' && ((patch.role !== undefined && patch.role !== 'owner') || patch.status === 'disabled');
      if (losesOwner) await lockTenant(trx, database.dialect, tenantId);
      if (losesOwner && (await users.countActiveOwners(trx, tenantId)) <= 1) {
        throw errors.conflict('A tenant must keep at least one active owner; make someone else owner first');
      }
      await users.update(trx, tenantId, id, { ...patch, roles: patch.roles === undefined ? undefined : normaliseRoles(patch.roles) }, now);
      if (patch.status === 'disabled') await sessions.revokeUserSessions(trx, tenantId, id, now, 'user_disabled');
    });
    this.deps.identityChanged?.([identityTags.user(id)]);
    return this.get(auth, id);
  }

  /** Deletes a user (their sessions and workspace memberships go with them); never the last owner. */
  async delete(auth: AuthContext, id: string): Promise<void> {
    const { database, users } = this.deps;
    const tenantId = liveTenantId(auth);
    const target = await this.get(auth, id);
    requireTenantAdmin(auth, 'Only an owner or admin may delete users');
    requirePermission(canManageUser(auth, target.role), 'Only an owner may delete an owner');
    await database.db.transaction().execute(async (trx) => {
      const losesOwner = target.role === 'owner' && target.status === 'active';
      if (losesOwner) await lockTenant(trx, database.dialect, tenantId);
      if (losesOwner && (await users.countActiveOwners(trx, tenantId)) <= 1) {
        throw errors.conflict('The last owner of a tenant cannot be deleted');
      }
      await users.delete(trx, tenantId, id);
    });
    this.deps.identityChanged?.([identityTags.user(id)]);
  }
}

/** Custom role names: trimmed, lower-case, without duplicates, in the order given. */
function normaliseRoles(roles: string[]): string[] {
  return [...new Set(roles.map((r) => r.trim().toLowerCase()).filter((r) => r.length > 0))];
}
