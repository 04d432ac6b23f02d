import type { NodeHandler } from '../node-handlers.ts';
import type { NewTask, TasksService } from '../tasks.service.ts';

const TASK_TYPES = { human_approval: 'approval', human_review: 'review', human_assignment: 'assignment' } as const;
const ASSIGNEE_TYPES = new Set(['role', 'user', 'workspace']);
const ON_TIMEOUT = new Set(['fail', 'approve', 'reject']);
const DEFAULT_TIMEOUT_HOURS = 72;
const HOUR_MS = 3_600_000;

/**
 * `human_approval`, `human_review`, `human_assignment` (contract §10): the node hands its run to a
 * task, created in the transaction that records the hand-over, with its escalation and expiry
 * timers. The run finishes when the task is completed or expires.
 */
export function humanHandler(tasks: TasksService): NodeHandler {
  return async ({ node, config, startedAt }) => {
    const taskType = TASK_TYPES[node.type as keyof typeof TASK_TYPES];
    const assigneeType = String(config.assignee_type);
    if (!ASSIGNEE_TYPES.has(assigneeType))
      throw new Error(`Node "${node.id}": assignee_type must be role, user or workspace`);
    if (typeof config.assignee_value !== 'string' || config.assignee_value === '')
      throw new Error(`Node "${node.id}": assignee_value is required`);
    const onTimeout = String(config.on_timeout ?? 'fail');
    if (!ON_TIMEOUT.has(onTimeout)) throw new Error(`Node "${node.id}": on_timeout must be fail, approve or reject`);
    const timeoutHours = positive(node.timeout_hours ?? config.timeout_hours, DEFAULT_TIMEOUT_HOURS);
    const escalateHours = positive(config.escalate_after_hours, timeoutHours * 0.75);
    const editable = Array.isArray(config.editable_fields) ? config.editable_fields.map(String) : null;
    const context = {
      ...(isObject(config.context) ? config.context : {}),
      ...(config.selection_criteria !== undefined ? { selection_criteria: config.selection_criteria } : {}),
    };
    const task: NewTask = {
      taskType,
      title:
        typeof config.title === 'string'
          ? config.title
          : `${taskType[0]!.toUpperCase()}${taskType.slice(1)}: ${node.id}`,
      description: typeof config.description === 'string' ? config.description : '',
      context,
      data: isObject(config.data) ? config.data : {},
      assigneeType: assigneeType as NewTask['assigneeType'],
      assigneeValue: config.assignee_value,
      editableFields: editable,
      onTimeout: onTimeout as NewTask['onTimeout'],
      escalateTo: typeof config.escalate_to === 'string' ? config.escalate_to : null,
      dueAt: startedAt + Math.round(timeoutHours * HOUR_MS),
      escalationAt: startedAt + Math.round(Math.min(escalateHours, timeoutHours) * HOUR_MS),
    };
    return { kind: 'suspend', hold: (trx, run) => tasks.create(trx, run, task) };
  };
}

function positive(value: unknown, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== null && Number.isFinite(n) && n > 0 ? n : fallback;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
