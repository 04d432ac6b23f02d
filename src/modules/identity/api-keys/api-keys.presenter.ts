import { iso } from '../../../lib/clock.ts';
import type { ApiKey } from './api-keys.repository.ts';

/** An API key as the API shows it (never its secret). */
export function presentApiKey(k: ApiKey) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    environment: k.environment,
    created_at: iso(k.createdAt),
    last_used_at: iso(k.lastUsedAt),
  };
}
