import { randomBytes } from 'node:crypto';
import type { Executor } from './executor.ts';

/**
 * A named 32-byte secret generated once and kept in `server_secrets`, so every process of a
 * deployment shares it (an in-memory secret would differ per process and die with it).
 */
export async function getOrCreateServerSecret(db: Executor, name: string, now: number): Promise<Buffer> {
  const read = () => db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirst();
  const existing = await read();
  if (existing) return Buffer.from(existing.value, 'base64url');
  // Two processes may race here: the first insert wins and both read the winner back.
  await db
    .insertInto('server_secrets')
    .values({ name, value: randomBytes(32).toString('base64url'), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await read();
  if (!row) throw new Error(`server secret ${name}: could not be stored`);
  return Buffer.from(row.value, 'base64url');
}
