import { Type } from 'typebox';
import { Nullable, PageQuery, Timestamp } from '../../http/common-schemas.ts';
import { MAX_HOLD_ITEMS } from './legal-holds.service.ts';
import { MAX_KEEP_DAYS } from './retention-rules.service.ts';

const Id = Type.String({ minLength: 1, maxLength: 128 });

/** `POST /legal-holds`. */
export const CreateHoldBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The name rule of folders and documents (docs/api-decisions.md "Names").',
    }),
    document_ids: Type.Optional(Type.Array(Id, { maxItems: MAX_HOLD_ITEMS, description: 'Documents held.' })),
    folder_ids: Type.Optional(
      Type.Array(Id, {
        maxItems: MAX_HOLD_ITEMS,
        description: 'Folders held, with everything below them, also what is added later.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const HoldListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('released')], { description: 'Only holds in this state.' }),
    ),
  },
  { additionalProperties: false },
);

/** A legal hold as the API shows it. */
export const HoldView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('released')]),
  document_ids: Type.Array(Type.String()),
  folder_ids: Type.Array(Type.String()),
  created_by: Nullable(Type.String()),
  created_at: Timestamp,
  released_by: Nullable(Type.String()),
  released_at: Nullable(Timestamp),
});

/** `POST /retention-rules`. */
export const CreateRuleBody = Type.Object(
  {
    folder_id: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'The folder governed, with everything below it.',
    }),
    keep_days: Type.Integer({
      minimum: 1,
      maximum: MAX_KEEP_DAYS,
      description: 'Days a document is kept, counted from `basis`.',
    }),
    basis: Type.Union([Type.Literal('created'), Type.Literal('last_version')], {
      description: '`created`: from the upload; `last_version`: from the current version.',
    }),
    action: Type.Union([Type.Literal('delete'), Type.Literal('review')], {
      description: '`delete`: deleted by the worker; `review`: an approval task in the task inbox (approve deletes).',
    }),
  },
  { additionalProperties: false },
);

const RunView = Type.Object({
  status: Type.Union([
    Type.Literal('idle'),
    Type.Literal('running'),
    Type.Literal('completed'),
    Type.Literal('failed'),
  ]),
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  examined: Type.Integer({ description: 'Documents whose time was up, looked at so far.' }),
  deleted: Type.Integer(),
  review_requested: Type.Integer(),
  held: Type.Integer({ description: 'Left alone: a legal hold covers them.' }),
  error: Nullable(Type.String()),
});

/** A retention rule as the API shows it, with its last (or current) run. */
export const RuleView = Type.Object({
  id: Type.String(),
  folder_id: Type.String(),
  keep_days: Type.Integer(),
  basis: Type.Union([Type.Literal('created'), Type.Literal('last_version')]),
  action: Type.Union([Type.Literal('delete'), Type.Literal('review')]),
  created_by: Nullable(Type.String()),
  created_at: Timestamp,
  last_run: RunView,
});
