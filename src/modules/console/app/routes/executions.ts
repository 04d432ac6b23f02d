// Executions (`#/executions?workflow=&status=`, and one run at `#/executions/<id>`): the run's
// graph with each step's state, followed live (polled while it runs or waits), the output of the
// step chosen, and Pause/Resume/Cancel. Team tier and above.
import { useState } from 'preact/hooks';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h, href, replaceRoute, type ViewProps } from '../ui.ts';
import { attempt, Field, Loading, Progress, StatusBadge, useLoad, when } from './account-ui.ts';
import { Graph } from './workflow-graph.ts';
import type { WfNode } from './workflow-nodes.ts';
import { tw } from './workflows-i18n.ts';

type Execution = OperationResponse<'getDagExecution'>;
interface NodeResult {
  status: string;
  output?: unknown;
  error?: string;
  reason?: string;
  attempt?: number;
  completed_at?: string | null;
}
const LIVE = /^(running|paused|pending|queued)$/;
const STATES = ['running', 'paused', 'completed', 'failed', 'cancelled'] as const;

export default function Executions({ route }: ViewProps) {
  return route.arg ? h(ExecutionView, { id: route.arg }) : h(ExecutionList, { params: route.params });
}

function ExecutionList({ params }: { params: URLSearchParams }) {
  const workflow = params.get('workflow') ?? undefined;
  const status = (params.get('status') ?? undefined) as (typeof STATES)[number] | undefined;
  const list = useLoad(
    () =>
      client().call('listDagExecutions', {
        query: { page_size: 50, ...(workflow ? { workflow_id: workflow } : {}), ...(status ? { status } : {}) },
      }),
    [workflow, status],
    (d) => d.data.some((e) => e.status === 'running'),
  );
  return h(
    'div',
    { class: 'account' },
    h('div', { class: 'row spread' }, h('h1', {}, tw('ex.title')), h('a', { href: href('workflows') }, tw('wf.back'))),
    h(
      'div',
      { class: 'card row' },
      h(
        Field,
        { label: tw('ex.filter') },
        h(
          'select',
          {
            value: status ?? '',
            onChange: (e: Event) =>
              replaceRoute(href('executions', '', { workflow, status: (e.target as HTMLSelectElement).value })),
          },
          h('option', { value: '' }, tw('ex.all')),
          STATES.map((s) => h('option', { key: s, value: s }, s)),
        ),
      ),
    ),
    !list.data
      ? h(Loading, { error: list.error })
      : list.data.data.length === 0
        ? h('p', { class: 'muted card' }, tw('ex.none'))
        : h(
            'div',
            { class: 'card table-wrap', tabIndex: 0, role: 'region', 'aria-label': tw('ex.title') },
            h(
              'table',
              { class: 'data' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  (['workflow', 'status', 'started', 'progress'] as const).map((c) =>
                    h('th', { key: c, scope: 'col' }, tw(`ex.col.${c}`)),
                  ),
                ),
              ),
              h(
                'tbody',
                {},
                list.data.data.map((e) =>
                  h(
                    'tr',
                    { key: e.id },
                    h(
                      'td',
                      {},
                      h('a', { href: href('executions', e.id) }, `${e.workflow_name} · ${when(e.started_at)}`),
                      e.test_run ? h('span', { class: 'badge busy wf-test' }, tw('ex.test')) : null,
                    ),
                    h('td', {}, h(StatusBadge, { value: e.status })),
                    h('td', {}, when(e.started_at)),
                    h('td', {}, e.progress_percent === undefined ? '' : `${e.progress_percent} %`),
                  ),
                ),
              ),
            ),
          ),
  );
}

function ExecutionView({ id }: { id: string }) {
  const run = useLoad(
    () => client().call('getDagExecution', { path: { id } }),
    [id],
    (e) => LIVE.test(e.status),
  );
  const [chosen, setChosen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (!run.data) return h(Loading, { error: run.error });
  const e: Execution = run.data;
  const results = (e.node_results ?? {}) as Record<string, NodeResult>;
  // The graph is the version the run ran (its definition, answered with it), however the workflow changed since.
  const nodes = ((e.definition?.nodes as WfNode[] | undefined) ??
    Object.keys(results).map((k) => ({ id: k, type: '' }))) as WfNode[];
  const states: Record<string, string> = {};
  for (const n of nodes) states[n.id] = results[n.id]?.status ?? 'pending';
  const selected =
    chosen ??
    e.failed_node_id ??
    e.current_node ??
    nodes.find((n) => results[n.id]?.status === 'waiting')?.id ??
    nodes[0]?.id ??
    null;
  const act = (work: () => Promise<unknown>) => void attempt(work, setError).then((ok) => ok && run.reload());
  const live = LIVE.test(e.status);
  return h(
    'div',
    { class: 'account wide' },
    h(
      'div',
      { class: 'row spread' },
      h(
        'div',
        {},
        h('a', { href: href('executions', '', { workflow: e.workflow_id }) }, tw('ex.back')),
        h('h1', {}, tw('ex.of', { name: e.workflow_name, state: e.status })),
        h(
          'p',
          { class: 'muted' },
          h(StatusBadge, { value: e.status }),
          e.test_run ? h('span', { class: 'badge busy wf-test' }, tw('ex.test')) : null,
          ` ${when(e.started_at)}`,
          e.finished_at ? ` – ${when(e.finished_at)}` : '',
          ' · ',
          h('a', { class: 'inline-link', href: href('workflow', e.workflow_id) }, tw('wf.editor')),
        ),
      ),
      h(
        'div',
        { class: 'actions' },
        e.status === 'running'
          ? h(
              'button',
              { type: 'button', onClick: () => act(() => client().call('pauseDagExecution', { path: { id } })) },
              tw('ex.pause'),
            )
          : null,
        e.status === 'paused' && !e.paused_reason?.startsWith('waiting')
          ? h(
              'button',
              {
                type: 'button',
                onClick: () => act(() => client().call('resumeDagExecution', { path: { id }, body: {} })),
              },
              tw('ex.resume'),
            )
          : null,
        live
          ? h(
              'button',
              {
                type: 'button',
                class: 'danger',
                onClick: () =>
                  confirm(tw('ex.confirmCancel')) &&
                  act(() => client().call('cancelDagExecution', { path: { id }, body: {} })),
              },
              tw('ex.cancel'),
            )
          : null,
      ),
    ),
    h(ErrorLine, { error }),
    h(Progress, {
      label: tw('ex.progress'),
      value: e.progress_percent ?? 0,
      max: 100,
      text: tw('ex.pct', { n: e.progress_percent ?? 0 }),
    }),
    e.paused_reason
      ? h(
          'p',
          {},
          tw('ex.paused', { reason: e.paused_reason.replace(/_/g, ' ') }),
          ' ',
          h('a', { class: 'inline-link', href: href('tasks') }, tw('ex.openTask')),
        )
      : null,
    e.error ? h('p', { class: 'error' }, tw('ex.error', { node: e.failed_node_id ?? '?', error: e.error })) : null,
    h('p', { class: 'muted' }, tw('ex.ranVersion', { ran: e.workflow_version })),
    live ? h('p', { class: 'muted hint' }, tw('ex.live')) : null,
    h(
      'div',
      { class: 'wf-run' },
      h(
        'section',
        { class: 'card wf-canvas', 'aria-labelledby': 'ex-graph-title' },
        h('h2', { id: 'ex-graph-title', class: 'card-title' }, tw('ex.graph')),
        h(Graph, { nodes, label: tw('ex.graph'), states, selected, onSelect: setChosen }),
      ),
      h(NodeOutput, { id: selected, result: selected ? results[selected] : undefined }),
    ),
    h(
      'details',
      { class: 'card' },
      h('summary', {}, tw('ex.trigger')),
      h('pre', { class: 'wf-json' }, JSON.stringify(e.trigger_data ?? {}, null, 2)),
    ),
    e.final_output !== undefined && e.final_output !== null
      ? h(
          'details',
          { class: 'card' },
          h('summary', {}, tw('ex.final')),
          h('pre', { class: 'wf-json' }, JSON.stringify(e.final_output, null, 2)),
        )
      : null,
  );
}

function NodeOutput({ id, result }: { id: string | null; result: NodeResult | undefined }) {
  return h(
    'section',
    { class: 'card wf-output', 'aria-labelledby': 'ex-output-title', 'aria-live': 'polite' },
    h('h2', { id: 'ex-output-title', class: 'card-title' }, id ? tw('ex.outputOf', { id }) : tw('ex.output')),
    !id || !result
      ? h('p', { class: 'muted' }, tw('ex.notRun'))
      : [
          h(
            'p',
            { key: 'state' },
            h(StatusBadge, { value: result.status }),
            result.attempt ? ` ${tw('ex.attempt', { n: result.attempt })}` : '',
            result.completed_at ? ` · ${tw('ex.finishedAt', { when: when(result.completed_at) })}` : '',
          ),
          result.error ? h('p', { key: 'error', class: 'error' }, result.error) : null,
          result.reason ? h('p', { key: 'reason', class: 'muted' }, result.reason) : null,
          result.output === undefined || result.output === null
            ? h('p', { key: 'none', class: 'muted' }, tw('ex.noOutput'))
            : h(
                'pre',
                { key: 'out', class: 'wf-json', tabIndex: 0, 'aria-label': tw('ex.outputOf', { id }) },
                JSON.stringify(result.output, null, 2),
              ),
        ],
  );
}
