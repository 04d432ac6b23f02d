import type { Executor } from '../../db/executor.ts';
import { getOrCreateServerSecret } from '../../db/server-secrets.ts';
import { SecretBox } from '../../lib/secret-box.ts';
import type { DriveCredentials } from './project-config.ts';

/** The `server_secrets` key of import credentials (a key of its own, not the webhooks'). */
const KEY_NAME = 'import_credentials';

/**
 * A project's Drive credentials sealed at rest (AES-256-GCM, src/lib/secret-box.ts): they must be
 * recoverable to call Drive, so they are encrypted, not hashed, and never shown.
 */
export class CredentialBox {
  readonly #box: SecretBox;

  constructor(db: Executor, now: () => number) {
    this.#box = new SecretBox(() => getOrCreateServerSecret(db, KEY_NAME, now()));
  }

  seal(credentials: DriveCredentials): Promise<string> {
    return this.#box.seal(JSON.stringify(credentials));
  }

  async open(sealed: string): Promise<DriveCredentials> {
    return JSON.parse(await this.#box.open(sealed)) as DriveCredentials;
  }
}
