import type { TenantStatus, Tier } from './tiers.ts';

/** A tenant as services see it. */
export interface Tenant {
  id: string;
  name: string;
  subdomain: string;
  tier: Tier;
  status: TenantStatus;
  corsOrigins: string[];
  /** Set on a sandbox twin: the live tenant it belongs to. */
  sandboxOf: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Origins compare case-insensitively in scheme and host, and never with a trailing slash. */
export function normaliseOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/** Tenant lookups for the HTTP guards (CORS, rate limits, before authentication) and for background work. */
export interface TenantDirectory {
  findBySubdomain(subdomain: string): Promise<Tenant | null>;
  /** Any tenant, sandbox twins included (their tier is the live tenant's). */
  findById(id: string): Promise<Tenant | null>;
  /** Whether any active tenant lists this (normalised) origin. */
  isConfiguredOrigin(origin: string): Promise<boolean>;
}
