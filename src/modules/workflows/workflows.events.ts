import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.ts';
import type { EventSchemas } from '../../events/event-catalogue.ts';

/*
 * The events the workflows module emits (executions and human tasks): each one's data schema is the
 * single declaration its type, its webhook payload in the OpenAPI document and the SDK's
 * `WebhookEvents` come from.
 */

const Execution = { execution_id: Type.String(), workflow_id: Type.String(), workflow_name: Type.String() };

const ExecutionStarted = Type.Object({ ...Execution, status: Type.Literal('running'), trigger_type: Type.String() });

/** Spec: exactly these; `duration_seconds` an integer, `final_output` any JSON. */
const ExecutionCompleted = Type.Object({
  ...Execution,
  status: Type.String(),
  duration_seconds: Type.Integer(),
  final_output: Type.Unknown({ description: 'Any JSON: the output of the end node.' }),
});

const ExecutionFailed = Type.Object({
  ...Execution,
  status: Type.Literal('failed'),
  error: Type.String(),
  failed_node_id: Nullable(Type.String()),
});

const ExecutionPaused = Type.Object({
  ...Execution,
  status: Type.Literal('paused'),
  paused_reason: Nullable(Type.String()),
});

// A task of another source (an import agent's proposal) has no execution: null ids, and names its `source`.
const Task = {
  task_id: Type.String(),
  execution_id: Nullable(Type.String()),
  workflow_id: Nullable(Type.String()),
  source: Type.Optional(
    Type.String({
      description: 'A task of another source than a workflow (an import agent): its name; the ids are then null.',
    }),
  ),
};

const TaskCreated = Type.Object({
  ...Task,
  title: Type.String(),
  assignee_type: Type.String(),
  assignee_value: Type.String(),
  due_at: Nullable(Type.String({ format: 'date-time' })),
});

const TaskCompleted = Type.Object({
  ...Task,
  decision: Nullable(Type.String()),
  completed_by: Nullable(Type.String()),
});

const TaskEscalated = Type.Object({ ...Task, escalated_to: Nullable(Type.String()) });

/** The module's event schemas, by name (handed to the platform by its index.ts). */
export const WORKFLOW_EVENTS = {
  'dag.execution.started': ExecutionStarted,
  'dag.execution.completed': ExecutionCompleted,
  'dag.execution.failed': ExecutionFailed,
  'dag.execution.paused': ExecutionPaused,
  'dag.task.created': TaskCreated,
  'dag.task.completed': TaskCompleted,
  'dag.task.escalated': TaskEscalated,
} satisfies EventSchemas;

declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    'dag.execution.started': Static<typeof ExecutionStarted>;
    /** Spec: exactly these; `duration_seconds` an integer, `final_output` any JSON. */
    'dag.execution.completed': Static<typeof ExecutionCompleted>;
    'dag.execution.failed': Static<typeof ExecutionFailed>;
    'dag.execution.paused': Static<typeof ExecutionPaused>;
    'dag.task.created': Static<typeof TaskCreated>;
    'dag.task.completed': Static<typeof TaskCompleted>;
    'dag.task.escalated': Static<typeof TaskEscalated>;
  }
}
