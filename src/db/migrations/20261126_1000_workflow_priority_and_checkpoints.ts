import type { Kysely } from 'kysely';

// Workflows (docs/workflows.md): the `priority` an execution was started with (its steps' job
// priority; executions before this migration ran at what is now `normal`), and the checkpoint of a
// node run that spans several jobs (a loop's outputs so far, so a resumed loop goes on where it was).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('workflow_executions')
    .addColumn('priority', 'text', (c) => c.notNull().defaultTo('normal'))
    .execute();
  await db.schema.alterTable('workflow_node_runs').addColumn('checkpoint', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workflow_node_runs').dropColumn('checkpoint').execute();
  await db.schema.alterTable('workflow_executions').dropColumn('priority').execute();
}
