import { Type } from 'typebox';
import { Nullable, PageQuery, Timestamp } from '../../http/common-schemas.ts';

const TaskStatus = Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('expired')]);

export const TaskListQuery = Type.Object(
  {
    ...PageQuery,
    assignee: Type.Optional(Type.String({ maxLength: 128 })),
    role: Type.Optional(Type.String({ maxLength: 128 })),
    status: Type.Optional(TaskStatus),
  },
  { additionalProperties: false },
);

export const TaskBody = Type.Object({
  id: Type.String(),
  /** Null for a task of another source (an import agent's proposal: `source` import_agent). */
  execution_id: Nullable(Type.String()),
  workflow_id: Nullable(Type.String()),
  workflow_name: Nullable(Type.String()),
  node_id: Nullable(Type.String()),
  source: Type.String({
    description:
      "`workflow` (a human node), `import_agent` (an import agent's proposed changes, applied on approval) or `ai_review` (AI results below the tenant's `ai_review_threshold`, applied on approval)",
  }),
  source_ref: Nullable(
    Type.String({
      description: 'The agent run an `import_agent` task decides; the document an `ai_review` task is about',
    }),
  ),
  task_type: Type.String(),
  title: Type.String(),
  description: Type.String(),
  context: Type.Unknown(),
  data: Type.Unknown(),
  editable_fields: Nullable(Type.Array(Type.String())),
  assignee_type: Type.String(),
  assignee_value: Type.String(),
  status: Type.String(),
  decision: Nullable(Type.String()),
  comments: Nullable(Type.String()),
  decided_by: Nullable(Type.String()),
  created_at: Timestamp,
  due_at: Timestamp,
  escalation_at: Timestamp,
  escalated_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
});

export const TaskList = Type.Object({
  data: Type.Array(TaskBody),
  total: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
});

export const CompleteTaskBody = Type.Object(
  {
    decision: Type.Union([Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('modified')]),
    comments: Type.Optional(Type.String({ maxLength: 10_000 })),
    modified_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const CompleteTaskAnswer = Type.Object({
  task_id: Type.String(),
  status: Type.String(),
  decision: Type.String(),
  completed_at: Timestamp,
  execution_id: Nullable(Type.String()),
  execution_status: Nullable(Type.String()),
});
