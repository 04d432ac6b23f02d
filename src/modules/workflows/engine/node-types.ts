/**
 * The catalogue of node types the engine knows: each type's config fields (the keys its handler
 * reads, typed for an editor's form), which of them hold expressions (checked at validation), and
 * whether it can wait or call out (a timeout is expected). `required`, `cel` and `jsonata` are
 * derived from the fields, so validation and the editor's forms read one table.
 */

/** One config key of a node type, described as an editor builds its form field (JSON Schema's vocabulary). */
export interface NodeField {
  key: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'any';
  /** How a string is written: a CEL condition, a JSONata expression, several lines, a cron line, a URL… */
  format?: 'cel' | 'jsonata' | 'multiline' | 'cron' | 'uri' | 'date-time' | 'timezone' | 'template';
  /** The type of an array's items. */
  items?: 'string';
  required: boolean;
  enum?: string[];
  default?: unknown;
  label: string;
  description?: string;
}

export type NodeGroup = 'logic' | 'data' | 'ai' | 'human' | 'out';

export interface NodeTypeSpec {
  label: string;
  group: NodeGroup;
  fields: readonly NodeField[];
  /** Config keys that must be set (the fields marked required). */
  required: readonly string[];
  /** Config keys holding a CEL condition. */
  cel: readonly string[];
  /** Config keys holding a JSONata expression. */
  jsonata: readonly string[];
  /** Can wait or call out: validation warns when it has no timeout. */
  waits?: boolean;
  /** Default trigger rule when the node sets none. */
  defaultRule?: 'none_failed_min_one_success';
}

type FieldInput = Omit<NodeField, 'required'> & { required?: boolean };
const field = (f: FieldInput): NodeField => ({ ...f, required: f.required === true });
const str = (key: string, label: string, more: Partial<FieldInput> = {}) =>
  field({ key, type: 'string', label, ...more });
const json = (key: string, label: string, more: Partial<FieldInput> = {}) =>
  field({ key, type: 'object', label, ...more });
const list = (key: string, label: string, more: Partial<FieldInput> = {}) =>
  field({ key, type: 'array', items: 'string', label, ...more });
const items = field({
  key: 'items',
  type: 'any',
  format: 'template',
  required: true,
  label: 'Items',
  description: 'A list, or a {{…}} template that resolves to one (e.g. {{trigger.documents}}).',
});
const documentId = str('document_id', 'Document id', {
  format: 'template',
  required: true,
  description: 'A document id or a template such as {{trigger.document_id}}.',
});
// An approval must name whom it waits for; a review or an assignment may leave the value for the
// handler to refuse at run time (validation has only ever required the type of those).
const assignee = (valueRequired: boolean) => [
  str('assignee_type', 'Assigned to a', { required: true, enum: ['role', 'user', 'workspace'] }),
  str('assignee_value', 'Role, user id or workspace id', { required: valueRequired }),
];
const humanExtras = [
  str('description', 'Description', { format: 'multiline' }),
  json('data', 'Data shown to the assignee'),
  list('editable_fields', 'Fields the assignee may change', {
    description: 'Keys of the data; the task offers these to modify.',
  }),
  json('context', 'Context shown with the task'),
  str('on_timeout', 'When nobody answers in time', { enum: ['fail', 'approve', 'reject'], default: 'fail' }),
  str('escalate_to', 'Escalate to (role)'),
  field({
    key: 'escalate_after_hours',
    type: 'number',
    label: 'Escalate after (hours)',
    description: 'Default: ¾ of the timeout.',
  }),
];
const human = (label: string, approval: boolean) =>
  type(label, 'human', [...assignee(approval), str('title', 'Task title', { required: approval }), ...humanExtras], {
    waits: true,
  });

function type(
  label: string,
  group: NodeGroup,
  fields: NodeField[],
  more: Pick<NodeTypeSpec, 'waits' | 'defaultRule'> = {},
): NodeTypeSpec {
  const keys = (keep: (f: NodeField) => boolean) => fields.filter(keep).map((f) => f.key);
  return {
    label,
    group,
    fields,
    required: keys((f) => f.required),
    cel: keys((f) => f.format === 'cel'),
    jsonata: keys((f) => f.format === 'jsonata'),
    ...more,
  };
}

export const NODE_TYPES: Readonly<Record<string, NodeTypeSpec>> = {
  condition: type('Condition', 'logic', [str('expression', 'Condition (CEL)', { format: 'cel', required: true })]),
  switch: type('Switch', 'logic', [
    str('expression', 'Value (CEL)', { format: 'cel', required: true }),
    json('cases', 'Cases', { required: true, description: 'Value → step id to run; "default" for the rest.' }),
  ]),
  parallel: type('Parallel', 'logic', []),
  join: type('Join', 'logic', [], { defaultRule: 'none_failed_min_one_success' }),
  loop: type(
    'Loop',
    'logic',
    [
      items,
      json('node', 'Step run for each item', { required: true, description: 'A node without id: {type, config}.' }),
      field({ key: 'max_iterations', type: 'integer', label: 'At most (items)', default: 1000 }),
      field({ key: 'concurrency', type: 'integer', label: 'Items at a time', default: 1 }),
    ],
    { waits: true },
  ),
  delay: type(
    'Delay',
    'logic',
    [
      field({ key: 'seconds', type: 'number', label: 'Seconds', description: 'Or a moment in "until".' }),
      str('until', 'Until', { format: 'date-time' }),
    ],
    { waits: true },
  ),
  schedule: type(
    'Wait for schedule',
    'logic',
    [
      str('cron_expression', 'Cron expression', { format: 'cron', required: true }),
      str('timezone', 'Time zone', { format: 'timezone', default: 'UTC' }),
    ],
    { waits: true },
  ),
  transform: type('Transform', 'data', [
    str('expression', 'Expression (JSONata)', { format: 'jsonata', required: true }),
  ]),
  filter: type('Filter', 'data', [
    items,
    str('condition', 'Keep an item when (CEL)', { format: 'cel', required: true }),
  ]),
  aggregate: type('Aggregate', 'data', [
    items,
    str('expression', 'Expression (JSONata)', { format: 'jsonata', required: true }),
  ]),
  set_variable: type('Set variable', 'data', [
    str('name', 'Variable name', { required: true }),
    field({ key: 'value', type: 'any', label: 'Value', required: true }),
  ]),
  http_request: type(
    'HTTP request',
    'out',
    [
      str('method', 'Method', { required: true, enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], default: 'GET' }),
      str('url', 'URL', { format: 'uri', required: true }),
      json('headers', 'Headers'),
      field({ key: 'body', type: 'any', label: 'Body', description: 'A string, or JSON sent as application/json.' }),
    ],
    { waits: true },
  ),
  notification: type(
    'Notification',
    'out',
    [
      list('to', 'To (e-mail addresses)', { required: true }),
      str('subject', 'Subject', { required: true }),
      str('message', 'Message', { format: 'multiline', required: true }),
    ],
    { waits: true },
  ),
  end: type('End', 'out', [
    str('status', 'Ends the run as', { enum: ['completed', 'failed'], default: 'completed' }),
    field({ key: 'output', type: 'any', label: 'Output' }),
  ]),
  ai_summarize: type(
    'AI summary',
    'ai',
    [documentId, field({ key: 'max_length', type: 'integer', label: 'Longest summary (words)' })],
    { waits: true },
  ),
  ai_analyze: type(
    'AI analysis',
    'ai',
    [documentId, str('analysis_type', 'Kind of analysis', { default: 'general' })],
    {
      waits: true,
    },
  ),
  ai_extract: type(
    'AI extraction',
    'ai',
    [documentId, json('extraction_schema', 'Fields to extract (JSON Schema)', { required: true })],
    { waits: true },
  ),
  ai_classify: type('AI classification', 'ai', [documentId, list('categories', 'Categories', { required: true })], {
    waits: true,
  }),
  ai_qa: type('AI questions', 'ai', [documentId, list('questions', 'Questions', { required: true })], { waits: true }),
  ai_custom: type(
    'AI prompt',
    'ai',
    [
      documentId,
      str('prompt', 'Prompt', { format: 'multiline', required: true }),
      json('output_schema', 'Answer schema (JSON Schema)'),
    ],
    { waits: true },
  ),
  human_approval: human('Approval', true),
  human_review: human('Review', false),
  human_assignment: human('Assignment', false),
  mcp_tool: type(
    'MCP tool',
    'out',
    [
      str('server_id', 'Server id', { required: true }),
      str('tool_name', 'Tool', { required: true }),
      json('parameters', 'Parameters'),
    ],
    { waits: true },
  ),
};
