import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Seals secrets kept at rest that must be recoverable (webhook signing secrets, credentials in MCP
 * server headers) with AES-256-GCM. The 32-byte key comes from `loadKey`, read once on first use
 * (callers keep it in `server_secrets`, shared by every process): this keeps secrets out of table
 * exports, logs and backups of single tables, not away from someone holding the whole database.
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
    if (version !== VERSION || !data) throw new Error('sealed secret: unknown sealing format');
    const bytes = Buffer.from(data, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', await this.#keyOnce(), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  }

  #keyOnce(): Promise<Buffer> {
    // A failed load (database briefly down) is not remembered: the next call tries again.
    this.#key ??= this.#loadKey().catch((error: unknown) => {
      this.#key = null;
      throw error;
    });
    return this.#key;
  }
}
