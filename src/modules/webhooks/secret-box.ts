import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Executor } from '../../db/executor.ts';

const VERSION = 'v1';
const KEY_NAME = 'webhook_secrets';

/**
 * Seals webhook signing secrets at rest with AES-256-GCM. The secret has to be recoverable (it
 * keys every signature), so it is encrypted rather than hashed. The key is generated once and kept
 * in `server_secrets`, shared by every process: this keeps secrets out of table exports, logs and
 * the deliveries log, not away from someone holding the whole database.
 */
export class SecretBox {
  readonly #loadKey: () => Promise<Buffer>;
  #key: Promise<Buffer> | null = null;

  constructor(loadKey: () => Promise<Buffer>) {
    this.#loadKey = loadKey;
  }

  async seal(plain: string): Promise<string> {
    const key = await this.#keyOnce();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
  }

  async open(sealed: string): Promise<string> {
    const [version, data] = sealed.split('.', 2);
    if (version !== VERSION || !data) throw new Error('webhook secret: unknown sealing format');
    const bytes = Buffer.from(data, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', await this.#keyOnce(), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  }

  #keyOnce(): Promise<Buffer> {
    this.#key ??= this.#loadKey().catch((error: unknown) => {
      this.#key = null;
      throw error;
    });
    return this.#key;
  }
}

/** The sealing key: made once per deployment (two processes racing both read the winner back). */
export async function loadSecretBoxKey(db: Executor, now: number): Promise<Buffer> {
  const read = () => db.selectFrom('server_secrets').select('value').where('name', '=', KEY_NAME).executeTakeFirst();
  const existing = await read();
  if (existing) return Buffer.from(existing.value, 'base64url');
  await db
    .insertInto('server_secrets')
    .values({ name: KEY_NAME, value: randomBytes(32).toString('base64url'), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await read();
  if (!row) throw new Error('webhook secret key: could not be stored');
  return Buffer.from(row.value, 'base64url');
}

/** A new signing secret, `whsec_` and 32 random bytes (docs/api-decisions.md §8). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
