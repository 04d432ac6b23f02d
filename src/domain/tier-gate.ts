import { errors } from '../lib/errors.ts';
import type { AuthContext } from './auth-context.ts';
import { lowestTierWith, TIER_LIMITS, type Tier } from './tiers.ts';

export type Feature = keyof (typeof TIER_LIMITS)[Tier]['features'];

const FEATURE_NAMES: Record<Feature, string> = {
  workflows: 'Workflows',
  importProjects: 'Import projects',
  enhancedSearch: 'Enhanced search',
  videoTranscription: 'Video transcription',
};

/** Whether the caller's tier includes a feature (docs/api-decisions.md §5). */
export function hasFeature(auth: Pick<AuthContext, 'tenant'>, feature: Feature): boolean {
  return TIER_LIMITS[auth.tenant.tier].features[feature];
}

/**
 * Throws 403 `tier_limit_exceeded` with `details.current_tier` and `required_tier` unless the
 * caller's tier includes the feature. Callers with their own code (workflows answer
 * `TIER_LIMIT_EXCEEDED` too, same wire form) use it as is.
 */
export function requireFeature(auth: Pick<AuthContext, 'tenant'>, feature: Feature): void {
  if (hasFeature(auth, feature)) return;
  const required = lowestTierWith(feature);
  throw errors.tierLimit(
    `${FEATURE_NAMES[feature]} require the ${required} tier or above (current tier: ${auth.tenant.tier})`,
    {
      current_tier: auth.tenant.tier,
      required_tier: required,
      feature,
    },
  );
}
