// Workflows (`#/workflows`): the tenant's workflows with their state, trigger and last run; create
// one (a draft, opened in the editor, `#/workflow/<id>`, its own chunk); delete. Team tier and above.
import { useState } from 'preact/hooks';
import { client } from '../sdk.ts';
import { ErrorLine, h, href } from '../ui.ts';
import { attempt, Field, Loading, StatusBadge, useLoad, when } from './account-ui.ts';
import { tw, word } from './workflows-i18n.ts';

export default function Workflows() {
  const list = useLoad(() => client().call('listDagWorkflows', { query: { page_size: 100 } }));
  const [error, setError] = useState<unknown>(null);
  const create = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    void attempt(async () => {
      const made = await client().call('createDagWorkflow', {
        body: {
          name: String(data.get('name')),
          description: String(data.get('description') ?? ''),
          status: 'draft',
          trigger: { type: 'manual' },
          nodes: [],
        },
      });
      location.hash = href('workflow', made.id);
    }, setError);
  };
  const remove = (id: string, name: string) => {
    if (!confirm(tw('wf.confirmDelete', { name }))) return;
    void attempt(() => client().call('deleteDagWorkflow', { path: { id } }), setError).then(
      (ok) => ok && list.reload(),
    );
  };
  return h(
    'div',
    { class: 'account' },
    h(
      'div',
      { class: 'row spread' },
      h('h1', {}, tw('wf.title')),
      h('div', { class: 'actions' }, h('a', { class: 'button', href: href('executions') }, tw('wf.executions'))),
    ),
    h(
      'form',
      { class: 'card row', onSubmit: create, 'aria-label': tw('wf.create') },
      h(Field, { label: tw('wf.name') }, h('input', { name: 'name', required: true, maxLength: 200 })),
      h(Field, { label: tw('wf.description') }, h('input', { name: 'description', maxLength: 1000 })),
      h('button', { type: 'submit', class: 'primary' }, tw('wf.create')),
    ),
    h(ErrorLine, { error }),
    !list.data
      ? h(Loading, { error: list.error })
      : list.data.data.length === 0
        ? h('p', { class: 'muted card' }, tw('wf.none'))
        : h(
            'div',
            { class: 'card table-wrap', tabIndex: 0, role: 'region', 'aria-label': tw('wf.title') },
            h(
              'table',
              { class: 'data' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  (['name', 'status', 'trigger', 'nodes', 'last', 'actions'] as const).map((c) =>
                    h('th', { key: c, scope: 'col' }, tw(`wf.col.${c}`)),
                  ),
                ),
              ),
              h(
                'tbody',
                {},
                list.data.data.map((w) =>
                  h(
                    'tr',
                    { key: w.id },
                    h(
                      'td',
                      {},
                      h('a', { href: href('workflow', w.id) }, w.name),
                      w.description ? h('div', { class: 'muted' }, w.description) : null,
                    ),
                    h(
                      'td',
                      {},
                      h(StatusBadge, { value: w.status }),
                      ' ',
                      h('span', { class: 'muted' }, tw('wf.version', { n: w.version })),
                    ),
                    h('td', {}, word('wf.trigger', w.trigger_type)),
                    h('td', {}, String(w.node_count)),
                    h('td', {}, w.last_execution ? when(w.last_execution) : tw('wf.never')),
                    h(
                      'td',
                      {},
                      h(
                        'div',
                        { class: 'actions' },
                        h(
                          'a',
                          {
                            class: 'button small',
                            href: href('executions', '', { workflow: w.id }),
                            'aria-label': tw('wf.executionsOf', { name: w.name }),
                          },
                          tw('wf.executions'),
                        ),
                        h(
                          'button',
                          {
                            type: 'button',
                            class: 'small danger',
                            onClick: () => remove(w.id, w.name),
                            'aria-label': tw('wf.deleteOf', { name: w.name }),
                          },
                          tw('wf.delete'),
                        ),
                      ),
                    ),
                  ),
                ),
              ),
            ),
          ),
  );
}
