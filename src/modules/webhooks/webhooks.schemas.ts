import { Type } from 'typebox';
import { Nullable, PageQuery, Timestamp } from '../../http/common-schemas.ts';
import { EVENT_NAMES } from '../../events/event-catalogue.ts';
import { DELIVERY_STATUSES } from './webhooks.tables.ts';

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'An HTTPS URL (400 `INVALID_URL` otherwise) on a public address.',
});
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 50,
  description: `Event names (400 \`INVALID_EVENT\` for any other): ${EVENT_NAMES.map((n) => `\`${n}\``).join(', ')} (docs/webhooks.md); duplicates are dropped.`,
});

export const WebhookView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: Type.String({
    enum: ['active', 'paused', 'disabled'],
    description:
      '`disabled` is set by the service after the endpoint failed for the configured window (default 3 days).',
  }),
  status_reason: Nullable(Type.String({ description: 'Why the service disabled the webhook.' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreatedWebhookView = Type.Object({
  ...WebhookView.properties,
  secret: Type.String({ description: 'The signing secret. Shown in this answer only.' }),
});

export const RotateSecretBody = Type.Object(
  {
    secret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 256,
        description: 'The new signing secret (16 to 256 characters); generated (`whsec_...`) when omitted.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookList = Type.Object({
  webhooks: Type.Array(WebhookView),
  total: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
});

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    secret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 256,
        description: 'Signing secret (16 to 256 characters); generated (`whsec_...`) when omitted.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    status: Type.Optional(
      Type.String({
        enum: ['active', 'paused'],
        description:
          '`paused` stops new deliveries (events meanwhile are not queued); `active` resumes, also after the service disabled it.',
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'Partial: only the fields given change. The secret cannot be changed (register a second webhook to rotate).',
  },
);

export const DeliveryParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128 }), delivery_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);

export const DeliveryListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Type.String({ enum: [...DELIVERY_STATUSES] })),
    event: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'An event name (or `webhook.test`).' }),
    ),
  },
  { additionalProperties: false },
);

export const DeliveryView = Type.Object({
  id: Type.String({ description: "This attempt's id: the X-Service-Delivery header." }),
  event_id: Type.String({ description: 'X-Service-Event-Id: the same on every attempt of the event.' }),
  event: Type.String(),
  status: Type.String({ enum: [...DELIVERY_STATUSES] }),
  response_status: Nullable(Type.Integer()),
  duration_ms: Nullable(Type.Integer()),
  attempt: Type.Integer({
    description: '1 for the first attempt of the event at this webhook, then 2, 3, ... (retries and redeliveries).',
  }),
  next_retry_at: Nullable(Timestamp),
  created_at: Timestamp,
  trigger: Type.String({ enum: ['event', 'retry', 'redeliver', 'test'] }),
  scheduled_at: Timestamp,
  sent_at: Nullable(Timestamp),
  error: Nullable(Type.String()),
  response_excerpt: Nullable(Type.String({ description: 'The first 512 bytes of the answer.' })),
});

export const DeliveryList = Type.Object({
  data: Type.Array(DeliveryView),
  total: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
});
