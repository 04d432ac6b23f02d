/**
 * The catalogue of node types the engine knows: required config keys, which expressions each
 * carries (checked at validation), and whether it can wait or call out (a timeout is expected).
 * Human, AI and MCP node types are listed so definitions validate; their handlers are issue 15.
 */
export interface NodeTypeSpec {
  required: readonly string[];
  /** Config keys holding a CEL condition. */
  cel?: readonly string[];
  /** Config keys holding a JSONata expression. */
  jsonata?: readonly string[];
  /** Can wait or call out: validation warns when it has no timeout. */
  waits?: boolean;
  /** Default trigger rule when the node sets none. */
  defaultRule?: 'none_failed_min_one_success';
}

export const NODE_TYPES: Readonly<Record<string, NodeTypeSpec>> = {
  condition: { required: ['expression'], cel: ['expression'] },
  switch: { required: ['expression', 'cases'], cel: ['expression'] },
  parallel: { required: [] },
  join: { required: [], defaultRule: 'none_failed_min_one_success' },
  loop: { required: ['items', 'node'], waits: true },
  delay: { required: [], waits: true },
  schedule: { required: ['cron_expression'], waits: true },
  transform: { required: ['expression'], jsonata: ['expression'] },
  filter: { required: ['items', 'condition'], cel: ['condition'] },
  aggregate: { required: ['items', 'expression'], jsonata: ['expression'] },
  set_variable: { required: ['name', 'value'] },
  http_request: { required: ['method', 'url'], waits: true },
  notification: { required: ['to', 'subject', 'message'], waits: true },
  end: { required: [] },
  ai_summarize: { required: ['document_id'], waits: true },
  ai_analyze: { required: ['document_id'], waits: true },
  ai_extract: { required: ['document_id', 'extraction_schema'], waits: true },
  ai_classify: { required: ['document_id', 'categories'], waits: true },
  ai_qa: { required: ['document_id', 'questions'], waits: true },
  ai_custom: { required: ['document_id', 'prompt'], waits: true },
  human_approval: { required: ['assignee_type', 'assignee_value', 'title'], waits: true },
  human_review: { required: ['assignee_type'], waits: true },
  human_assignment: { required: ['assignee_type'], waits: true },
  mcp_tool: { required: ['server_id', 'tool_name'], waits: true },
};
