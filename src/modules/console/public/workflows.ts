// The human-task inbox (approve or reject with a comment) and workflow executions with their
// node states as a graph. Workflows need the Team tier: other tenants get a plain notice.
import { type Answer, ApiError, call, send } from './api.ts';
import { executionGraph, type GraphNode } from './graph.ts';
import { actionButton, formatDate, h, rerender, show } from './views.ts';

type Task = Answer<'listDagTasks'>['data'][number];
type Execution = Answer<'getDagExecution'>;

/** Runs a view, turning "not on this service / not on this plan" into a notice. */
async function orNotice(view: () => Promise<void>): Promise<void> {
  try {
    await view();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 403))
      return show(h('h2', {}, 'Workflows'), h('p', {}, `Not available: ${error.message}`));
    throw error;
  }
}

export const tasksView = () =>
  orNotice(async () => {
    const { data, total } = await call('listDagTasks', 'GET', '/api/v1/dag/tasks?status=pending&page_size=50');
    show(
      h('h2', {}, `Tasks waiting (${total})`),
      data.length === 0 ? h('p', {}, 'Nothing waiting.') : h('ul', { class: 'cards' }, ...data.map(taskCard)),
    );
  });

function taskCard(t: Task): HTMLElement {
  const comment = h('textarea', { id: `c-${t.id}`, rows: 2 }) as HTMLTextAreaElement;
  const decide = (decision: 'approved' | 'rejected') => async () => {
    await send('POST', `/api/v1/dag/tasks/${encodeURIComponent(t.id)}/complete`, {
      body: { decision, ...(comment.value ? { comments: comment.value } : {}) },
    });
    rerender();
  };
  return h(
    'li',
    { 'aria-labelledby': `t-${t.id}` },
    h('h3', { id: `t-${t.id}` }, t.title),
    h(
      'p',
      {},
      `${t.workflow_name ?? t.source} · for ${t.assignee_type} ${t.assignee_value} · due ${formatDate(t.due_at)}`,
      // An import agent's task has no execution: its proposal is shown below instead.
      t.execution_id ? h('span', {}, ' · ', h('a', { href: `#/execution/${t.execution_id}` }, 'execution')) : null,
    ),
    t.description && h('p', {}, t.description),
    t.source === 'import_agent'
      ? h(
          'pre',
          { class: 'proposal' },
          JSON.stringify((t.data as { documents?: unknown }).documents ?? t.data, null, 2),
        )
      : null,
    h('label', { for: `c-${t.id}` }, `Comment on “${t.title}”`),
    h('br'),
    comment,
    h('br'),
    actionButton('Approve', decide('approved'), { 'aria-label': `Approve ${t.title}` }),
    ' ',
    actionButton('Reject', decide('rejected'), { 'aria-label': `Reject ${t.title}` }),
  );
}

export const executionsView = () =>
  orNotice(async () => {
    const { data } = await call('listDagExecutions', 'GET', '/api/v1/dag/executions?page_size=50');
    const row = (e: (typeof data)[number]) =>
      h(
        'tr',
        {},
        h('td', {}, h('a', { href: `#/execution/${e.id}` }, e.workflow_name)),
        h('td', {}, e.status + (e.paused_reason ? ` (${e.paused_reason})` : '')),
        h('td', { class: 'wide' }, formatDate(e.started_at)),
      );
    show(
      h('h2', {}, 'Executions'),
      h(
        'table',
        { 'aria-label': 'Executions' },
        h(
          'thead',
          {},
          h('tr', {}, h('th', {}, 'Workflow'), h('th', {}, 'Status'), h('th', { class: 'wide' }, 'Started')),
        ),
        h('tbody', {}, ...data.map(row)),
      ),
    );
  });

export const executionView = (id: string) =>
  orNotice(async () => {
    const execution = await call('getDagExecution', 'GET', `/api/v1/dag/executions/${encodeURIComponent(id)}`);
    const workflow = await call(
      'getDagWorkflow',
      'GET',
      `/api/v1/dag/workflows/${encodeURIComponent(execution.workflow_id)}`,
    );
    const nodes = (Array.isArray(workflow.nodes) ? workflow.nodes : []) as GraphNode[];
    show(
      h('h2', {}, `${execution.workflow_name}: ${execution.status}`),
      h(
        'p',
        { role: 'status' },
        `${execution.progress_percent ?? 0}% · started ${formatDate(execution.started_at)}${execution.paused_reason ? ` · paused: ${execution.paused_reason}` : ''}`,
      ),
      executionGraph(nodes, (node) => nodeState(execution, node)),
      execution.error && h('p', { class: 'error' }, execution.error),
    );
    if (execution.status === 'running') setTimeout(() => location.hash.endsWith(id) && rerender(), 1500);
  });

function nodeState(e: Execution, node: string): string {
  const results = (e.node_results ?? {}) as Record<string, { status?: string }>;
  if (results[node]?.status) return results[node].status as string;
  if (e.current_node === node) return e.status === 'paused' ? 'waiting' : 'running';
  return 'pending';
}
