import type { Executor } from '../../../db/executor.ts';
import type { UsersRepository } from '../users/users.repository.ts';
import type { WorkspacesRepository } from '../workspaces/workspaces.repository.ts';

/** A user as an assignee of work: their roles (the built-in one first, then custom ones) and workspaces. */
export interface Membership {
  userId: string;
  roles: string[];
  workspaceIds: string[];
  /** False for a disabled user (whose work must no longer act for them). */
  active: boolean;
}

/** Whom a piece of work names: a user, everyone holding a role, or a workspace's members. */
export interface MemberSelector {
  type: 'user' | 'role' | 'workspace';
  value: string;
}

/**
 * Who a tenant's people are, for the modules that share with them or assign them work (documents,
 * workflows). Every read takes the caller's executor, so it joins the caller's transaction.
 */
export class MemberDirectory {
  readonly #users: UsersRepository;
  readonly #workspaces: WorkspacesRepository;

  constructor(deps: { users: UsersRepository; workspaces: WorkspacesRepository }) {
    this.#users = deps.users;
    this.#workspaces = deps.workspaces;
  }

  async userExists(db: Executor, tenantId: string, userId: string): Promise<boolean> {
    return (await this.#users.findById(db, tenantId, userId)) !== null;
  }

  async workspaceExists(db: Executor, tenantId: string, workspaceId: string): Promise<boolean> {
    return (await this.#workspaces.findById(db, tenantId, workspaceId)) !== null;
  }

  /** The user's roles and workspaces; null when they are not a user of the tenant. */
  async membership(db: Executor, tenantId: string, userId: string): Promise<Membership | null> {
    const [user, workspaceIds] = await Promise.all([
      this.#users.findById(db, tenantId, userId),
      this.#workspaces.workspaceIdsOf(db, tenantId, userId),
    ]);
    return user
      ? { userId: user.id, roles: [user.role, ...user.roles], workspaceIds, active: user.status === 'active' }
      : null;
  }

  /** The tenant's active owners and admins, who hear of its plan and usage. */
  async administrators(db: Executor, tenantId: string): Promise<{ id: string; name: string; email: string }[]> {
    const users = await this.#users.active(db, tenantId, 'all');
    return users
      .filter((u) => u.role === 'owner' || u.role === 'admin')
      .map((u) => ({ id: u.id, name: u.name, email: u.email }));
  }

  /** E-mail addresses of the active users a selector names (a task's assignees, for the mail outbox). */
  async activeEmails(db: Executor, tenantId: string, who: MemberSelector): Promise<string[]> {
    const among =
      who.type === 'user' ? { userId: who.value } : who.type === 'workspace' ? { workspaceId: who.value } : 'all';
    const users = await this.#users.active(db, tenantId, among);
    const named =
      who.type === 'role' ? users.filter((u) => u.role === who.value || u.roles.includes(who.value)) : users;
    return named.map((u) => u.email);
  }
}
