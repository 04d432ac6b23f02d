import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.ts';
import type { EventSchemas } from '../../events/event-catalogue.ts';

/*
 * The events the subscription module emits: each one's data schema is the single declaration its
 * type, its webhook payload in the OpenAPI document and the SDK's `WebhookEvents` come from.
 */

const SubscriptionTierChanged = Type.Object({
  from_tier: Type.String(),
  to_tier: Type.String(),
  reason: Type.String({ description: '`checkout`, `admin` or `provider_event`.' }),
  changed_by: Nullable(Type.String({ description: "A user id, `administrator` or the provider's name." })),
  reference: Nullable(Type.String()),
});

/** The module's event schemas, by name (handed to the platform by its index.ts). */
export const SUBSCRIPTION_EVENTS = {
  'subscription.tier_changed': SubscriptionTierChanged,
} satisfies EventSchemas;

declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    /** `reason`: `checkout`, `admin` or `provider_event`; `changed_by`: a user id, `administrator` or the provider's name. */
    'subscription.tier_changed': Static<typeof SubscriptionTierChanged>;
  }
}
