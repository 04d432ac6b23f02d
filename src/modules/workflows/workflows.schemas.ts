import { Type } from 'typebox';
import { Nullable, PageQuery, Timestamp } from '../../http/common-schemas.ts';
import { TRIGGER_RULES } from './engine/types.ts';
import {
  ACCEPTED_PRIORITIES,
  type AcceptedPriority,
  DEFAULT_PRIORITY,
  EXECUTION_PRIORITIES,
  type ExecutionPriority,
} from './execution-priority.ts';

const Json = Type.Unknown();

export const WorkflowNodeSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    type: Type.String({ minLength: 1, maxLength: 64 }),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    depends_on: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 1000 })),
    run_if: Type.Optional(Type.String({ maxLength: 4000 })),
    trigger_rule: Type.Optional(Type.Union(TRIGGER_RULES.map((r) => Type.Literal(r)))),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
    timeout_hours: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    retry: Type.Optional(
      Type.Object(
        {
          max_attempts: Type.Integer({ minimum: 1, maximum: 20 }),
          backoff_seconds: Type.Optional(Type.Number({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    position: Type.Optional(
      Type.Object(
        {
          x: Type.Number({ minimum: -1_000_000, maximum: 1_000_000 }),
          y: Type.Number({ minimum: -1_000_000, maximum: 1_000_000 }),
        },
        {
          additionalProperties: false,
          description:
            'Where an editor draws the node (its own units, e.g. pixels of the canvas); kept with the definition, never read by the engine.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const Trigger = Type.Object(
  { type: Type.String({ minLength: 1 }), conditions: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: false },
);
const ErrorHandling = Type.Object(
  {
    on_failure: Type.Optional(Type.Union([Type.Literal('fail'), Type.Literal('pause'), Type.Literal('continue')])),
    notify_on_failure: Type.Optional(Type.Array(Type.String({ format: 'email' }))),
  },
  { additionalProperties: false },
);
const Status = Type.Union([Type.Literal('draft'), Type.Literal('active'), Type.Literal('paused')]);

export const CreateWorkflowBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    // Additive to the spec: `draft` saves an unfinished definition unvalidated; without it the body must validate.
    status: Type.Optional(
      Type.Literal('draft', {
        description:
          'Save without validating (an unfinished draft). Without it, an invalid workflow is 400 `INVALID_WORKFLOW`.',
      }),
    ),
    trigger: Type.Optional(Trigger),
    nodes: Type.Optional(Type.Array(WorkflowNodeSchema, { maxItems: 10_000 })),
    error_handling: Type.Optional(ErrorHandling),
  },
  { additionalProperties: false },
);

export const UpdateWorkflowBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    status: Type.Optional(Status),
    trigger: Type.Optional(Trigger),
    nodes: Type.Optional(Type.Array(WorkflowNodeSchema, { maxItems: 10_000 })),
    error_handling: Type.Optional(ErrorHandling),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WorkflowListQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(Status) },
  { additionalProperties: false },
);

export const CreatedWorkflow = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: Type.String(),
  version: Type.Integer(),
  created_at: Timestamp,
});

export const WorkflowBody = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  status: Type.String(),
  version: Type.Integer(),
  trigger: Json,
  nodes: Json,
  error_handling: Json,
  statistics: Type.Optional(Json),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const WorkflowListItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  status: Type.String(),
  version: Type.Integer(),
  trigger_type: Type.String(),
  node_count: Type.Integer(),
  last_execution: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ValidationIssueSchema = Type.Object({
  severity: Type.Union([Type.Literal('error'), Type.Literal('warning')]),
  code: Type.String({
    description:
      'Stable: no_nodes, duplicate_node_id, unknown_dependency, unknown_trigger_rule, invalid_expression, expressions_too_long, circular_dependency, unknown_trigger_type, invalid_cron, missing_trigger_condition, unknown_node_type, missing_config, no_timeout.',
  }),
  message: Type.String({ description: 'The sentence `errors` or `warnings` carries.' }),
  node_id: Type.Optional(Type.String({ description: 'The node it is about; absent for the workflow or its trigger.' })),
  field: Type.Optional(
    Type.String({
      description: 'The field it is about: `config.<key>`, `depends_on`, `run_if`, `trigger.conditions.<key>`, …',
    }),
  ),
});

export const ValidationAnswer = Type.Object({
  valid: Type.Boolean(),
  errors: Type.Array(Type.String()),
  warnings: Type.Array(Type.String()),
  issues: Type.Array(ValidationIssueSchema, {
    description: 'Each error and warning, structured: code, node and field (docs/api-decisions.md §10).',
  }),
});

/** A union of literals (a wrong value is answered "must be one of: low, normal, high, urgent"), typed as the priority. */
const Priority = (options: { default?: ExecutionPriority; description?: string } = {}) =>
  Type.Unsafe<ExecutionPriority>(
    Type.Union(
      EXECUTION_PRIORITIES.map((p) => Type.Literal(p)),
      options,
    ),
  );
/** What execute accepts: the priorities and their aliases (`medium` is `normal`, `critical` is `urgent`). */
const RequestedPriority = (options: { default?: AcceptedPriority; description?: string } = {}) =>
  Type.Unsafe<AcceptedPriority>(
    Type.Union(
      ACCEPTED_PRIORITIES.map((p) => Type.Literal(p)),
      options,
    ),
  );

export const ExecuteBody = Type.Object(
  {
    trigger_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    priority: Type.Optional(
      RequestedPriority({
        default: DEFAULT_PRIORITY,
        description:
          'The job priority of its steps: waiting steps of `urgent` executions are claimed before `high`, `normal` and `low` ones. `medium` is taken as `normal` and `critical` as `urgent`.',
      }),
    ),
  },
  { additionalProperties: false },
);
export const ExecuteAnswer = Type.Object({
  execution_id: Type.String(),
  workflow_id: Type.String(),
  status: Type.String(),
  test_run: Type.Boolean(),
  started_at: Timestamp,
});

const ExecStatus = Type.Union(['running', 'paused', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s)));
export const ExecutionListQuery = Type.Object(
  { ...PageQuery, workflow_id: Type.Optional(Type.String()), status: Type.Optional(ExecStatus) },
  { additionalProperties: false },
);

export const ExecutionBody = Type.Object({
  id: Type.String(),
  workflow_id: Type.String(),
  workflow_name: Type.String(),
  workflow_version: Type.Integer(),
  status: Type.String(),
  paused_reason: Nullable(Type.String()),
  test_run: Type.Boolean(),
  trigger_type: Type.String(),
  priority: Priority(),
  started_at: Timestamp,
  finished_at: Nullable(Timestamp),
  error: Nullable(Type.String()),
  failed_node_id: Nullable(Type.String()),
  cancelled_at: Type.Optional(Nullable(Timestamp)),
  reason: Type.Optional(
    Nullable(Type.String({ description: 'Only on a cancelled execution: the reason given to cancel, if any.' })),
  ),
  current_node: Type.Optional(Nullable(Type.String())),
  nodes_completed: Type.Optional(Type.Array(Type.String())),
  nodes_pending: Type.Optional(Type.Array(Type.String())),
  progress_percent: Type.Optional(Type.Integer()),
  trigger_data: Type.Optional(Json),
  node_results: Type.Optional(Json),
  final_output: Type.Optional(Json),
  definition: Type.Optional(
    Type.Object(
      { nodes: Json, trigger: Json, error_handling: Json },
      {
        description:
          'The definition of the version the execution ran (`workflow_version`): its nodes (with their positions), trigger and error handling, whatever the workflow has become since.',
      },
    ),
  ),
});

export const PauseAnswer = Type.Object({
  execution_id: Type.String(),
  status: Type.String(),
  paused_at: Timestamp,
  can_resume: Type.Boolean(),
});
export const ResumeBody = Type.Object(
  { modified_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: false },
);
export const ResumeAnswer = Type.Object({ execution_id: Type.String(), status: Type.String(), resumed_at: Timestamp });
export const CancelBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);
export const CancelAnswer = Type.Object({
  execution_id: Type.String(),
  status: Type.String(),
  cancelled_at: Timestamp,
  reason: Nullable(Type.String()),
});
