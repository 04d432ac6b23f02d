import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.ts';
import type { EventSchemas } from '../../events/event-catalogue.ts';

/*
 * The events the records module emits (docs/records.md, docs/webhooks.md): legal holds placed and
 * released, retention rules at work. Each data schema is the one declaration of its type, its
 * webhook payload in the OpenAPI document and the SDK's `WebhookEvents`.
 */

const HoldCreated = Type.Object({
  hold_id: Type.String(),
  name: Type.String(),
  document_ids: Type.Array(Type.String()),
  folder_ids: Type.Array(Type.String()),
});
const HoldReleased = Type.Object({ hold_id: Type.String(), name: Type.String() });
const DocumentDeleted = Type.Object({
  rule_id: Type.String(),
  document_id: Type.String(),
  filename: Type.String(),
  folder_id: Nullable(Type.String()),
});
const ReviewRequested = Type.Object({
  rule_id: Type.String(),
  document_id: Type.String(),
  filename: Type.String(),
  task_id: Type.String(),
});
const RunCompleted = Type.Object({
  rule_id: Type.String(),
  folder_id: Type.String(),
  action: Type.String({ description: '`delete` or `review`.' }),
  examined: Type.Integer(),
  deleted: Type.Integer(),
  review_requested: Type.Integer(),
  held: Type.Integer({ description: 'Left alone: a legal hold covers them.' }),
});

/** The module's event schemas, by name (handed to the platform by its index.ts). */
export const RECORDS_EVENTS = {
  'legal_hold.created': HoldCreated,
  'legal_hold.released': HoldReleased,
  'retention.document_deleted': DocumentDeleted,
  'retention.review_requested': ReviewRequested,
  'retention.run_completed': RunCompleted,
} satisfies EventSchemas;

declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    'legal_hold.created': Static<typeof HoldCreated>;
    'legal_hold.released': Static<typeof HoldReleased>;
    /** A retention rule deleted a document whose time was up (`action: delete`, or a review approved). */
    'retention.document_deleted': Static<typeof DocumentDeleted>;
    /** A retention rule sent a document's review to the task inbox (`action: review`). */
    'retention.review_requested': Static<typeof ReviewRequested>;
    /** A run of a rule finished: what it looked at, deleted, sent to review and left alone under a legal hold. */
    'retention.run_completed': Static<typeof RunCompleted>;
  }
}
