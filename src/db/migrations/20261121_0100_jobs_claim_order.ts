import { type Kysely, sql } from 'kysely';

/**
 * The claim takes jobs in (priority, run_at, id) order per kind. With `id` in the partial index the
 * order is read straight from it (a LIMIT stops after n entries) instead of sorting every due row
 * of the kind on each claim, which made claims O(backlog) on both dialects.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_claim_idx').execute();
  await db.schema
    .createIndex('jobs_claim_idx')
    .on('jobs')
    .columns(['kind', 'priority', 'run_at', 'id'])
    .where(sql<boolean>`state = 'available'`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_claim_idx').execute();
  await db.schema
    .createIndex('jobs_claim_idx')
    .on('jobs')
    .columns(['kind', 'priority', 'run_at'])
    .where(sql<boolean>`state = 'available'`)
    .execute();
}
