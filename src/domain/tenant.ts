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

/** A tenant's settings (`GET/PATCH /api/v1/tenant/settings`, docs/api-decisions.md §2). */
export interface TenantSettings {
  /** AI types, fields and tags with a confidence below this go to the review queue instead of the document; null: none do. */
  aiReviewThreshold: number | null;
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
