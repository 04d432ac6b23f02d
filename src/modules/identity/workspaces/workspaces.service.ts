import type { Database } from '../../../db/database.ts';
import { isUniqueViolation } from '../../../db/db-errors.ts';
import { errors } from '../../../lib/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { canManageWorkspace, requireCreate, requirePermission } from '../../../domain/roles.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { liveTenantId as tenantOf } from '../auth/auth.service.ts';
import type { UsersRepository } from '../users/users.repository.ts';
import type { Workspace, WorkspaceMember, WorkspacesRepository } from './workspaces.repository.ts';

/**
 * Workspaces (docs/api-decisions.md §3): groups of users that documents can be shared with. Everyone in the
 * tenant sees them; anyone but a viewer creates them; owners, admins and the creator manage them.
 * Like users, they belong to the live tenant: the sandbox sees the same people and groups.
 */
export class WorkspacesService {
  private readonly deps: { database: Database; clock: Clock; workspaces: WorkspacesRepository; users: UsersRepository };
  constructor(deps: WorkspacesService['deps']) {
    this.deps = deps;
  }

  list(auth: AuthContext, page: { limit: number; offset: number }, filter: { memberId?: string } = {}) {
    return this.deps.workspaces.list(this.deps.database.db, tenantOf(auth), page, filter);
  }

  async get(auth: AuthContext, id: string): Promise<{ workspace: Workspace; members: WorkspaceMember[] }> {
    const workspace = await this.find(auth, id);
    return { workspace, members: await this.deps.workspaces.members(this.deps.database.db, tenantOf(auth), id) };
  }

  async create(auth: AuthContext, input: { name: string; description?: string | null }): Promise<Workspace> {
    requireCreate(auth, 'workspaces');
    const now = this.deps.clock.now();
    const workspace: Workspace = {
      id: newId(now),
      tenantId: tenantOf(auth),
      name: input.name.trim(),
      description: input.description ?? null,
      createdBy: auth.userId,
      createdAt: now,
      updatedAt: now,
    };
    await this.unique(() => this.deps.workspaces.insert(this.deps.database.db, workspace), workspace.name);
    return workspace;
  }

  async update(
    auth: AuthContext,
    id: string,
    patch: { name?: string; description?: string | null },
  ): Promise<Workspace> {
    const workspace = await this.find(auth, id);
    requirePermission(
      canManageWorkspace(auth, workspace),
      'Only an owner, an admin or its creator may change a workspace',
    );
    const name = patch.name?.trim();
    await this.unique(
      () =>
        this.deps.workspaces.update(
          this.deps.database.db,
          tenantOf(auth),
          id,
          { ...patch, name },
          this.deps.clock.now(),
        ),
      name ?? workspace.name,
    );
    return this.find(auth, id);
  }

  async delete(auth: AuthContext, id: string): Promise<void> {
    const workspace = await this.find(auth, id);
    requirePermission(
      canManageWorkspace(auth, workspace),
      'Only an owner, an admin or its creator may delete a workspace',
    );
    await this.deps.database.db.transaction().execute((trx) => this.deps.workspaces.delete(trx, tenantOf(auth), id));
  }

  /** Adds a user of the tenant; 404 for a user the tenant does not have, 409 when already a member. */
  async addMember(auth: AuthContext, id: string, userId: string): Promise<WorkspaceMember[]> {
    const { database, clock, workspaces, users } = this.deps;
    const workspace = await this.find(auth, id);
    requirePermission(canManageWorkspace(auth, workspace), 'Only an owner, an admin or its creator may change members');
    const user = await users.findById(database.db, tenantOf(auth), userId);
    if (!user) throw errors.notFound('user', userId);
    try {
      await workspaces.addMember(database.db, tenantOf(auth), id, userId, clock.now());
    } catch (error) {
      if (isUniqueViolation(error)) throw errors.conflict('The user is already a member of this workspace');
      throw error;
    }
    return workspaces.members(database.db, tenantOf(auth), id);
  }

  async removeMember(auth: AuthContext, id: string, userId: string): Promise<void> {
    const workspace = await this.find(auth, id);
    requirePermission(canManageWorkspace(auth, workspace), 'Only an owner, an admin or its creator may change members');
    const removed = await this.deps.workspaces.removeMember(this.deps.database.db, tenantOf(auth), id, userId);
    if (!removed) throw errors.notFound('workspace_member', userId);
  }

  private async find(auth: AuthContext, id: string): Promise<Workspace> {
    const workspace = await this.deps.workspaces.findById(this.deps.database.db, tenantOf(auth), id);
    if (!workspace) throw errors.notFound('workspace', id);
    return workspace;
  }

  private async unique(write: () => Promise<void>, name: string): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (isUniqueViolation(error))
        throw errors.conflict(`A workspace named "${name}" already exists`, { field: 'name' });
      throw error;
    }
  }
}
