import type { Kysely } from 'kysely';

/* Workflows: definitions with immutable versions, executions, node runs and an append-only log (docs/api-decisions.md §10). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workflows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('nodes', 'text', (c) => c.notNull())
    .addColumn('error_handling', 'text', (c) => c.notNull())
    .addColumn('last_execution_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workflows_tenant_idx').on('workflows').columns(['tenant_id', 'created_at']).execute();
  await db.schema
    .createTable('workflow_versions')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'text', (c) => c.notNull().references('workflows.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('workflow_versions_pk', ['workflow_id', 'version'])
    .execute();
  await db.schema
    .createTable('workflow_executions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'text', (c) => c.notNull().references('workflows.id').onDelete('cascade'))
    .addColumn('workflow_version', 'integer', (c) => c.notNull())
    .addColumn('workflow_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('paused_reason', 'text')
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    .addColumn('trigger_data', 'text', (c) => c.notNull())
    .addColumn('vars', 'text', (c) => c.notNull())
    .addColumn('test_run', 'integer', (c) => c.notNull())
    .addColumn('final_output', 'text')
    .addColumn('error', 'text')
    .addColumn('failed_node_id', 'text')
    .addColumn('cancel_reason', 'text')
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('paused_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workflow_executions_tenant_idx')
    .on('workflow_executions')
    .columns(['tenant_id', 'workflow_id', 'started_at'])
    .execute();
  await db.schema
    .createTable('workflow_node_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('execution_id', 'text', (c) => c.notNull().references('workflow_executions.id').onDelete('cascade'))
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('output', 'text')
    .addColumn('error', 'text')
    .addColumn('reason', 'text')
    .addColumn('started_at', 'bigint')
    .addColumn('completed_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workflow_node_runs_unique')
    .on('workflow_node_runs')
    .columns(['execution_id', 'node_id'])
    .unique()
    .execute();
  await db.schema
    .createTable('workflow_execution_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('execution_id', 'text', (c) => c.notNull().references('workflow_executions.id').onDelete('cascade'))
    .addColumn('node_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workflow_execution_log_idx')
    .on('workflow_execution_log')
    .columns(['tenant_id', 'execution_id', 'at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('workflow_execution_log').ifExists().execute();
  await db.schema.dropTable('workflow_node_runs').ifExists().execute();
  await db.schema.dropTable('workflow_executions').ifExists().execute();
  await db.schema.dropTable('workflow_versions').ifExists().execute();
  await db.schema.dropTable('workflows').ifExists().execute();
}
