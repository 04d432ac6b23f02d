// The workflow editor (`#/workflow/<id>`, its own chunk): the node palette, the DAG (connect by
// drag or by keyboard), each node type's own form, the trigger, and Save (with If-Match: a change
// made elsewhere since is refused, not overwritten), Check (the API's validate, its issues shown
// on their steps and at their fields), Activate/Pause, and a test run that opens its execution.
// Steps are moved by hand and their positions saved with the definition.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { client, DocuVaultError, type OperationResponse } from '../sdk.ts';
import { ErrorLine, h, href, type ViewProps } from '../ui.ts';
import { Field, Loading, StatusBadge } from './account-ui.ts';
import { Graph, type Placed, placeNew } from './workflow-graph.ts';
import {
  kindLabel,
  kindOf,
  type NodeField,
  type NodeKind,
  type NodeTypeInfo,
  paletteOf,
  type WfNode,
} from './workflow-nodes.ts';
import { tw, type WfKey, word } from './workflows-i18n.ts';

type Workflow = OperationResponse<'getDagWorkflow'>;
type UpdateBody = ReturnType<typeof updateBody>;
interface Trigger {
  type: string;
  conditions?: Record<string, unknown>;
}
interface Draft {
  name: string;
  description: string;
  trigger: Trigger;
  nodes: WfNode[];
  onFailure: 'fail' | 'pause' | 'continue';
}
/** One finding of the API's validation (`issues` of validate, or of a refused save's details). */
interface Issue {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  node_id?: string;
  field?: string;
}
interface Checked {
  general: string[];
  byNode: Record<string, Issue[]>;
  warnings: string[];
  valid: boolean;
}

const GROUPS = ['logic', 'data', 'ai', 'human', 'out', 'other'] as const;
const RULES = ['all_success', 'all_done', 'one_success', 'one_failed', 'none_failed_min_one_success'] as const;
const TRIGGERS = ['manual', 'api', 'document_upload', 'document_update', 'schedule', 'webhook'];

function draftOf(w: Workflow): Draft {
  const handling = (w.error_handling ?? {}) as { on_failure?: Draft['onFailure'] };
  return {
    name: w.name,
    description: w.description ?? '',
    trigger: ((w.trigger as Trigger | null) ?? { type: 'manual' }) as Trigger,
    nodes: ((w.nodes as WfNode[] | null) ?? []).map((n) => ({ ...n, depends_on: [...(n.depends_on ?? [])] })),
    onFailure: handling.on_failure ?? 'fail',
  };
}

function updateBody(d: Draft, status?: 'draft' | 'active' | 'paused') {
  return {
    name: d.name,
    description: d.description,
    trigger: d.trigger,
    nodes: d.nodes.map((n) => {
      const out: WfNode = { id: n.id, type: n.type, config: n.config ?? {}, depends_on: n.depends_on ?? [] };
      if (n.run_if) out.run_if = n.run_if;
      if (n.trigger_rule) out.trigger_rule = n.trigger_rule;
      if (n.timeout_seconds) out.timeout_seconds = n.timeout_seconds;
      if (n.timeout_hours) out.timeout_hours = n.timeout_hours;
      if (n.retry) out.retry = n.retry;
      if (n.position) out.position = n.position;
      return out;
    }),
    error_handling: { on_failure: d.onFailure },
    ...(status ? { status } : {}),
  };
}

/** The service's node types, asked once a page load (the same for every tenant); null until answered, or if it fails. */
let catalogue: Promise<NodeTypeInfo[] | null> | null = null;
function useNodeTypes(): NodeTypeInfo[] | null {
  const [types, setTypes] = useState<NodeTypeInfo[] | null>(null);
  useEffect(() => {
    let live = true;
    catalogue ??= client()
      .call('listWorkflowNodeTypes')
      .then(
        (r) => r.node_types,
        // The palette then offers the console's own list: the editor stays usable, and Check still
        // reports a type or key the service does not know.
        () => {
          catalogue = null;
          return null;
        },
      );
    void catalogue.then((t) => live && setTypes(t));
    return () => {
      live = false;
    };
  }, []);
  return types;
}

/** The API's errors by the step they are about (`node_id`); the rest are the workflow's; warnings apart. */
function sortProblems(issues: readonly Issue[]): Checked {
  const byNode: Record<string, Issue[]> = {};
  const general: string[] = [];
  const warnings: string[] = [];
  for (const i of issues) {
    if (i.severity === 'warning') warnings.push(i.message);
    else if (i.node_id) byNode[i.node_id] = [...(byNode[i.node_id] ?? []), i];
    else general.push(i.message);
  }
  return { general, byNode, warnings, valid: !issues.some((i) => i.severity === 'error') };
}

/** The issues of a refused save or activation (400 INVALID_WORKFLOW carries them in details.issues). */
function refusedProblems(e: unknown): Checked | null {
  if (!(e instanceof DocuVaultError) || e.status !== 400) return null;
  const list = e.details?.['issues'];
  return Array.isArray(list) ? sortProblems(list as Issue[]) : null;
}

function newId(type: string, nodes: WfNode[]): string {
  for (let i = 1; ; i++) {
    const id = `${type}_${i}`;
    if (!nodes.some((n) => n.id === id)) return id;
  }
}

export default function WorkflowEditor({ route }: ViewProps) {
  const id = route.arg;
  const [loaded, setLoaded] = useState<{ workflow: Workflow; etag: string | null } | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [dirty, setDirty] = useState(false);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [conflict, setConflict] = useState(false);
  const [checked, setChecked] = useState<Checked | null>(null);
  const [notice, setNotice] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const [connectFrom, setConnectFrom] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [testData, setTestData] = useState('{}');
  const [round, setRound] = useState(0);
  const types = useNodeTypes();

  useEffect(() => {
    let live = true;
    client()
      .callWithETag('getDagWorkflow', { path: { id } })
      .then(
        (r) => {
          if (!live) return;
          setLoaded({ workflow: r.value, etag: r.etag });
          setDraft(draftOf(r.value));
          setDirty(false);
          setConflict(false);
        },
        (e) => live && setLoadError(e),
      );
    return () => {
      live = false;
    };
  }, [id, round]);
  // Leaving with unsaved changes asks first (closing the tab; another view of the console).
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  if (!loaded || !draft) return h(Loading, { error: loadError });
  const workflow = loaded.workflow;
  const status = workflow.status;

  const change = (next: Draft) => {
    setDraft(next);
    setDirty(true);
    setNotice('');
  };
  const setNodes = (nodes: WfNode[]) => change({ ...draft, nodes });
  const updateNode = (nodeId: string, patch: Partial<WfNode>) =>
    setNodes(draft.nodes.map((n) => (n.id === nodeId ? { ...n, ...patch } : n)));
  const renameNode = (from: string, to: string) => {
    setNodes(
      draft.nodes.map((n) => ({
        ...n,
        id: n.id === from ? to : n.id,
        depends_on: (n.depends_on ?? []).map((d) => (d === from ? to : d)),
      })),
    );
    setSelected(to);
  };
  const addNode = (type: string) => {
    const nodeId = newId(type, draft.nodes);
    const after = selected && draft.nodes.some((n) => n.id === selected) ? [selected] : [];
    const node: WfNode = { id: nodeId, type, config: {}, depends_on: after };
    const position = placeNew(draft.nodes, after[0] ?? null);
    if (position) node.position = position;
    if (type === 'http_request') node.config = { method: 'GET' };
    if (type.startsWith('human_')) node.config = { assignee_type: 'role' };
    setNodes([...draft.nodes, node]);
    setSelected(nodeId);
    setNotice(tw('wf.added', { id: nodeId }));
  };
  const removeNode = (nodeId: string) => {
    setNodes(
      draft.nodes
        .filter((n) => n.id !== nodeId)
        .map((n) => ({ ...n, depends_on: (n.depends_on ?? []).filter((d) => d !== nodeId) })),
    );
    if (selected === nodeId) setSelected(null);
    setNotice(tw('wf.removed', { id: nodeId }));
  };
  // The first move fixes every step where it is drawn, so that the others stay put.
  const moveNode = (nodeId: string, to: Placed, drawn: Map<string, Placed>) => {
    setNodes(
      draft.nodes.map((n) =>
        n.id === nodeId ? { ...n, position: to } : n.position ? n : { ...n, position: drawn.get(n.id)! },
      ),
    );
    setNotice(tw('wf.moved', { id: nodeId }));
  };
  const connect = (from: string, to: string) => {
    if (from === to) {
      setNotice(tw('wf.connectSelf'));
      return;
    }
    const target = draft.nodes.find((n) => n.id === to);
    if (!target) return;
    if (!(target.depends_on ?? []).includes(from)) updateNode(to, { depends_on: [...(target.depends_on ?? []), from] });
    setNotice(tw('wf.connected', { from, to }));
    setSelected(to);
  };

  /** Saves (If-Match the ETag read); answers the saved workflow, or null when refused. */
  const save = async (nextStatus?: 'draft' | 'active' | 'paused'): Promise<Workflow | null> => {
    setError(null);
    setConflict(false);
    const keepDraft = !nextStatus && status === 'draft' ? 'draft' : nextStatus;
    try {
      const body = (nextStatus && !dirty ? { status: nextStatus } : updateBody(draft, keepDraft)) as UpdateBody;
      const r = await client().callWithETag('updateDagWorkflow', {
        path: { id },
        body,
        ...(loaded.etag ? { ifMatch: loaded.etag } : {}),
      });
      const saved = r.value as unknown as Workflow;
      setLoaded({ workflow: { ...workflow, ...saved }, etag: r.etag });
      setDirty(false);
      return saved;
    } catch (e) {
      const problems = refusedProblems(e);
      if (problems) setChecked(problems);
      if (e instanceof DocuVaultError && e.status === 412) setConflict(true);
      else setError(e);
      return null;
    }
  };
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } finally {
      setBusy(false);
    }
  };
  const onSave = () =>
    run(async () => {
      const saved = await save();
      if (saved) setNotice(tw('wf.saved', { n: saved.version }));
    });
  // Check sends the definition as it is on screen (saved or not): nothing is stored.
  const onCheck = () =>
    run(async () => {
      setError(null);
      const { trigger, nodes, error_handling } = updateBody(draft);
      try {
        const r = await client().call('validateWorkflowDraft', { body: { trigger, nodes, error_handling } });
        setChecked(sortProblems(r.issues as Issue[]));
      } catch (e) {
        setError(e);
      }
    });
  const onStatus = (next: 'active' | 'paused' | 'draft') =>
    run(async () => {
      const saved = await save(next);
      if (saved && next === 'active') {
        setChecked(sortProblems([]));
        setNotice(tw('wf.activated'));
      }
    });
  const onRun = () =>
    run(async () => {
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(testData || '{}') as Record<string, unknown>;
      } catch (e) {
        setError(new Error(tw('wf.badJson', { error: (e as Error).message })));
        return;
      }
      if (dirty && !(await save())) return;
      try {
        const started = await client().call('postDagWorkflowExecute', { path: { id }, body: { trigger_data: data } });
        location.hash = href('executions', started.execution_id);
      } catch (e) {
        setError(e);
      }
    });

  const node = draft.nodes.find((n) => n.id === selected) ?? null;
  const problems = checked?.byNode ?? {};
  const problemLines = Object.fromEntries(Object.entries(problems).map(([k, list]) => [k, list.map((i) => i.message)]));
  return h(
    'div',
    { class: 'wf-editor' },
    h(
      'div',
      { class: 'row spread wf-head' },
      h(
        'div',
        {},
        h('a', { href: href('workflows') }, tw('wf.back')),
        h('h1', {}, draft.name || workflow.name),
        h(
          'p',
          { class: 'muted' },
          h(StatusBadge, { value: status }),
          ' ',
          tw('wf.version', { n: workflow.version }),
          dirty ? h('span', { class: 'badge busy wf-dirty' }, tw('wf.unsaved')) : null,
        ),
      ),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'primary', onClick: onSave, disabled: busy }, tw('wf.save')),
        h('button', { type: 'button', onClick: onCheck, disabled: busy }, tw('wf.validate')),
        status === 'active'
          ? h('button', { type: 'button', onClick: () => onStatus('paused'), disabled: busy }, tw('wf.pause'))
          : h('button', { type: 'button', onClick: () => onStatus('active'), disabled: busy }, tw('wf.activate')),
        status !== 'draft'
          ? h('button', { type: 'button', onClick: () => onStatus('draft'), disabled: busy }, tw('wf.toDraft'))
          : null,
        h('a', { class: 'button', href: href('executions', '', { workflow: id }) }, tw('wf.executions')),
      ),
    ),
    h(
      'p',
      { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' },
      connectFrom ? tw('wf.connecting', { id: connectFrom }) : notice,
    ),
    notice && !connectFrom ? h('p', { class: 'muted', 'aria-hidden': 'true' }, notice) : null,
    conflict
      ? h(
          'div',
          { class: 'error', role: 'alert' },
          tw('wf.conflict'),
          ' ',
          h('button', { type: 'button', class: 'small', onClick: () => setRound((r) => r + 1) }, tw('wf.reload')),
        )
      : null,
    h(ErrorLine, { error }),
    checked ? h(Problems, { checked }) : null,
    h(
      'div',
      { class: 'wf-body' },
      h(Palette, { kinds: paletteOf(types), onAdd: addNode }),
      h(
        'section',
        { class: 'card wf-canvas', 'aria-labelledby': 'wf-canvas-title' },
        h('h2', { id: 'wf-canvas-title', class: 'card-title' }, tw('wf.canvas')),
        connectFrom
          ? h(
              'p',
              { class: 'wf-connecting' },
              tw('wf.connecting', { id: connectFrom }),
              ' ',
              h(
                'button',
                { type: 'button', class: 'small', onClick: () => setConnectFrom(null) },
                tw('wf.cancelConnect'),
              ),
            )
          : null,
        h(Graph, {
          nodes: draft.nodes,
          label: tw('wf.canvas'),
          selected,
          onSelect: setSelected,
          problems: problemLines,
          onConnect: connect,
          onMove: moveNode,
          onRemove: removeNode,
          connectFrom,
          setConnectFrom,
          onDropKind: addNode,
        }),
        h('p', { class: 'muted hint wf-move-hint' }, tw('wf.moveHint')),
      ),
      h(
        'section',
        { class: 'card wf-settings', 'aria-labelledby': 'wf-settings-title' },
        h(
          'h2',
          { id: 'wf-settings-title', class: 'card-title' },
          node ? tw('wf.settingsOf', { id: node.id }) : tw('wf.settings'),
        ),
        node
          ? h(NodeForm, {
              key: node.id,
              node,
              nodes: draft.nodes,
              info: types?.find((t) => t.type === node.type),
              problems: problems[node.id] ?? [],
              onChange: (patch: Partial<WfNode>) => updateNode(node.id, patch),
              onRename: (to: string) => renameNode(node.id, to),
              onRemove: () => removeNode(node.id),
              onConnectFrom: () => setConnectFrom(node.id),
            })
          : h('p', { class: 'muted' }, tw('wf.pick')),
      ),
    ),
    h(
      'div',
      { class: 'wf-lower' },
      h(WorkflowForm, { draft, onChange: change }),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'wf-run-title' },
        h('h2', { id: 'wf-run-title', class: 'card-title' }, status === 'draft' ? tw('wf.testRun') : tw('wf.run')),
        h(
          Field,
          { label: tw('wf.testData') },
          h('textarea', {
            rows: 3,
            class: 'mono',
            value: testData,
            onInput: (e: Event) => setTestData((e.target as HTMLTextAreaElement).value),
          }),
        ),
        status === 'draft' ? h('p', { class: 'muted hint' }, tw('wf.testHint')) : null,
        h(
          'button',
          { type: 'button', class: 'primary', onClick: onRun, disabled: busy || draft.nodes.length === 0 },
          status === 'draft' ? tw('wf.testRun') : tw('wf.run'),
        ),
      ),
    ),
  );
}

function Problems({ checked }: { checked: Checked }) {
  const count = checked.general.length + Object.values(checked.byNode).reduce((s, l) => s + l.length, 0);
  return h(
    'div',
    { class: `card wf-problems ${checked.valid ? 'ok' : 'bad'}`, role: checked.valid ? 'status' : 'alert' },
    h('p', {}, h('strong', {}, checked.valid ? tw('wf.valid') : tw('wf.problems', { n: count }))),
    checked.general.length
      ? h(
          'ul',
          { 'aria-label': tw('wf.general') },
          checked.general.map((e) => h('li', { key: e }, e)),
        )
      : null,
    Object.keys(checked.byNode).length
      ? h(
          'ul',
          {},
          Object.entries(checked.byNode).flatMap(([, list]) => list.map((e) => h('li', { key: e.message }, e.message))),
        )
      : null,
    checked.warnings.length
      ? h(
          'details',
          {},
          h('summary', {}, `${tw('wf.warnings')} (${checked.warnings.length})`),
          h(
            'ul',
            {},
            checked.warnings.map((w) => h('li', { key: w }, w)),
          ),
        )
      : null,
  );
}

function Palette({ kinds, onAdd }: { kinds: [string, NodeKind][]; onAdd: (type: string) => void }) {
  return h(
    'section',
    { class: 'card wf-palette', 'aria-labelledby': 'wf-palette-title' },
    h('h2', { id: 'wf-palette-title', class: 'card-title' }, tw('wf.palette')),
    h('p', { class: 'muted hint', id: 'wf-palette-hint' }, tw('wf.paletteHint')),
    GROUPS.filter((g) => kinds.some(([, k]) => k.group === g)).map((g) =>
      h(
        'div',
        { key: g, class: 'wf-group', role: 'group', 'aria-label': tw(`wf.group.${g}` as WfKey) },
        h('h3', { 'aria-hidden': 'true' }, tw(`wf.group.${g}` as WfKey)),
        kinds
          .filter(([, k]) => k.group === g)
          .map(([type, k]) =>
            h(
              'button',
              {
                key: type,
                type: 'button',
                class: 'small wf-kind',
                draggable: true,
                'aria-label': `Add ${k.label}`,
                onClick: () => onAdd(type),
                onDragStart: (e: DragEvent) => {
                  e.dataTransfer?.setData('application/x-docuvault-node', type);
                  if (e.dataTransfer) e.dataTransfer.effectAllowed = 'copy';
                },
              },
              k.label,
            ),
          ),
      ),
    ),
  );
}

function NodeForm({
  node,
  nodes,
  info,
  problems,
  onChange,
  onRename,
  onRemove,
  onConnectFrom,
}: {
  node: WfNode;
  nodes: WfNode[];
  /** The service's word on the node's type, once it answered. */
  info: NodeTypeInfo | undefined;
  problems: Issue[];
  onChange: (patch: Partial<WfNode>) => void;
  onRename: (to: string) => void;
  onRemove: () => void;
  onConnectFrom: () => void;
}) {
  const [idText, setIdText] = useState(node.id);
  const taken = idText !== node.id && nodes.some((n) => n.id === idText);
  const kind = kindOf(node.type, info);
  const config = node.config ?? {};
  const setConfig = (key: string, value: unknown) => {
    const next = { ...config };
    if (value === undefined || value === '') delete next[key];
    else next[key] = value;
    onChange({ config: next });
  };
  const others = nodes.filter((n) => n.id !== node.id);
  const after = node.depends_on ?? [];
  // Each issue is shown at its field when the form has one; the others above the form.
  const shown = new Set([
    'id',
    'depends_on',
    'run_if',
    'timeout_seconds',
    ...(kind?.fields ?? []).map((f) => `config.${f.key}`),
  ]);
  const at = (field: string) => problems.filter((i) => i.field === field).map((i) => i.message);
  const elsewhere = problems.filter((i) => !i.field || !shown.has(i.field));
  const issueId = (field: string) => `wf-issue-${node.id}-${field}`;
  const invalid = (field: string) =>
    at(field).length ? { 'aria-invalid': 'true', 'aria-describedby': issueId(field) } : {};
  const issueLine = (field: string) =>
    at(field).length ? h('p', { class: 'error field-issue', id: issueId(field) }, at(field).join(' ')) : null;
  return h(
    'div',
    { class: 'wf-form' },
    h('p', { class: 'muted' }, kindLabel(node.type)),
    elsewhere.length
      ? h(
          'div',
          { role: 'alert', 'aria-label': tw('wf.nodeIssues', { id: node.id }) },
          h(
            'ul',
            { class: 'error' },
            elsewhere.map((p) => h('li', { key: p.message }, p.message)),
          ),
        )
      : null,
    h(
      Field,
      { label: tw('wf.field.id') },
      h('input', {
        value: idText,
        required: true,
        pattern: '[A-Za-z0-9_\\-]+',
        'aria-invalid': taken ? 'true' : undefined,
        ...invalid('id'),
        onInput: (e: Event) => setIdText((e.target as HTMLInputElement).value.trim()),
        onChange: () => {
          if (idText && !taken && idText !== node.id) onRename(idText);
        },
      }),
    ),
    taken ? h('p', { class: 'error' }, tw('wf.field.idTaken', { id: idText })) : null,
    issueLine('id'),
    (kind?.fields ?? []).map((f) =>
      h(ConfigField, {
        key: `${node.id}:${f.key}`,
        field: f,
        value: config[f.key],
        issues: at(`config.${f.key}`),
        issueId: issueId(`config.${f.key}`),
        onChange: (v: unknown) => setConfig(f.key, v),
      }),
    ),
    h(
      'fieldset',
      { class: 'wf-after' },
      h('legend', {}, tw('wf.field.after')),
      others.length === 0
        ? h('p', { class: 'muted' }, tw('wf.field.afterNone'))
        : others.map((o) =>
            h(
              'label',
              { key: o.id, class: 'inline' },
              h('input', {
                type: 'checkbox',
                checked: after.includes(o.id),
                onChange: (e: Event) =>
                  onChange({
                    depends_on: (e.target as HTMLInputElement).checked
                      ? [...after, o.id]
                      : after.filter((d) => d !== o.id),
                  }),
              }),
              h('span', {}, o.id),
            ),
          ),
      issueLine('depends_on'),
    ),
    after.length > 1 || node.trigger_rule
      ? h(
          Field,
          { label: tw('wf.field.rule') },
          h(
            'select',
            {
              value: node.trigger_rule ?? 'all_success',
              onChange: (e: Event) =>
                onChange({ trigger_rule: (e.target as HTMLSelectElement).value as WfNode['trigger_rule'] }),
            },
            RULES.map((r) => h('option', { key: r, value: r }, tw(`wf.rule.${r}` as WfKey))),
          ),
        )
      : null,
    h(
      Field,
      { label: tw('wf.field.runIf') },
      h('input', {
        class: 'mono',
        value: node.run_if ?? '',
        ...invalid('run_if'),
        onChange: (e: Event) => onChange({ run_if: (e.target as HTMLInputElement).value || undefined }),
      }),
    ),
    issueLine('run_if'),
    h(
      Field,
      { label: tw('wf.field.timeout') },
      h('input', {
        type: 'number',
        min: 1,
        value: node.timeout_seconds ?? '',
        ...invalid('timeout_seconds'),
        onChange: (e: Event) => {
          const v = Number((e.target as HTMLInputElement).value);
          onChange({ timeout_seconds: v > 0 ? v : undefined });
        },
      }),
    ),
    issueLine('timeout_seconds'),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onClick: onConnectFrom }, tw('wf.connectFrom')),
      h('button', { type: 'button', class: 'danger', onClick: onRemove }, tw('wf.removeNode')),
    ),
  );
}

function ConfigField({
  field,
  value,
  issues,
  issueId,
  onChange,
}: {
  field: NodeField;
  value: unknown;
  /** The API's issues about this field, shown under it. */
  issues: string[];
  issueId: string;
  onChange: (v: unknown) => void;
}) {
  const asText =
    field.kind === 'json'
      ? value === undefined
        ? ''
        : JSON.stringify(value, null, 2)
      : field.kind === 'list'
        ? Array.isArray(value)
          ? value.join(', ')
          : String(value ?? '')
        : value === undefined || value === null
          ? ''
          : typeof value === 'object'
            ? JSON.stringify(value)
            : String(value);
  const [text, setText] = useState(asText);
  const [bad, setBad] = useState('');
  const label = `${field.label}${field.required ? ` (${tw('wf.field.required')})` : ''}`;
  const common = {
    'aria-invalid': issues.length || bad ? 'true' : undefined,
    'aria-describedby': issues.length ? issueId : undefined,
    placeholder: field.placeholder,
  };
  const commit = (raw: string) => {
    setText(raw);
    if (field.kind === 'json') {
      if (raw.trim() === '') {
        setBad('');
        onChange(undefined);
        return;
      }
      try {
        onChange(JSON.parse(raw));
        setBad('');
      } catch (e) {
        setBad(tw('wf.badJson', { error: (e as Error).message }));
      }
    } else if (field.kind === 'list')
      onChange(
        raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      );
    else if (field.kind === 'number') onChange(raw === '' ? undefined : Number(raw));
    else onChange(raw);
  };
  const input = (e: Event) => commit((e.target as HTMLInputElement).value);
  let control: ComponentChildren;
  if (field.kind === 'select')
    control = h(
      'select',
      { ...common, value: text, onChange: input },
      h('option', { value: '' }, '—'),
      (field.options ?? []).map((o) => h('option', { key: o, value: o }, o)),
    );
  else if (field.kind === 'json' || field.kind === 'textarea' || field.kind === 'expr')
    control = h('textarea', {
      ...common,
      class: field.kind === 'textarea' ? undefined : 'mono',
      rows: field.kind === 'json' ? 4 : 2,
      value: text,
      onInput: input,
    });
  else
    control = h('input', { ...common, type: field.kind === 'number' ? 'number' : 'text', value: text, onInput: input });
  return h(
    'div',
    {},
    h(Field, { label: field.kind === 'list' ? `${label}, ${tw('wf.list')}` : label }, control),
    field.hint ? h('p', { class: 'muted hint' }, field.hint) : null,
    issues.length ? h('p', { class: 'error field-issue', id: issueId }, issues.join(' ')) : null,
    bad ? h('p', { class: 'error' }, bad) : null,
  );
}

function WorkflowForm({ draft, onChange }: { draft: Draft; onChange: (d: Draft) => void }) {
  const cond = draft.trigger.conditions ?? {};
  const setCond = (key: string, value: unknown) =>
    onChange({ ...draft, trigger: { ...draft.trigger, conditions: { ...cond, [key]: value } } });
  const type = draft.trigger.type;
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'wf-trigger-title' },
    h('h2', { id: 'wf-trigger-title', class: 'card-title' }, tw('wf.trigger')),
    h(
      Field,
      { label: tw('wf.name') },
      h('input', {
        value: draft.name,
        required: true,
        onInput: (e: Event) => onChange({ ...draft, name: (e.target as HTMLInputElement).value }),
      }),
    ),
    h(
      Field,
      { label: tw('wf.description') },
      h('input', {
        value: draft.description,
        onInput: (e: Event) => onChange({ ...draft, description: (e.target as HTMLInputElement).value }),
      }),
    ),
    h(
      Field,
      { label: tw('wf.trigger.type') },
      h(
        'select',
        {
          value: type,
          onChange: (e: Event) =>
            onChange({ ...draft, trigger: { type: (e.target as HTMLSelectElement).value, conditions: {} } }),
        },
        TRIGGERS.map((tr) => h('option', { key: tr, value: tr }, word('wf.trigger', tr))),
      ),
    ),
    type === 'schedule'
      ? [
          h(
            Field,
            { key: 'cron', label: tw('wf.trigger.cron') },
            h('input', {
              class: 'mono',
              value: String(cond['cron_expression'] ?? ''),
              placeholder: '0 9 * * 1',
              onInput: (e: Event) => setCond('cron_expression', (e.target as HTMLInputElement).value),
            }),
          ),
          h(
            Field,
            { key: 'tz', label: tw('wf.trigger.timezone') },
            h('input', {
              value: String(cond['timezone'] ?? ''),
              placeholder: 'UTC',
              onInput: (e: Event) => setCond('timezone', (e.target as HTMLInputElement).value || undefined),
            }),
          ),
        ]
      : null,
    type === 'webhook'
      ? h(
          Field,
          { label: tw('wf.trigger.secret') },
          h('input', {
            type: 'password',
            autocomplete: 'off',
            minLength: 8,
            value: String(cond['secret'] ?? ''),
            onInput: (e: Event) => setCond('secret', (e.target as HTMLInputElement).value),
          }),
        )
      : null,
    type === 'document_update'
      ? h(
          Field,
          { label: `${tw('wf.trigger.fields')}, ${tw('wf.list')}` },
          h('input', {
            value: Array.isArray(cond['fields']) ? (cond['fields'] as string[]).join(', ') : '',
            onInput: (e: Event) =>
              setCond(
                'fields',
                (e.target as HTMLInputElement).value
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
              ),
          }),
        )
      : null,
    h(
      Field,
      { label: tw('wf.onFailure') },
      h(
        'select',
        {
          value: draft.onFailure,
          onChange: (e: Event) =>
            onChange({ ...draft, onFailure: (e.target as HTMLSelectElement).value as Draft['onFailure'] }),
        },
        (['fail', 'pause', 'continue'] as const).map((o) => h('option', { key: o, value: o }, tw(`wf.onFailure.${o}`))),
      ),
    ),
  );
}
