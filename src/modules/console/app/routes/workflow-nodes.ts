import { tw } from './workflows-i18n.ts';

// The node types the editor offers, each with its own form. The forms are built from the
// service's typed catalogue (`GET /dag/node-types`: each type's fields with type, format, required,
// enum, default); the console's own table below adds its words (labels, placeholders, hints) for
// the keys it knows, and stands in for the catalogue until it answers or if it fails.

export type FieldKind = 'text' | 'expr' | 'number' | 'select' | 'list' | 'json' | 'textarea';

export interface NodeField {
  key: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  options?: string[];
  placeholder?: string;
  hint?: string;
}

export type NodeGroup = 'logic' | 'data' | 'ai' | 'human' | 'out' | 'other';

export interface NodeKind {
  label: string;
  group: NodeGroup;
  fields: NodeField[];
}

/** A config field as the service's catalogue types it. */
export interface CatalogueField {
  key: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'any';
  format?: string;
  items?: string;
  required: boolean;
  enum?: string[];
  default?: unknown;
  label: string;
  description?: string;
}

/** A node type as the service's catalogue lists it (the part the editor reads). */
export interface NodeTypeInfo {
  type: string;
  required: string[];
  label?: string;
  group?: Exclude<NodeGroup, 'other'>;
  fields?: CatalogueField[];
}

/** The widget a typed field is edited with. */
function kindOfField(f: CatalogueField): FieldKind {
  if (f.enum?.length) return 'select';
  if (f.format === 'cel' || f.format === 'jsonata' || f.format === 'template') return 'expr';
  if (f.format === 'multiline') return 'textarea';
  if (f.type === 'array' && f.items === 'string') return 'list';
  if (f.type === 'number' || f.type === 'integer') return 'number';
  if (f.type === 'string') return 'text';
  return 'json';
}

/** A form field from the catalogue's typed field, in the console's words where it has them. */
function fieldOf(f: CatalogueField, own: NodeField | undefined): NodeField {
  const defaultText = f.default === undefined ? undefined : tw('wf.field.default', { value: String(f.default) });
  const hint = own?.hint ?? f.description;
  return {
    key: f.key,
    label: own?.label ?? f.label,
    kind: kindOfField(f),
    required: f.required,
    ...(f.enum ? { options: f.enum } : {}),
    ...(own?.placeholder ? { placeholder: own.placeholder } : {}),
    ...(hint || defaultText ? { hint: [hint, defaultText].filter(Boolean).join(' · ') } : {}),
  };
}

const doc: NodeField = {
  key: 'document_id',
  label: 'Document id (or an expression such as {{trigger.document_id}})',
  kind: 'text',
  required: true,
  placeholder: '{{trigger.document_id}}',
};
const assignee: NodeField[] = [
  {
    key: 'assignee_type',
    label: 'Assigned to a',
    kind: 'select',
    required: true,
    options: ['role', 'user', 'workspace'],
  },
  { key: 'assignee_value', label: 'Role, user id or workspace id', kind: 'text', required: true },
];
const humanExtras: NodeField[] = [
  { key: 'description', label: 'Description', kind: 'textarea' },
  { key: 'data', label: 'Data shown to the assignee', kind: 'json', placeholder: '{"amount": 120}' },
  {
    key: 'editable_fields',
    label: 'Fields the assignee may change',
    kind: 'list',
    hint: 'keys of the data; the task’s Modify form offers these',
  },
  { key: 'on_timeout', label: 'When nobody answers in time', kind: 'select', options: ['fail', 'approve', 'reject'] },
  { key: 'escalate_to', label: 'Escalate to (role)', kind: 'text' },
];

export const NODE_KINDS: Record<string, NodeKind> = {
  condition: {
    label: 'Condition',
    group: 'logic',
    fields: [
      {
        key: 'expression',
        label: 'Condition (CEL)',
        kind: 'expr',
        required: true,
        placeholder: 'trigger.amount > 100',
      },
    ],
  },
  switch: {
    label: 'Switch',
    group: 'logic',
    fields: [
      { key: 'expression', label: 'Value (CEL)', kind: 'expr', required: true },
      {
        key: 'cases',
        label: 'Cases',
        kind: 'json',
        required: true,
        placeholder: '{"invoice": "pay", "default": "end"}',
      },
    ],
  },
  parallel: { label: 'Parallel', group: 'logic', fields: [] },
  join: { label: 'Join', group: 'logic', fields: [] },
  loop: {
    label: 'Loop',
    group: 'logic',
    fields: [
      { key: 'items', label: 'Items (expression)', kind: 'expr', required: true, placeholder: 'trigger.documents' },
      {
        key: 'node',
        label: 'Step run for each item',
        kind: 'json',
        required: true,
        placeholder: '{"type": "transform", "config": {"expression": "$item"}}',
      },
    ],
  },
  delay: {
    label: 'Delay',
    group: 'logic',
    fields: [
      { key: 'seconds', label: 'Seconds', kind: 'number', hint: 'or a moment in Until' },
      { key: 'until', label: 'Until (ISO date-time)', kind: 'text' },
    ],
  },
  schedule: {
    label: 'Wait for schedule',
    group: 'logic',
    fields: [
      { key: 'cron_expression', label: 'Cron expression', kind: 'text', required: true, placeholder: '0 9 * * 1' },
      { key: 'timezone', label: 'Time zone', kind: 'text', placeholder: 'UTC' },
    ],
  },
  transform: {
    label: 'Transform',
    group: 'data',
    fields: [
      { key: 'expression', label: 'Expression (JSONata)', kind: 'expr', required: true, placeholder: '$trigger' },
    ],
  },
  filter: {
    label: 'Filter',
    group: 'data',
    fields: [
      { key: 'items', label: 'Items (expression)', kind: 'expr', required: true },
      { key: 'condition', label: 'Keep an item when (CEL)', kind: 'expr', required: true },
    ],
  },
  aggregate: {
    label: 'Aggregate',
    group: 'data',
    fields: [
      { key: 'items', label: 'Items (expression)', kind: 'expr', required: true },
      { key: 'expression', label: 'Expression (JSONata)', kind: 'expr', required: true },
    ],
  },
  set_variable: {
    label: 'Set variable',
    group: 'data',
    fields: [
      { key: 'name', label: 'Variable name', kind: 'text', required: true },
      { key: 'value', label: 'Value', kind: 'text', required: true },
    ],
  },
  ai_summarize: {
    label: 'AI summary',
    group: 'ai',
    fields: [doc, { key: 'max_length', label: 'Longest summary (words)', kind: 'number' }],
  },
  ai_analyze: {
    label: 'AI analysis',
    group: 'ai',
    fields: [doc, { key: 'analysis_type', label: 'Kind of analysis', kind: 'text', placeholder: 'general' }],
  },
  ai_extract: {
    label: 'AI extraction',
    group: 'ai',
    fields: [doc, { key: 'extraction_schema', label: 'Fields to extract (JSON schema)', kind: 'json', required: true }],
  },
  ai_classify: {
    label: 'AI classification',
    group: 'ai',
    fields: [doc, { key: 'categories', label: 'Categories', kind: 'list', required: true }],
  },
  ai_qa: {
    label: 'AI questions',
    group: 'ai',
    fields: [doc, { key: 'questions', label: 'Questions', kind: 'list', required: true }],
  },
  ai_custom: {
    label: 'AI prompt',
    group: 'ai',
    fields: [
      doc,
      { key: 'prompt', label: 'Prompt', kind: 'textarea', required: true },
      { key: 'output_schema', label: 'Answer schema (JSON, optional)', kind: 'json' },
    ],
  },
  human_approval: {
    label: 'Approval',
    group: 'human',
    fields: [...assignee, { key: 'title', label: 'Task title', kind: 'text', required: true }, ...humanExtras],
  },
  human_review: {
    label: 'Review',
    group: 'human',
    fields: [...assignee, { key: 'title', label: 'Task title', kind: 'text' }, ...humanExtras],
  },
  human_assignment: {
    label: 'Assignment',
    group: 'human',
    fields: [...assignee, { key: 'title', label: 'Task title', kind: 'text' }, ...humanExtras],
  },
  http_request: {
    label: 'HTTP request',
    group: 'out',
    fields: [
      {
        key: 'method',
        label: 'Method',
        kind: 'select',
        required: true,
        options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      },
      { key: 'url', label: 'URL', kind: 'text', required: true, placeholder: 'https://' },
      { key: 'headers', label: 'Headers', kind: 'json' },
      { key: 'body', label: 'Body', kind: 'json' },
    ],
  },
  notification: {
    label: 'Notification',
    group: 'out',
    fields: [
      { key: 'to', label: 'To (e-mail addresses)', kind: 'list', required: true },
      { key: 'subject', label: 'Subject', kind: 'text', required: true },
      { key: 'message', label: 'Message', kind: 'textarea', required: true },
    ],
  },
  mcp_tool: {
    label: 'MCP tool',
    group: 'out',
    fields: [
      { key: 'server_id', label: 'Server id', kind: 'text', required: true },
      { key: 'tool_name', label: 'Tool', kind: 'text', required: true },
      { key: 'parameters', label: 'Parameters', kind: 'json' },
    ],
  },
  end: {
    label: 'End',
    group: 'out',
    fields: [
      { key: 'status', label: 'Ends the run as', kind: 'select', options: ['completed', 'failed'] },
      { key: 'output', label: 'Output (JSON)', kind: 'json' },
    ],
  },
};

/**
 * The form of a node type: the catalogue's typed fields when the service gives them (in the
 * console's words for the keys it knows); else the console's own, with every key the service
 * requires marked required, and for a type it has no form for, one field for each required key.
 */
export function kindOf(type: string, info?: NodeTypeInfo): NodeKind | undefined {
  const own = NODE_KINDS[type];
  if (!info) return own;
  if (info.fields)
    return {
      label: own?.label ?? info.label ?? kindLabel(type),
      group: info.group ?? own?.group ?? 'other',
      fields: info.fields.map((f) =>
        fieldOf(
          f,
          own?.fields.find((o) => o.key === f.key),
        ),
      ),
    };
  if (!own)
    return {
      label: kindLabel(type),
      group: 'other',
      fields: info.required.map((key) => ({ key, label: key, kind: 'text', required: true })),
    };
  return { ...own, fields: own.fields.map((f) => ({ ...f, required: f.required || info.required.includes(f.key) })) };
}

/**
 * The palette's types: those of the service's catalogue when it answered (the ones the console
 * knows in its own order, then the others), else the console's own list.
 */
export function paletteOf(catalogue: readonly NodeTypeInfo[] | null): [string, NodeKind][] {
  if (!catalogue) return Object.entries(NODE_KINDS);
  const listed = new Map(catalogue.map((info) => [info.type, info]));
  const known = Object.keys(NODE_KINDS).filter((type) => listed.has(type));
  const others = catalogue.map((info) => info.type).filter((type) => !NODE_KINDS[type]);
  return [...known, ...others].map((type) => [type, kindOf(type, listed.get(type)) as NodeKind]);
}

export function kindLabel(type: string): string {
  return NODE_KINDS[type]?.label ?? type.replace(/_/g, ' ');
}

/** One node of a definition as the API answers and takes it. */
export interface WfNode {
  id: string;
  type: string;
  config?: Record<string, unknown>;
  depends_on?: string[];
  run_if?: string;
  trigger_rule?: 'all_success' | 'all_done' | 'one_success' | 'one_failed' | 'none_failed_min_one_success';
  timeout_seconds?: number;
  timeout_hours?: number;
  retry?: { max_attempts: number; backoff_seconds?: number };
  position?: { x: number; y: number };
}
