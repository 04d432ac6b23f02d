/**
 * Who may call each workflow route, as the OpenAPI descriptions state it (the table of
 * docs/workflows.md "Who may do what"; the rules are ownership.ts).
 */
const ADMINS = 'Owners, admins and API keys';
const VIEWERS_403 = 'viewers 403 `forbidden` (before any lookup)';

export const WHO = {
  listWorkflows: `${ADMINS}: every workflow of the tenant; members (custom roles alike): the workflows they own; viewers: none (an empty list).`,
  createWorkflow: `The caller owns the new workflow; the executions its triggers start run as the owner. Anyone but a viewer (403 \`forbidden\`).`,
  readWorkflow: `Its owner, and ${ADMINS.toLowerCase()}; anyone else 404 \`WORKFLOW_NOT_FOUND\`, as for a missing one.`,
  changeWorkflow: `Its owner, and ${ADMINS.toLowerCase()} (the owner stays); other members 404 \`WORKFLOW_NOT_FOUND\`; ${VIEWERS_403}.`,
  execute: `Its owner, and ${ADMINS.toLowerCase()}; other members 404 \`WORKFLOW_NOT_FOUND\`; ${VIEWERS_403}. The execution runs as the caller — its nodes read only the documents the caller may read (a document they may not read fails its node \`not_found\`) — and belongs to the caller.`,
  listExecutions: `${ADMINS}: every execution of the tenant; members: the executions that run as them (their own \`execute\` calls and the triggers of the workflows they own); viewers: none.`,
  readExecution: `The principal it runs as (who started it, or the workflow's owner for a trigger), and ${ADMINS.toLowerCase()}; anyone else 404 \`EXECUTION_NOT_FOUND\`.`,
  controlExecution: `The principal it runs as, and ${ADMINS.toLowerCase()}; other members 404 \`EXECUTION_NOT_FOUND\`; ${VIEWERS_403}.`,
  listTasks: `${ADMINS}: every task; anyone else: the tasks assigned to them (directly, through a role or a workspace) and the tasks of executions that run as them.`,
  readTask: `Its assignees, the owner of its execution, and ${ADMINS.toLowerCase()}; anyone else 404 \`TASK_NOT_FOUND\`.`,
} as const;
