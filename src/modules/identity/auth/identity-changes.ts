/**
 * What a cached credential depends on. The same strings are written by the database triggers of
 * migration 20261123_1500_identity_changes (one per changed row), so every write path — a service,
 * another process, an operator's SQL — announces itself.
 */
export const identityTags = {
  apiKey: (id: string) => `k:${id}`,
  user: (id: string) => `u:${id}`,
  session: (id: string) => `s:${id}`,
  tenant: (id: string) => `t:${id}`,
};

/** Where a process learns that identity rows changed, in this process or any other. */
export interface IdentityChangeFeed {
  /** Starts following changes (idempotent; resolves once connected or retrying in the background). */
  start(): Promise<void>;
  /** Whether changes are being followed right now; while not, the credential cache is bypassed. */
  isLive(): boolean;
  stop(): Promise<void>;
}

export interface FeedTarget {
  /** Rows with these tags changed (committed). */
  changed(tags: string[]): void;
  /** Changes may have been missed: drop everything. */
  reset(): void;
}
