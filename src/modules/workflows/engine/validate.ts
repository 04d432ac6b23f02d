import { cronError } from './cron.ts';
import { celParseError, jsonataParseError, MAX_EXPRESSION_TEXT } from './expressions.ts';
import { NODE_TYPES } from './node-types.ts';
import { TRIGGER_RULES, type ValidationResult, type WorkflowDefinition, type WorkflowNode } from './types.ts';

/**
 * Checks a definition as contract §10 lists it: errors make it unrunnable (no nodes, duplicate
 * id, unknown type, unknown dependency, a cycle, missing config, an unparsable expression);
 * warnings flag nodes that can wait or call out without a timeout. Pure.
 */
export function validateWorkflow(definition: Pick<WorkflowDefinition, 'nodes' | 'trigger'>): ValidationResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const nodes = Array.isArray(definition.nodes) ? definition.nodes : [];
  if (nodes.length === 0) errors.push('The workflow has no nodes');

  const ids = new Set<string>();
  for (const node of nodes) {
    if (ids.has(node.id)) errors.push(`Duplicate node id "${node.id}"`);
    ids.add(node.id);
  }
  for (const node of nodes) {
    for (const dep of node.depends_on ?? []) {
      if (!ids.has(dep)) errors.push(`Node "${node.id}" depends on unknown node "${dep}"`);
    }
    if (node.trigger_rule !== undefined && !(TRIGGER_RULES as readonly string[]).includes(node.trigger_rule)) {
      errors.push(`Node "${node.id}" has unknown trigger_rule "${node.trigger_rule}"`);
    }
    if (node.run_if !== undefined) {
      const problem = celParseError(node.run_if);
      if (problem) errors.push(`Node "${node.id}" run_if does not parse: ${problem}`);
    }
    checkType(node, errors, warnings);
  }
  const text = expressionText(nodes);
  if (text > MAX_EXPRESSION_TEXT)
    errors.push(
      `The workflow's expressions are ${text} characters together; at most ${MAX_EXPRESSION_TEXT} are allowed`,
    );
  const cycle = findCycle(nodes);
  if (cycle) errors.push(`Circular dependency: ${cycle.join(' -> ')}`);
  if (definition.trigger) checkTrigger(definition.trigger, errors);
  return { errors, warnings };
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

function checkTrigger(trigger: NonNullable<WorkflowDefinition['trigger']>, errors: string[]): void {
  const conditions = trigger.conditions ?? {};
  if (!(TRIGGER_TYPES as readonly string[]).includes(trigger.type)) {
    errors.push(`Unknown trigger type "${trigger.type}"`);
  } else if (trigger.type === 'schedule') {
    const problem = cronError(conditions.cron_expression, conditions.timezone ?? 'UTC');
    if (problem) errors.push(`Trigger cron_expression is not valid: ${problem}`);
  } else if (trigger.type === 'webhook' && (typeof conditions.secret !== 'string' || conditions.secret.length < 8)) {
    errors.push('Trigger webhook needs conditions.secret (at least 8 characters)');
  } else if (trigger.type === 'document_update' && !Array.isArray(conditions.fields)) {
    errors.push('Trigger document_update needs conditions.fields (a list of field names)');
  }
}

function checkType(node: WorkflowNode, errors: string[], warnings: string[]): void {
  const spec = NODE_TYPES[node.type];
  if (!spec) {
    errors.push(`Node "${node.id}" has unknown type "${node.type}"`);
    return;
  }
  const config = node.config ?? {};
  for (const key of spec.required) {
    if (config[key] === undefined || config[key] === null)
      errors.push(`Node "${node.id}" (${node.type}) is missing config "${key}"`);
  }
  if (node.type === 'delay' && config.seconds === undefined && config.until === undefined) {
    errors.push(`Node "${node.id}" (delay) needs config "seconds" or "until"`);
  }
  if (node.type === 'schedule' && config.cron_expression !== undefined) {
    const problem = cronError(config.cron_expression, config.timezone ?? 'UTC');
    if (problem) errors.push(`Node "${node.id}" cron_expression is not valid: ${problem}`);
  }
  for (const key of spec.cel ?? []) {
    if (config[key] === undefined) continue;
    const problem = celParseError(config[key]);
    if (problem) errors.push(`Node "${node.id}" ${key} is not a valid CEL expression: ${problem}`);
  }
  for (const key of spec.jsonata ?? []) {
    if (config[key] === undefined) continue;
    const problem = jsonataParseError(config[key]);
    if (problem) errors.push(`Node "${node.id}" ${key} is not a valid JSONata expression: ${problem}`);
  }
  const hasTimeout = node.type.startsWith('human_')
    ? node.timeout_hours !== undefined || config.timeout_hours !== undefined
    : node.timeout_seconds !== undefined;
  if (spec.waits && !hasTimeout) {
    warnings.push(
      `Node "${node.id}" (${node.type}) has no timeout (${node.type.startsWith('human_') ? 'timeout_hours' : 'timeout_seconds'})`,
    );
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
