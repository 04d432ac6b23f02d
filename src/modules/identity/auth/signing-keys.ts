import { randomBytes } from 'node:crypto';
import type { Database } from '../../../db/database.ts';
import type { Clock } from '../../../lib/clock.ts';
import { prefixedId } from '../../../lib/ids.ts';

export interface SigningKey {
  kid: string;
  key: Uint8Array;
  createdAt: number;
  retiredAt: number | null;
}

/** How often the current key is re-read, so a rotation by another process is picked up. */
const CURRENT_REFRESH_MS = 60_000;

/**
 * HS256 signing keys kept in the `signing_keys` table so every API process signs and verifies
 * with the same keys. Tokens name their key in the `kid` header; a new key is made when the
 * newest is older than the rotation period, and a retired key keeps verifying for `graceMs`
 * (the access-token lifetime) so tokens signed just before a rotation stay valid.
 */
export class SigningKeys {
  private readonly deps: { database: Database; clock: Clock; rotationMs: number; graceMs: number };
  private readonly byKid = new Map<string, SigningKey>();
  private current: { key: SigningKey; checkedAt: number } | null = null;
  private loading: Promise<SigningKey> | null = null;

  constructor(deps: SigningKeys['deps']) {
    this.deps = deps;
  }

  /** The key to sign with now. */
  async signingKey(): Promise<SigningKey> {
    const now = this.deps.clock.now();
    if (
      this.current &&
      now - this.current.checkedAt < CURRENT_REFRESH_MS &&
      now - this.current.key.createdAt < this.deps.rotationMs
    ) {
      return this.current.key;
    }
    this.loading ??= this.loadCurrent().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** The key a token names, or null when it is unknown or retired past its grace. */
  async verificationKey(kid: string): Promise<SigningKey | null> {
    let key = this.byKid.get(kid) ?? null;
    if (!key) {
      const row = await this.deps.database.db
        .selectFrom('signing_keys')
        .selectAll()
        .where('id', '=', kid)
        .executeTakeFirst();
      if (row?.algorithm !== 'HS256') return null;
      key = toKey(row);
      this.byKid.set(kid, key);
    }
    if (key.retiredAt !== null && this.deps.clock.now() > key.retiredAt + this.deps.graceMs) return null;
    return key;
  }

  /** Makes a new current key and retires the others (they still verify during the grace period). */
  async rotate(): Promise<SigningKey> {
    const { database, clock } = this.deps;
    const now = clock.now();
    const key: SigningKey = { kid: prefixedId('key', 12), key: randomBytes(32), createdAt: now, retiredAt: null };
    await database.db.transaction().execute(async (trx) => {
      await trx.updateTable('signing_keys').set({ retired_at: now }).where('retired_at', 'is', null).execute();
      await trx
        .insertInto('signing_keys')
        .values({
          id: key.kid,
          algorithm: 'HS256',
          secret: Buffer.from(key.key).toString('base64url'),
          created_at: now,
          retired_at: null,
        })
        .execute();
    });
    this.byKid.clear();
    this.byKid.set(key.kid, key);
    this.current = { key, checkedAt: now };
    return key;
  }

  private async loadCurrent(): Promise<SigningKey> {
    const { database, clock, rotationMs } = this.deps;
    const now = clock.now();
    const row = await database.db
      .selectFrom('signing_keys')
      .selectAll()
      .where('retired_at', 'is', null)
      .where('algorithm', '=', 'HS256')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    // Several processes may rotate at once; each then signs with its own new key and all verify all.
    const key = row && now - row.created_at < rotationMs ? toKey(row) : await this.rotate();
    this.byKid.set(key.kid, key);
    this.current = { key, checkedAt: now };
    return key;
  }
}

function toKey(row: { id: string; secret: string; created_at: number; retired_at: number | null }): SigningKey {
  return {
    kid: row.id,
    key: Buffer.from(row.secret, 'base64url'),
    createdAt: row.created_at,
    retiredAt: row.retired_at,
  };
}
