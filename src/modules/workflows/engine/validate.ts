import { cronError } from './cron.ts';
import { celParseError, jsonataParseError, MAX_EXPRESSION_TEXT } from './expressions.ts';
import { NODE_TYPES } from './node-types.ts';
import {
  TRIGGER_RULES,
  type ValidationIssue,
  type ValidationResult,
  type WorkflowDefinition,
  type WorkflowNode,
} from './types.ts';

/** Collects the issues of one validation; `errors` and `warnings` are their messages, as the contract answers them. */
class Issues {
  readonly list: ValidationIssue[] = [];
  error(code: string, message: string, at: { node_id?: string; field?: string } = {}): void {
    this.list.push({ severity: 'error', code, message, ...at });
  }
  warning(code: string, message: string, at: { node_id?: string; field?: string } = {}): void {
    this.list.push({ severity: 'warning', code, message, ...at });
  }
  result(): ValidationResult {
    const of = (severity: ValidationIssue['severity']) =>
      this.list.filter((i) => i.severity === severity).map((i) => i.message);
    return { errors: of('error'), warnings: of('warning'), issues: this.list };
  }
}

/**
 * Checks a definition as contract §10 lists it: errors make it unrunnable (no nodes, duplicate
 * id, unknown type, unknown dependency, a cycle, missing config, an unparsable expression);
 * warnings flag nodes that can wait or call out without a timeout. Each is also an issue with a code,
 * the node and the field it is about (docs/api-decisions.md §10 "Structured issues"). Pure.
 */
export function validateWorkflow(definition: Pick<WorkflowDefinition, 'nodes' | 'trigger'>): ValidationResult {
  const issues = new Issues();
  const nodes = Array.isArray(definition.nodes) ? definition.nodes : [];
  if (nodes.length === 0) issues.error('no_nodes', 'The workflow has no nodes', { field: 'nodes' });

  const ids = new Set<string>();
  for (const node of nodes) {
    if (ids.has(node.id))
      issues.error('duplicate_node_id', `Duplicate node id "${node.id}"`, { node_id: node.id, field: 'id' });
    ids.add(node.id);
  }
  for (const node of nodes) {
    const at = (field: string) => ({ node_id: node.id, field });
    for (const dep of node.depends_on ?? []) {
      if (!ids.has(dep))
        issues.error('unknown_dependency', `Node "${node.id}" depends on unknown node "${dep}"`, at('depends_on'));
    }
    if (node.trigger_rule !== undefined && !(TRIGGER_RULES as readonly string[]).includes(node.trigger_rule)) {
      issues.error(
        'unknown_trigger_rule',
        `Node "${node.id}" has unknown trigger_rule "${node.trigger_rule}"`,
        at('trigger_rule'),
      );
    }
    if (node.run_if !== undefined) {
      const problem = celParseError(node.run_if);
      if (problem)
        issues.error('invalid_expression', `Node "${node.id}" run_if does not parse: ${problem}`, at('run_if'));
    }
    checkType(node, issues);
  }
  const text = expressionText(nodes);
  if (text > MAX_EXPRESSION_TEXT)
    issues.error(
      'expressions_too_long',
      `The workflow's expressions are ${text} characters together; at most ${MAX_EXPRESSION_TEXT} are allowed`,
      { field: 'nodes' },
    );
  const cycle = findCycle(nodes);
  if (cycle)
    issues.error('circular_dependency', `Circular dependency: ${cycle.join(' -> ')}`, {
      node_id: cycle[0]!,
      field: 'depends_on',
    });
  if (definition.trigger) checkTrigger(definition.trigger, issues);
  return issues.result();
}

/** Characters of every expression of a definition (run_if, CEL and JSONata config keys), which bound its parse time. */
function expressionText(nodes: readonly WorkflowNode[]): number {
  let total = 0;
  for (const node of nodes) {
    if (typeof node.run_if === 'string') total += node.run_if.length;
    const spec = NODE_TYPES[node.type];
    for (const key of [...(spec?.cel ?? []), ...(spec?.jsonata ?? [])]) {
      const value = node.config?.[key];
      if (typeof value === 'string') total += value.length;
    }
  }
  return total;
}

/** The trigger types of the spec and what each needs in `conditions`. */
export const TRIGGER_TYPES = ['manual', 'api', 'document_upload', 'document_update', 'schedule', 'webhook'] as const;

function checkTrigger(trigger: NonNullable<WorkflowDefinition['trigger']>, issues: Issues): void {
  const conditions = trigger.conditions ?? {};
  if (!(TRIGGER_TYPES as readonly string[]).includes(trigger.type)) {
    issues.error('unknown_trigger_type', `Unknown trigger type "${trigger.type}"`, { field: 'trigger.type' });
  } else if (trigger.type === 'schedule') {
    const problem = cronError(conditions.cron_expression, conditions.timezone ?? 'UTC');
    if (problem)
      issues.error('invalid_cron', `Trigger cron_expression is not valid: ${problem}`, {
        field: 'trigger.conditions.cron_expression',
      });
  } else if (trigger.type === 'webhook' && (typeof conditions.secret !== 'string' || conditions.secret.length < 8)) {
    issues.error('missing_trigger_condition', 'Trigger webhook needs conditions.secret (at least 8 characters)', {
      field: 'trigger.conditions.secret',
    });
  } else if (trigger.type === 'document_update' && !Array.isArray(conditions.fields)) {
    issues.error(
      'missing_trigger_condition',
      'Trigger document_update needs conditions.fields (a list of field names)',
      { field: 'trigger.conditions.fields' },
    );
  }
}

function checkType(node: WorkflowNode, issues: Issues): void {
  const spec = NODE_TYPES[node.type];
  const at = (field: string) => ({ node_id: node.id, field });
  if (!spec) {
    issues.error('unknown_node_type', `Node "${node.id}" has unknown type "${node.type}"`, at('type'));
    return;
  }
  const config = node.config ?? {};
  for (const key of spec.required) {
    if (config[key] === undefined || config[key] === null)
      issues.error(
        'missing_config',
        `Node "${node.id}" (${node.type}) is missing config "${key}"`,
        at(`config.${key}`),
      );
  }
  if (node.type === 'delay' && config.seconds === undefined && config.until === undefined) {
    issues.error('missing_config', `Node "${node.id}" (delay) needs config "seconds" or "until"`, at('config.seconds'));
  }
  if (node.type === 'schedule' && config.cron_expression !== undefined) {
    const problem = cronError(config.cron_expression, config.timezone ?? 'UTC');
    if (problem)
      issues.error(
        'invalid_cron',
        `Node "${node.id}" cron_expression is not valid: ${problem}`,
        at('config.cron_expression'),
      );
  }
  for (const key of spec.cel ?? []) {
    if (config[key] === undefined) continue;
    const problem = celParseError(config[key]);
    if (problem)
      issues.error(
        'invalid_expression',
        `Node "${node.id}" ${key} is not a valid CEL expression: ${problem}`,
        at(`config.${key}`),
      );
  }
  for (const key of spec.jsonata ?? []) {
    if (config[key] === undefined) continue;
    const problem = jsonataParseError(config[key]);
    if (problem)
      issues.error(
        'invalid_expression',
        `Node "${node.id}" ${key} is not a valid JSONata expression: ${problem}`,
        at(`config.${key}`),
      );
  }
  const human = node.type.startsWith('human_');
  const hasTimeout = human
    ? node.timeout_hours !== undefined || config.timeout_hours !== undefined
    : node.timeout_seconds !== undefined;
  if (spec.waits && !hasTimeout) {
    const field = human ? 'timeout_hours' : 'timeout_seconds';
    issues.warning('no_timeout', `Node "${node.id}" (${node.type}) has no timeout (${field})`, at(field));
  }
}

/** The first cycle found, as a closed path of node ids (`a -> b -> a`), or null. */
export function findCycle(nodes: readonly WorkflowNode[]): string[] | null {
  const deps = new Map(nodes.map((n) => [n.id, n.depends_on ?? []]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === 'done' || !deps.has(id)) return null;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const dep of deps.get(id)!) {
      const found = visit(dep);
      if (found) return found;
    }
    stack.pop();
    state.set(id, 'done');
    return null;
  };
  for (const node of nodes) {
    const found = visit(node.id);
    // Edges point at dependencies; report the cycle in execution order.
    if (found) return found.reverse();
  }
  return null;
}
