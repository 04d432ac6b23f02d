import { randomBytes } from 'node:crypto';
import type { Executor } from '../../db/executor.ts';
import { getOrCreateServerSecret } from '../../db/server-secrets.ts';

// Webhook secrets are sealed with the shared SecretBox (src/lib/secret-box.ts) under their own key.
export { SecretBox } from '../../lib/secret-box.ts';

const KEY_NAME = 'webhook_secrets';

/** The sealing key of webhook secrets: made once per deployment. */
export function loadSecretBoxKey(db: Executor, now: number): Promise<Buffer> {
  return getOrCreateServerSecret(db, KEY_NAME, now);
}

/**
 * A new signing secret, `whsec_` and 24 random bytes in standard base64 (docs/api-decisions.md §8):
 * the form the Standard Webhooks libraries take as is (they key with the decoded bytes).
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
