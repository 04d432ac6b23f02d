import type { Kysely } from 'kysely';

// Access inside a tenant (issue 26, docs/security.md): a workflow has an owner and an execution
// runs as a principal (`user:<id>` or `api_key:<id>`; src/domain/principal.ts), who also owns it.
// Rows made before this migration have neither: NULL is the tenant itself, which only owners,
// admins and API keys reach, and which reads documents as a tenant administrator, as they did.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workflows').addColumn('owner', 'text').execute();
  await db.schema.alterTable('workflow_executions').addColumn('principal', 'text').execute();
  // A member's lists: their own workflows and executions, newest first.
  await db.schema
    .createIndex('workflows_owner_idx')
    .on('workflows')
    .columns(['tenant_id', 'owner', 'created_at'])
    .execute();
  await db.schema
    .createIndex('workflow_executions_principal_idx')
    .on('workflow_executions')
    .columns(['tenant_id', 'principal', 'started_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('workflow_executions_principal_idx').execute();
  await db.schema.dropIndex('workflows_owner_idx').execute();
  await db.schema.alterTable('workflow_executions').dropColumn('principal').execute();
  await db.schema.alterTable('workflows').dropColumn('owner').execute();
}
