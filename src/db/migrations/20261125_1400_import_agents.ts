import { type Kysely, sql } from 'kysely';

// Import agents (docs/imports.md "Agents"): what each agent run covers and where it stands, and
// human tasks that belong to something other than a workflow execution (an agent's proposal waiting
// for approval in the same task inbox). Task columns naming the execution become optional and a task
// names its `source` (`workflow` or `import_agent`) and the source's own reference.

/** The task columns of the first version, copied as they are. */
const TASK_COLUMNS = [
  'id',
  'tenant_id',
  'execution_id',
  'workflow_id',
  'workflow_name',
  'node_id',
  'run_id',
  'task_type',
  'title',
  'description',
  'context',
  'assignee_type',
  'assignee_value',
  'editable_fields',
  'on_timeout',
  'escalate_to',
  'status',
  'decision',
  'comments',
  'data',
  'decided_by',
  'escalated_at',
  'created_at',
  'due_at',
  'escalation_at',
  'completed_at',
  'updated_at',
];

export async function up(db: Kysely<any>): Promise<void> {
  // SQLite cannot drop NOT NULL in place, so the table is rebuilt (the same way on both dialects).
  await db.schema
    .createTable('workflow_tasks_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('execution_id', 'text', (c) => c.references('workflow_executions.id').onDelete('cascade'))
    .addColumn('workflow_id', 'text')
    .addColumn('workflow_name', 'text')
    .addColumn('node_id', 'text')
    .addColumn('run_id', 'text')
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
    /** `workflow` (a human node's task) or the module-registered source that settles it (`import_agent`). */
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('workflow'))
    /** The source's own reference (an agent run id); null for workflow tasks. */
    .addColumn('source_ref', 'text')
    .execute();
  const columns = sql.join(TASK_COLUMNS.map((c) => sql.ref(c)));
  await sql`insert into workflow_tasks_next (${columns}) select ${columns} from workflow_tasks`.execute(db);
  await db.schema.dropTable('workflow_tasks').execute();
  await db.schema.alterTable('workflow_tasks_next').renameTo('workflow_tasks').execute();
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
  await db.schema
    .createIndex('workflow_tasks_source_idx')
    .on('workflow_tasks')
    .columns(['tenant_id', 'source', 'source_ref'])
    .execute();

  // An imported file is `settled` once its document finished processing (or failed, or is gone);
  // `settled_seq` numbers the settled files of a project 1, 2, 3... so batch k is seq (k-1)N+1..kN.
  await db.schema.alterTable('import_items').addColumn('settled_at', 'bigint').execute();
  await db.schema.alterTable('import_items').addColumn('settled_seq', 'integer').execute();
  await db.schema
    .createIndex('import_items_document_idx')
    .on('import_items')
    .columns(['tenant_id', 'document_id'])
    .execute();
  await db.schema
    .createIndex('import_items_settled_idx')
    .on('import_items')
    .columns(['tenant_id', 'project_id', 'settled_seq'])
    .execute();

  await db.schema
    .createTable('import_agent_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('import_projects.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('import_agents.id').onDelete('cascade'))
    /** `document:<id>` (post-import), `batch:<k>`, `completion`: one run per agent and scope. */
    .addColumn('scope', 'text', (c) => c.notNull())
    /** JSON array of the document ids it covers. */
    .addColumn('document_ids', 'text', (c) => c.notNull())
    /** queued, awaiting_approval, applied, rejected, expired, failed. */
    .addColumn('status', 'text', (c) => c.notNull())
    /** JSON: the changes the agent proposes (what the approval task shows). */
    .addColumn('proposal', 'text')
    /** JSON: what was applied (documents changed, executions started). */
    .addColumn('result', 'text')
    .addColumn('task_id', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .addUniqueConstraint('import_agent_runs_scope_key', ['agent_id', 'scope'])
    .execute();
  await db.schema
    .createIndex('import_agent_runs_project_idx')
    .on('import_agent_runs')
    .columns(['tenant_id', 'project_id', 'agent_id', 'status'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_agent_runs').execute();
  await db.schema.dropIndex('import_items_settled_idx').execute();
  await db.schema.dropIndex('import_items_document_idx').execute();
  await db.schema.alterTable('import_items').dropColumn('settled_seq').execute();
  await db.schema.alterTable('import_items').dropColumn('settled_at').execute();
  await db.schema.dropIndex('workflow_tasks_source_idx').execute();
  await sql`delete from workflow_tasks where source <> 'workflow'`.execute(db);
  await db.schema.alterTable('workflow_tasks').dropColumn('source_ref').execute();
  await db.schema.alterTable('workflow_tasks').dropColumn('source').execute();
}
