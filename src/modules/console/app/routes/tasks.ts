// The task inbox (`#/tasks?status=`): the human tasks waiting for the signed-in person (all of them
// for owners and admins), each with its context and data; Approve, Reject (with a comment), or
// Modify: a form of the fields the task declares editable (`editable_fields`), filled with the
// task's data and sent as `modified_data`. Team tier and above.
import { useEffect, useState } from 'preact/hooks';
import { client, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h, href, replaceRoute, type ViewProps } from '../ui.ts';
import { attempt, Field, Loading, StatusBadge, useLoad, when } from './account-ui.ts';
import { tw } from './workflows-i18n.ts';

type Task = OperationResponse<'listDagTasks'>['data'][number];

export default function Tasks({ route }: ViewProps) {
  const status = route.params.get('status') === 'completed' ? 'completed' : 'pending';
  const list = useLoad(() => client().call('listDagTasks', { query: { page_size: 50, status } }), [status]);
  const [done, setDone] = useState('');
  // Who decided, by name where the user list is readable (owners and admins); else the id.
  const [names, setNames] = useState<Record<string, string>>({});
  useEffect(() => {
    if (status !== 'completed') return;
    client()
      .call('listUsers', { query: { page_size: 100 } })
      .then((r) => setNames(Object.fromEntries(r.data.map((u) => [u.id, u.name]))))
      .catch(() => undefined);
  }, [status]);
  return h(
    'div',
    { class: 'account' },
    h('h1', {}, tw('task.title')),
    h(
      'div',
      { class: 'card row' },
      h(
        Field,
        { label: tw('task.show') },
        h(
          'select',
          {
            value: status,
            onChange: (e: Event) => replaceRoute(href('tasks', '', { status: (e.target as HTMLSelectElement).value })),
          },
          h('option', { value: 'pending' }, tw('task.pending')),
          h('option', { value: 'completed' }, tw('task.completed')),
        ),
      ),
    ),
    done ? h('p', { role: 'status', class: 'card' }, done) : null,
    !list.data
      ? h(Loading, { error: list.error })
      : list.data.data.length === 0
        ? h('p', { class: 'muted card' }, status === 'pending' ? tw('task.none') : tw('task.noneDone'))
        : h(
            'ul',
            { class: 'stack', 'aria-label': tw('task.title') },
            list.data.data.map((task) =>
              h(TaskCard, {
                key: task.id,
                task,
                names,
                onDone: (decision: string) => {
                  setDone(tw('task.done', { title: task.title, decision }));
                  list.reload();
                },
              }),
            ),
          ),
  );
}

function Values({ label, value }: { label: string; value: unknown }) {
  if (value === null || value === undefined || (typeof value === 'object' && Object.keys(value as object).length === 0))
    return null;
  const entries = typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as object) : [['', value]];
  return h(
    'div',
    {},
    h('h3', {}, label),
    h(
      'dl',
      { class: 'entities' },
      entries.flatMap(([k, v]) => [
        h('dt', { key: `k${k}` }, String(k)),
        h('dd', { key: `v${k}`, class: 'break' }, typeof v === 'object' ? JSON.stringify(v) : String(v)),
      ]),
    ),
  );
}

const DECIDED: Record<string, string> = { approved: 'ok', modified: 'ok', rejected: 'bad' };

function TaskCard({
  task,
  names,
  onDone,
}: {
  task: Task;
  names: Record<string, string>;
  onDone: (decision: string) => void;
}) {
  const [error, setError] = useState<unknown>(null);
  const [comment, setComment] = useState('');
  const [modifying, setModifying] = useState(false);
  const [busy, setBusy] = useState(false);
  const pending = task.status === 'pending';
  const complete = (decision: 'approved' | 'rejected' | 'modified', modified?: Record<string, unknown>) => {
    setBusy(true);
    void attempt(
      () =>
        client().call('postDagTaskComplete', {
          path: { id: task.id },
          body: {
            decision,
            ...(comment ? { comments: comment } : {}),
            ...(modified ? { modified_data: modified } : {}),
          },
        }),
      setError,
    ).then((ok) => {
      setBusy(false);
      if (ok) onDone(decision);
    });
  };
  const headId = `task-${task.id}`;
  return h(
    'li',
    { class: 'card', 'aria-labelledby': headId },
    h(
      'div',
      { class: 'row spread' },
      h('h2', { id: headId, class: 'card-title break' }, task.title),
      task.decision
        ? h('span', { class: `badge ${DECIDED[task.decision] ?? 'busy'}` }, task.decision)
        : h(StatusBadge, { value: task.status }),
    ),
    task.workflow_name
      ? h(
          'p',
          { class: 'muted' },
          tw('task.from', { workflow: task.workflow_name, node: task.node_id ?? '' }),
          ' · ',
          task.execution_id
            ? h('a', { class: 'inline-link', href: href('executions', task.execution_id) }, tw('task.execution'))
            : null,
        )
      : null,
    h(
      'p',
      { class: 'muted' },
      tw('task.assigned', { type: task.assignee_type, value: task.assignee_value }),
      pending ? ` · ${tw('task.due', { when: when(task.due_at) })}` : '',
    ),
    task.description ? h('p', {}, task.description) : null,
    h(Values, { label: tw('task.context'), value: task.context }),
    h(Values, { label: tw('task.data'), value: task.data }),
    !pending
      ? h(
          'p',
          { class: 'muted' },
          tw('task.decision', {
            decision: task.decision ?? task.status,
            who: task.decided_by ? (names[task.decided_by] ?? task.decided_by) : '',
            when: task.completed_at ? when(task.completed_at) : '',
          }),
          task.comments ? ` — “${task.comments}”` : '',
        )
      : [
          h(
            Field,
            { key: 'comment', label: tw('task.comment', { title: task.title }) },
            h('textarea', {
              rows: 2,
              value: comment,
              onInput: (e: Event) => setComment((e.target as HTMLTextAreaElement).value),
            }),
          ),
          h(
            'div',
            { key: 'actions', class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'primary',
                disabled: busy,
                onClick: () => complete('approved'),
                'aria-label': tw('task.approveOf', { title: task.title }),
              },
              tw('task.approve'),
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'danger',
                disabled: busy,
                onClick: () => complete('rejected'),
                'aria-label': tw('task.rejectOf', { title: task.title }),
              },
              tw('task.reject'),
            ),
            (task.editable_fields ?? []).length === 0
              ? null
              : h(
                  'button',
                  {
                    type: 'button',
                    disabled: busy,
                    'aria-expanded': modifying ? 'true' : 'false',
                    onClick: () => setModifying(!modifying),
                    'aria-label': tw('task.modifyOf', { title: task.title }),
                  },
                  tw('task.modify'),
                ),
          ),
          modifying
            ? h(ModifyForm, {
                key: 'modify',
                task,
                busy,
                onSubmit: (data: Record<string, unknown>) => complete('modified', data),
                onCancel: () => setModifying(false),
              })
            : null,
        ],
    h(ErrorLine, { error }),
  );
}

/** The form the task declares: one control per editable field, typed by the value it holds now. */
function ModifyForm({
  task,
  busy,
  onSubmit,
  onCancel,
}: {
  task: Task;
  busy: boolean;
  onSubmit: (data: Record<string, unknown>) => void;
  onCancel: () => void;
}) {
  const data = (task.data && typeof task.data === 'object' ? task.data : {}) as Record<string, unknown>;
  const fields = task.editable_fields ?? [];
  const [bad, setBad] = useState('');
  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const current = data[f];
      const raw = form.get(f);
      if (typeof current === 'boolean') out[f] = raw === 'on';
      else if (typeof current === 'number') out[f] = raw === '' ? null : Number(raw);
      else if (current !== null && typeof current === 'object') {
        try {
          out[f] = JSON.parse(String(raw));
        } catch (err) {
          setBad(`${f}: ${tw('wf.badJson', { error: (err as Error).message })}`);
          return;
        }
      } else out[f] = String(raw ?? '');
    }
    setBad('');
    onSubmit(out);
  };
  return h(
    'form',
    { class: 'wf-modify', onSubmit: submit, 'aria-label': tw('task.modifyForm', { title: task.title }) },
    fields.length === 0
      ? h('p', { class: 'muted' }, tw('task.noEditable'))
      : fields.map((f) => {
          const v = data[f];
          const control =
            typeof v === 'boolean'
              ? h('input', { type: 'checkbox', name: f, defaultChecked: v })
              : typeof v === 'number'
                ? h('input', { type: 'number', name: f, step: 'any', defaultValue: String(v) })
                : v !== null && typeof v === 'object'
                  ? h('textarea', { name: f, rows: 3, class: 'mono', defaultValue: JSON.stringify(v, null, 2) })
                  : h('input', { name: f, defaultValue: v === undefined || v === null ? '' : String(v) });
          return h(Field, { key: f, label: f }, control);
        }),
    bad ? h('p', { class: 'error', role: 'alert' }, bad) : null,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'submit', class: 'primary', disabled: busy || fields.length === 0 },
        tw('task.submitModified'),
      ),
      h('button', { type: 'button', onClick: onCancel }, tw('task.cancel')),
    ),
  );
}
