import type { Executor } from '../../db/executor.ts';
import { getOrCreateServerSecret } from '../../db/server-secrets.ts';
import { SecretBox } from '../../lib/secret-box.ts';

/** The key id of the key kept in `server_secrets` when no STORAGE_ENCRYPTION_KEYS are configured. */
const DATABASE_KEY_ID = 'db';

/** A sealed secret and the id of the key that sealed it. */
export interface Sealed {
  sealed: string;
  keyId: string;
}

/**
 * Seals customer storage credentials with AES-256-GCM (the shared SecretBox) under a key from
 * configuration, storing the key's id beside the ciphertext so keys can rotate: the first
 * configured key seals, every configured key still opens what it sealed.
 */
export class CredentialsBox {
  readonly #boxes = new Map<string, SecretBox>();
  readonly #currentId: string;

  constructor(keys: readonly { id: string; key: string }[], db: Executor, now: () => number) {
    for (const { id, key } of keys) this.#boxes.set(id, new SecretBox(async () => Buffer.from(key, 'base64')));
    // Without configured keys, one generated key shared by every process through the database.
    if (!this.#boxes.has(DATABASE_KEY_ID)) {
      this.#boxes.set(DATABASE_KEY_ID, new SecretBox(() => getOrCreateServerSecret(db, 'storage_credentials', now())));
    }
    this.#currentId = keys[0]?.id ?? DATABASE_KEY_ID;
  }

  async seal(plain: string): Promise<Sealed> {
    return { sealed: await this.#box(this.#currentId).seal(plain), keyId: this.#currentId };
  }

  async open(secret: Sealed): Promise<string> {
    return this.#box(secret.keyId).open(secret.sealed);
  }

  #box(id: string): SecretBox {
    const box = this.#boxes.get(id);
    if (!box)
      throw new Error(`storage credentials sealed with key "${id}", which is not configured (STORAGE_ENCRYPTION_KEYS)`);
    return box;
  }
}
