import { Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/common-schemas.ts';
import { TIERS } from '../../domain/tiers.ts';

const Unlimited = (description: string) => Nullable(Type.Integer({ description: `${description}; null = unlimited.` }));

export const SubscriptionStatusView = Type.Object({
  tier: Type.String({ enum: [...TIERS] }),
  status: Type.String({ enum: ['active', 'past_due', 'cancelled'] }),
  current_period_start: Timestamp,
  current_period_end: Timestamp,
  cancel_at: Nullable(Timestamp),
  limits: Type.Object({
    requests_per_minute: Unlimited('Tier-wide requests per minute (the sandbox: half, at least 5)'),
    storage_bytes: Unlimited('Storage quota in bytes'),
    ai_credits: Unlimited('AI credits per month'),
    documents: Unlimited('Documents that may be stored (the sandbox: 100)'),
  }),
  usage: Type.Object({
    storage_bytes: Type.Integer(),
    documents: Type.Integer(),
    ai_credits_used: Type.Number({ description: 'This calendar month (UTC); 0.5 steps.' }),
  }),
  features: Type.Object({
    workflows: Type.Boolean(),
    import_projects: Type.Boolean(),
    enhanced_search: Type.Boolean(),
    video_transcription: Type.Boolean(),
  }),
});

export const CheckoutBody = Type.Object(
  {
    tier: Type.String({
      enum: TIERS.filter((t) => t !== 'free'),
      description: 'A paid tier other than the current one.',
    }),
    success_url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'Where the customer returns after paying (absolute http or https URL).',
    }),
    cancel_url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'Where the customer returns after giving up.',
    }),
  },
  { additionalProperties: false },
);

export const CheckoutView = Type.Object({
  checkout_id: Type.String(),
  checkout_url: Type.String(),
  tier: Type.String(),
  status: Type.String({ enum: ['open', 'completed', 'expired'] }),
  expires_at: Timestamp,
  completed_at: Type.Optional(Nullable(Timestamp)),
});

export const CompletedCheckoutView = Type.Object({
  checkout_id: Type.String(),
  tenant_id: Type.String(),
  tier: Type.String(),
  status: Type.Literal('completed'),
  completed_at: Timestamp,
});

export const TierChangeView = Type.Object({
  id: Type.String(),
  from_tier: Type.String(),
  to_tier: Type.String(),
  reason: Type.String({ enum: ['checkout', 'admin', 'provider_event'] }),
  changed_by: Nullable(
    Type.String({ description: 'A user id, `administrator`, `api_key`, or the provider (`stripe`, `manual`).' }),
  ),
  reference: Nullable(Type.String({ description: 'The checkout id or the provider event id.' })),
  changed_at: Timestamp,
});

export const CheckoutParams = Type.Object(
  { checkout_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
