/** The events the subscription module emits, with their data. */
declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    /** `reason`: `checkout`, `admin` or `provider_event`; `changed_by`: a user id, `administrator` or the provider's name. */
    'subscription.tier_changed': { from_tier: string; to_tier: string; reason: string; changed_by: string | null; reference: string | null };
  }
}
