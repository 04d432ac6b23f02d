import type { Kysely } from 'kysely';

// Workflows, second part (docs/workflows.md): which job holds a node run (two workers never run
// the same run), a trigger key per execution (a trigger fires once per event or tick), the next
// scheduled run of a schedule trigger, and human tasks. Every lookup index starts with tenant_id.
export async function up(db: Kysely<any>): Promise<void> {
  // The job running the node run (or `task:<id>` while a human task holds it); only that job may run it.
  await db.schema.alterTable('workflow_node_runs').addColumn('runner_job_id', 'text').execute();
  // `<source>:<workflow>:<event or tick>` for executions started by a trigger; unique, so a redelivered event or tick starts nothing.
  await db.schema.alterTable('workflow_executions').addColumn('trigger_key', 'text').execute();
  await db.schema
    .createIndex('workflow_executions_trigger_key')
    .on('workflow_executions')
    .column('trigger_key')
    .unique()
    .execute();
  // Schedule trigger: when the next tick is due (epoch ms), null when the workflow has none.
  await db.schema.alterTable('workflows').addColumn('next_run_at', 'bigint').execute();

  await db.schema
    .createTable('workflow_tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('execution_id', 'text', (c) => c.notNull().references('workflow_executions.id').onDelete('cascade'))
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('workflow_name', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('task_type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('context', 'text', (c) => c.notNull())
    .addColumn('assignee_type', 'text', (c) => c.notNull())
    .addColumn('assignee_value', 'text', (c) => c.notNull())
    .addColumn('editable_fields', 'text')
    .addColumn('on_timeout', 'text', (c) => c.notNull())
    .addColumn('escalate_to', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('decision', 'text')
    .addColumn('comments', 'text')
    .addColumn('data', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('escalated_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('escalation_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workflow_tasks_assignee_idx')
    .on('workflow_tasks')
    .columns(['tenant_id', 'assignee_type', 'assignee_value', 'status', 'created_at'])
    .execute();
  await db.schema
    .createIndex('workflow_tasks_list_idx')
    .on('workflow_tasks')
    .columns(['tenant_id', 'status', 'created_at'])
    .execute();
  await db.schema
    .createIndex('workflow_tasks_execution_idx')
    .on('workflow_tasks')
    .columns(['tenant_id', 'execution_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('workflow_tasks').ifExists().execute();
  await db.schema.alterTable('workflows').dropColumn('next_run_at').execute();
  await db.schema.dropIndex('workflow_executions_trigger_key').ifExists().execute();
  await db.schema.alterTable('workflow_executions').dropColumn('trigger_key').execute();
  await db.schema.alterTable('workflow_node_runs').dropColumn('runner_job_id').execute();
}
