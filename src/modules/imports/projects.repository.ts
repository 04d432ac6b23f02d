import type { Selectable, Updateable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ImportAgentsTable, ImportProjectsTable, ProjectStatus } from './imports.tables.ts';

export type ProjectRow = Selectable<ImportProjectsTable>;
export type AgentRow = Selectable<ImportAgentsTable>;

/** SQL for import projects and their agents; every query takes the tenant. */
export class ProjectsRepository {
  async insert(db: Executor, row: ProjectRow): Promise<void> {
    await db.insertInto('import_projects').values(row).execute();
  }

  async find(db: Executor, tenantId: string, id: string): Promise<ProjectRow | null> {
    return (await db.selectFrom('import_projects').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async list(db: Executor, tenantId: string, page: { limit: number; offset: number }): Promise<{ rows: ProjectRow[]; total: number }> {
    const rows = await db
      .selectFrom('import_projects')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const { n } = await db.selectFrom('import_projects').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow();
    return { rows, total: Number(n) };
  }

  async update(db: Executor, tenantId: string, id: string, patch: Updateable<ImportProjectsTable>): Promise<void> {
    await db.updateTable('import_projects').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  /** Moves the project from one of `from` to a new state; false when it was not in one of them (a race lost). */
  async transition(db: Executor, tenantId: string, id: string, from: readonly ProjectStatus[], patch: Updateable<ImportProjectsTable>): Promise<boolean> {
    const result = await db
      .updateTable('import_projects')
      .set(patch)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<void> {
    await db.deleteFrom('import_projects').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    // Items, folders, agents and their runs go with their project (ON DELETE CASCADE).
    await db.deleteFrom('import_projects').where('tenant_id', '=', tenantId).execute();
  }

  async insertAgent(db: Executor, row: AgentRow): Promise<void> {
    await db.insertInto('import_agents').values(row).execute();
  }

  async findAgent(db: Executor, tenantId: string, id: string): Promise<AgentRow | null> {
    return (await db.selectFrom('import_agents').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async listAgents(db: Executor, tenantId: string, projectId: string): Promise<AgentRow[]> {
    return db.selectFrom('import_agents').selectAll().where('tenant_id', '=', tenantId).where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute();
  }
}
