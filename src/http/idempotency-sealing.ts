import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Stored idempotent answers can hold secrets (a new API key is shown once, in its create answer),
 * so records keep neither the Idempotency-Key nor the answer in clear: the row is found by a hash
 * of the key, and the answer is sealed with AES-256-GCM under a second hash of it. Only a client
 * presenting the same key can have the answer replayed; a database reader learns nothing.
 */
export interface IdempotencySeal {
  /** What the record is stored and found under. */
  lookup: string;
  secret: Buffer;
}

export function sealFor(tenantId: string, key: string): IdempotencySeal {
  return {
    lookup: createHash('sha256').update(`idempotency:lookup:${tenantId}:${key}`).digest('hex'),
    secret: createHash('sha256').update(`idempotency:seal:${tenantId}:${key}`).digest(),
  };
}

const VERSION = 'v1:';

/** `v1:` + base64(iv | tag | ciphertext). */
export function seal(secret: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** Opens what `seal` made with the same secret; throws when it was made with another or altered. */
export function unseal(secret: Buffer, sealed: string): string {
  if (!sealed.startsWith(VERSION)) throw new Error('unknown idempotency seal');
  const bytes = Buffer.from(sealed.slice(VERSION.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', secret, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
