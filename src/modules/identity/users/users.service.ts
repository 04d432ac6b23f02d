import type { Database } from '../../../db/database.ts';
import type { Executor } from '../../../db/executor.ts';
import { lockTenant } from '../../../db/locks.ts';
import { isUniqueViolation } from '../../../db/db-errors.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { hashPassword } from '../../../lib/passwords.ts';
import { canAssignRole, canManageUser, requirePermission, requireTenantAdmin } from '../../../domain/roles.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { liveTenantId } from '../auth/auth.service.ts';
import { type MailWriter, sendPasswordToken } from '../auth/password-tokens.ts';
import type { SessionsRepository } from '../auth/sessions.repository.ts';
import { identityTags } from '../auth/identity-changes.ts';
import type { ModuleServices } from '../../../platform/module.ts';
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
  email?: string;
  role?: BuiltInRole;
  roles?: string[];
  status?: UserStatus;
  notificationMail?: boolean;
}

/** How the newest invitation of a user who has not chosen a password went (the mail's state). */
export interface InvitationState {
  status: string;
  lastError: string | null;
  createdAt: number;
  sentAt: number | null;
}

/** A user with their open invitation's state (null once they chose a password, or when none was sent). */
export interface UserEntry {
  user: User;
  invitation: InvitationState | null;
}

/** Users of a tenant (docs/api-decisions.md §3). Users live on the live tenant; the sandbox sees the same people. */
export class UsersService {
  private readonly deps: {
    database: Database;
    clock: Clock;
    users: UsersRepository;
    tenants: TenantsRepository;
    sessions: SessionsRepository;
    mail: MailWriter & Pick<ModuleServices['mail'], 'invitations'>;
    /** Told after a committed change, so this process's credential cache drops the user at once. */
    identityChanged?: (tags: string[]) => void;
  };
  constructor(deps: UsersService['deps']) {
    this.deps = deps;
  }

  async list(
    auth: AuthContext,
    page: { limit: number; offset: number },
    filter: { role?: string } = {},
  ): Promise<{ rows: UserEntry[]; total: number }> {
    const { rows, total } = await this.deps.users.list(this.deps.database.db, liveTenantId(auth), page, filter);
    return { rows: await this.withInvitations(liveTenantId(auth), rows), total };
  }

  async get(auth: AuthContext, id: string): Promise<User> {
    const user = await this.deps.users.findById(this.deps.database.db, liveTenantId(auth), id);
    if (!user) throw errors.notFound('user', id);
    return user;
  }

  /** A user as the API shows them: with the state of their open invitation. */
  async entry(auth: AuthContext, id: string): Promise<UserEntry> {
    const [entry] = await this.withInvitations(liveTenantId(auth), [await this.get(auth, id)]);
    return entry!;
  }

  private async withInvitations(tenantId: string, users: User[]): Promise<UserEntry[]> {
    const invited = users.filter((u) => !u.passwordSet).map((u) => u.id);
    const mail = await this.deps.mail.invitations(this.deps.database.db, tenantId, invited);
    return users.map((user) => ({ user, invitation: user.passwordSet ? null : (mail.get(user.id) ?? null) }));
  }

  /** Invites a user; without a password an invitation with a set-password token goes to the mail outbox. */
  async invite(auth: AuthContext, input: InviteUserInput): Promise<UserEntry> {
    requireTenantAdmin(auth, 'Only an owner or admin may add users');
    const role = input.role ?? 'member';
    requirePermission(canAssignRole(auth, role), 'Only an owner may make another owner');
    const { database, clock, users, tenants, sessions, mail } = this.deps;
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
      notificationMail: true,
      passwordSet: input.password !== undefined,
      createdAt: now,
      updatedAt: now,
    };
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    try {
      await database.db.transaction().execute(async (trx) => {
        await users.insert(trx, user, passwordHash);
        if (!passwordHash) {
          const tenant = await tenants.findById(trx, tenantId);
          await sendPasswordToken(
            trx,
            { sessions, mail },
            { user, tenantSubdomain: tenant?.subdomain ?? '', kind: 'invitation', now },
          );
        }
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw errors.conflict(`A user with the e-mail "${user.email}" already exists`, { field: 'email' });
      throw error;
    }
    return (await this.withInvitations(tenantId, [user]))[0]!;
  }

  /**
   * Partial update. A user may rename themselves and turn notification mail on or off; e-mail,
   * role, custom roles and status are for owners and admins (only an owner touches an owner). The
   * tenant never loses its last active owner (409). A changed e-mail is told to both addresses; a
   * user still invited gets a new invitation at the new one.
   */
  async update(auth: AuthContext, id: string, patch: UpdateUserInput): Promise<UserEntry> {
    const { database, clock, users, sessions } = this.deps;
    const tenantId = liveTenantId(auth);
    const target = await this.get(auth, id);
    const self = auth.userId === target.id;
    const email = patch.email?.trim();
    const adminFields =
      patch.role !== undefined || patch.roles !== undefined || patch.status !== undefined || email !== undefined;
    if (!self || adminFields) {
      requireTenantAdmin(auth, 'Only an owner or admin may change other users, roles or status');
      requirePermission(canManageUser(auth, target.role), 'Only an owner may change an owner');
      if (patch.role !== undefined)
        requirePermission(canAssignRole(auth, patch.role), 'Only an owner may make another owner');
    }
    const now = clock.now();
    await database.db
      .transaction()
      .execute(async (trx) => {
        const losesOwner =
          target.role === 'owner' &&
          target.status === 'active' &&
          ((patch.role !== undefined && patch.role !== 'owner') || patch.status === 'disabled');
        if (losesOwner) await lockTenant(trx, database.dialect, tenantId);
        if (losesOwner && (await users.countActiveOwners(trx, tenantId)) <= 1) {
          throw errors.conflict('A tenant must keep at least one active owner; make someone else owner first');
        }
        await users.update(
          trx,
          tenantId,
          id,
          { ...patch, email, roles: patch.roles === undefined ? undefined : normaliseRoles(patch.roles) },
          now,
        );
        if (patch.status === 'disabled') await sessions.revokeUserSessions(trx, tenantId, id, now, 'user_disabled');
        if (email !== undefined && email !== target.email) await this.emailChanged(trx, target, email, now);
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error))
          throw errors.conflict(`A user with the e-mail "${email}" already exists`, { field: 'email' });
        throw error;
      });
    this.deps.identityChanged?.([identityTags.user(id)]);
    return this.entry(auth, id);
  }

  /** Both addresses hear of the change (security mail); an open invitation follows the user to the new one. */
  private async emailChanged(trx: Executor, user: User, email: string, now: number): Promise<void> {
    const { mail, sessions, tenants } = this.deps;
    const recipient = { id: user.id, name: user.name };
    for (const [to, which] of [
      [user.email, 'old'],
      [email, 'new'],
    ] as const) {
      await mail.enqueue(trx, {
        tenantId: user.tenantId,
        kind: 'email_changed',
        to,
        user: recipient,
        data: { oldEmail: user.email, newEmail: email, recipient: which },
        at: now,
      });
    }
    if (!user.passwordSet) {
      const tenant = await tenants.findById(trx, user.tenantId);
      await sendPasswordToken(
        trx,
        { sessions, mail },
        { user: { ...user, email }, tenantSubdomain: tenant?.subdomain ?? '', kind: 'invitation', now },
      );
    }
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
