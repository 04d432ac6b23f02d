import type { Kysely } from 'kysely';

// Durable jobs (docs/jobs.md, "Poison jobs"): how many runs of a job in a row ended with their lease
// expiring (the process running it died, or stalled past its lease). At the second the job is not
// run again but failed with `process_died`: a job that kills its process must not kill every restart.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('lease_expiries', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('lease_expiries').execute();
}
