import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export type ApiKeyEnvironment = 'live' | 'test';

/** Characters of the key (after `ak_live_` / `ak_test_`) stored in clear to find the row. */
const LOOKUP_CHARS = 8;

export interface NewApiKey {
  /** The whole secret, shown once. */
  key: string;
  /** Public start of the key (`ak_live_AbCdEfGh`), stored and listed. */
  prefix: string;
  hash: string;
}

/** Makes a key with 256 bits of randomness: `ak_<env>_<43 base64url chars>`. */
export function generateApiKey(environment: ApiKeyEnvironment): NewApiKey {
  const key = `ak_${environment}_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: apiKeyPrefix(key)!, hash: hashApiKey(key) };
}

/** The lookup prefix of a presented key, or null when it is not shaped like one of ours. */
export function apiKeyPrefix(key: string): string | null {
  const match = /^(ak_(?:live|test)_)([A-Za-z0-9_-]{43})$/.exec(key);
  return match ? match[1]! + match[2]!.slice(0, LOOKUP_CHARS) : null;
}

export function apiKeyEnvironment(key: string): ApiKeyEnvironment | null {
  if (key.startsWith('ak_live_')) return 'live';
  if (key.startsWith('ak_test_')) return 'test';
  return null;
}

/**
 * Keys are high-entropy, so a fast hash is enough: nothing to brute-force. Computed on every API-key
 * request (it is the credential cache's key); the one-shot `hash` skips the Hash object.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
