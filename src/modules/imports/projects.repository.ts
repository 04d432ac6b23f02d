import type { Insertable, Selectable } from 'kysely';
import { type ColumnMap, columnsOf } from '../../db/column-map.ts';
import type { DialectName } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { parseJson } from '../../lib/json.ts';
import type { ImportAgentsTable, ImportProjectsTable, ProjectStatus } from './imports.tables.ts';
import type { ProjectConfig } from './project-config.ts';

/** An import project as services see it: its configuration parsed, its credentials still sealed. */
export interface ImportProject {
  id: string;
  tenantId: string;
  name: string;
  description: string | null;
  sourceType: string;
  status: ProjectStatus;
  config: ProjectConfig;
  /** Sealed JSON Drive credentials (CredentialBox); null when none were given. */
  sealedCredentials: string | null;
  error: string | null;
  createdBy: string | null;
  scannedAt: number | null;
  startedAt: number | null;
  completedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What an update or a state change may set. */
export type ImportProjectPatch = Partial<Omit<ImportProject, 'id' | 'tenantId' | 'createdAt'>>;

/** An agent assigned to a project: what it does, when it runs, and whether its proposals need approval. */
export interface ImportAgent {
  id: string;
  tenantId: string;
  projectId: string;
  agentType: string;
  /** `post-import`, `batch` or `completion`. */
  phase: string;
  /** Documents per run of a `batch` agent; null for the other phases. */
  batchSize: number | null;
  config: Record<string, unknown>;
  autoApprove: boolean;
  createdAt: number;
}

export function toImportProject(row: Selectable<ImportProjectsTable>): ImportProject {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    description: row.description,
    sourceType: row.source_type,
    status: row.status,
    // Always written whole by this repository: a damaged value is a bug to surface, not to paper over.
    config: JSON.parse(row.config) as ProjectConfig,
    sealedCredentials: row.credentials,
    error: row.error,
    createdBy: row.created_by,
    scannedAt: row.scanned_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const PROJECT_COLUMNS: ColumnMap<ImportProject, ImportProjectsTable> = {
  id: 'id',
  tenantId: 'tenant_id',
  name: 'name',
  description: 'description',
  sourceType: 'source_type',
  status: 'status',
  config: ['config', (v) => JSON.stringify(v)],
  sealedCredentials: 'credentials',
  error: 'error',
  createdBy: 'created_by',
  scannedAt: 'scanned_at',
  startedAt: 'started_at',
  completedAt: 'completed_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

export function toImportAgent(row: Selectable<ImportAgentsTable>): ImportAgent {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    projectId: row.project_id,
    agentType: row.agent_type,
    phase: row.phase,
    batchSize: row.batch_size === null ? null : Number(row.batch_size),
    config: parseJson<Record<string, unknown>>(row.config, {}),
    autoApprove: Number(row.auto_approve) === 1,
    createdAt: row.created_at,
  };
}

/** SQL for import projects and their agents; every query takes the tenant. */
export class ProjectsRepository {
  async insert(db: Executor, project: ImportProject): Promise<void> {
    await db
      .insertInto('import_projects')
      .values(columnsOf(PROJECT_COLUMNS, project) as Insertable<ImportProjectsTable>)
      .execute();
  }

  async find(db: Executor, tenantId: string, id: string): Promise<ImportProject | null> {
    const row = await db
      .selectFrom('import_projects')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toImportProject(row) : null;
  }

  async list(
    db: Executor,
    tenantId: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ImportProject[]; total: number }> {
    const rows = await db
      .selectFrom('import_projects')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const { n } = await db
      .selectFrom('import_projects')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return { rows: rows.map(toImportProject), total: Number(n) };
  }

  async update(db: Executor, tenantId: string, id: string, patch: ImportProjectPatch): Promise<void> {
    await db
      .updateTable('import_projects')
      .set(columnsOf(PROJECT_COLUMNS, patch))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  /** Moves the project from one of `from` to a new state; false when it was not in one of them (a race lost). */
  async transition(
    db: Executor,
    tenantId: string,
    id: string,
    from: readonly ProjectStatus[],
    patch: ImportProjectPatch,
  ): Promise<boolean> {
    const result = await db
      .updateTable('import_projects')
      .set(columnsOf(PROJECT_COLUMNS, patch))
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

  async insertAgent(db: Executor, agent: ImportAgent): Promise<void> {
    await db
      .insertInto('import_agents')
      .values({
        id: agent.id,
        tenant_id: agent.tenantId,
        project_id: agent.projectId,
        agent_type: agent.agentType,
        phase: agent.phase,
        batch_size: agent.batchSize,
        config: JSON.stringify(agent.config),
        auto_approve: agent.autoApprove ? 1 : 0,
        created_at: agent.createdAt,
      })
      .execute();
  }

  async findAgent(db: Executor, tenantId: string, id: string): Promise<ImportAgent | null> {
    const row = await db
      .selectFrom('import_agents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toImportAgent(row) : null;
  }

  async listAgents(db: Executor, tenantId: string, projectId: string): Promise<ImportAgent[]> {
    const rows = await db
      .selectFrom('import_agents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toImportAgent);
  }

  /** Serialises the settling of a project's files (sequence numbers, batch boundaries, completion) with its state changes. */
  async lockForUpdate(trx: Executor, dialect: DialectName, tenantId: string, projectId: string): Promise<void> {
    if (dialect !== 'postgres') return; // SQLite writers already run one at a time
    await trx
      .selectFrom('import_projects')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', projectId)
      .forUpdate()
      .executeTakeFirst();
  }
}
