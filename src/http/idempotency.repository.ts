import type { Executor } from '../db/executor.ts';

/** A stored idempotency record. */
export interface IdempotencyRecord {
  scope: string;
  key: string;
  principal: string;
  method: string;
  path: string;
  fingerprint: string | null;
  state: 'running' | 'completed';
  statusCode: number | null;
  /** The answer's headers and body, sealed (see idempotency-sealing.ts); null while running. */
  headers: string | null;
  body: string | null;
  lockedUntil: number;
  expiresAt: number;
}

/** SQL for idempotency records, always within a scope (a tenant, or `admin`). */
export class IdempotencyRepository {
  /** Claims a key for a first request; false when a record exists. */
  async claim(
    db: Executor,
    r: {
      scope: string;
      key: string;
      principal: string;
      method: string;
      path: string;
      fingerprint: string | null;
      now: number;
      lockMs: number;
      ttlMs: number;
    },
  ): Promise<boolean> {
    const result = await db
      .insertInto('idempotency_records')
      .values({
        scope: r.scope,
        key: r.key,
        principal: r.principal,
        method: r.method,
        path: r.path,
        fingerprint: r.fingerprint,
        state: 'running',
        status_code: null,
        headers: null,
        body: null,
        locked_until: r.now + r.lockMs,
        created_at: r.now,
        expires_at: r.now + r.ttlMs,
      })
      .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async find(db: Executor, scope: string, key: string): Promise<IdempotencyRecord | null> {
    const row = await db
      .selectFrom('idempotency_records')
      .selectAll()
      .where('scope', '=', scope)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) return null;
    return {
      scope: row.scope,
      key: row.key,
      principal: row.principal,
      method: row.method,
      path: row.path,
      fingerprint: row.fingerprint,
      state: row.state as IdempotencyRecord['state'],
      statusCode: row.status_code,
      headers: row.headers,
      body: row.body,
      lockedUntil: row.locked_until,
      expiresAt: row.expires_at,
    };
  }

  async complete(
    db: Executor,
    scope: string,
    key: string,
    answer: { fingerprint: string | null; statusCode: number; headers: string; body: string },
  ): Promise<void> {
    await db
      .updateTable('idempotency_records')
      .set({
        state: 'completed',
        fingerprint: answer.fingerprint,
        status_code: answer.statusCode,
        headers: answer.headers,
        body: answer.body,
      })
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('state', '=', 'running')
      .execute();
  }

  /** Gives a key back (nothing stored): after a validation failure, a server error or an abandoned run. */
  async release(db: Executor, scope: string, key: string): Promise<void> {
    await db.deleteFrom('idempotency_records').where('scope', '=', scope).where('key', '=', key).execute();
  }

  /** Removes a record that expired or whose first request died while running, so the key can be claimed again. */
  async removeStale(db: Executor, scope: string, key: string, now: number): Promise<void> {
    await db
      .deleteFrom('idempotency_records')
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where((eb) =>
        eb.or([eb('expires_at', '<=', now), eb.and([eb('state', '=', 'running'), eb('locked_until', '<=', now)])]),
      )
      .execute();
  }

  /** Removes every record of a scope (a sandbox tenant's reset). */
  async forgetScope(db: Executor, scope: string): Promise<void> {
    await db.deleteFrom('idempotency_records').where('scope', '=', scope).execute();
  }

  async purgeExpired(db: Executor, now: number): Promise<void> {
    await db.deleteFrom('idempotency_records').where('expires_at', '<=', now).execute();
  }
}
