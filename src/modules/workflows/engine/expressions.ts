import { createRequire } from 'node:module';
import type * as Cel from '@marcbachmann/cel-js';
import type Jsonata from 'jsonata';

// CEL and JSONata (~13 MiB together) load on the first expression, not at start: a process that
// never validates or runs a workflow does not carry them (idle memory, issue 10). Loaded with
// require so parsing stays synchronous for validation.
const load = createRequire(import.meta.url);
let cel: typeof Cel | undefined;
let jsonataModule: typeof Jsonata | undefined;
function celLib(): typeof Cel {
  cel ??= load('@marcbachmann/cel-js') as typeof Cel;
  return cel;
}
function jsonata(expression: string) {
  jsonataModule ??= load('jsonata') as typeof Jsonata;
  return jsonataModule(expression);
}

/**
 * Expressions of contract §10: CEL conditions, JSONata transforms (with time and depth limits),
 * and `{{...}}` references that are path lookups only. Nothing here evaluates JavaScript.
 */

const MAX_EXPRESSION_LENGTH = 4_000;
const JSONATA_TIMEOUT_MS = 1_000;
const JSONATA_MAX_DEPTH = 100;

/** The variables an expression sees. */
export interface ExpressionScope {
  trigger: unknown;
  nodes: Record<string, { status: string; output: unknown }>;
  vars: Record<string, unknown>;
  execution: { id: string };
  item?: unknown;
  index?: number;
}

/** Returns an error message when the CEL expression does not parse, else null. */
export function celParseError(expression: unknown): string | null {
  if (typeof expression !== 'string' || expression.trim() === '') return 'must be a non-empty CEL expression';
  if (expression.length > MAX_EXPRESSION_LENGTH) return `is longer than ${MAX_EXPRESSION_LENGTH} characters`;
  try {
    celLib().parse(expression);
    return null;
  } catch (error) {
    return firstLine(error);
  }
}

/** Returns an error message when the JSONata expression does not parse, else null. */
export function jsonataParseError(expression: unknown): string | null {
  if (typeof expression !== 'string' || expression.trim() === '') return 'must be a non-empty JSONata expression';
  if (expression.length > MAX_EXPRESSION_LENGTH) return `is longer than ${MAX_EXPRESSION_LENGTH} characters`;
  try {
    jsonata(expression);
    return null;
  } catch (error) {
    return firstLine(error);
  }
}

/** Evaluates a CEL expression (CEL has no loops or recursion, so a length limit bounds its time). */
export function evalCel(expression: string, scope: ExpressionScope): unknown {
  const value = celLib().evaluate(expression, scope as unknown as Record<string, unknown>);
  return typeof value === 'bigint' ? Number(value) : value;
}

/** Evaluates a JSONata expression over `input` with the scope bound as `$trigger`, `$nodes`, `$vars`, `$execution`. */
export async function evalJsonata(expression: string, input: unknown, scope: ExpressionScope): Promise<unknown> {
  const expr = jsonata(expression);
  const started = Date.now();
  let depth = 0;
  // JSONata's documented hooks for time-boxing an evaluation (its own test suite uses them).
  expr.assign('__evaluate_entry', () => {
    depth++;
    if (depth > JSONATA_MAX_DEPTH) throw new Error(`the expression nests deeper than ${JSONATA_MAX_DEPTH}`);
    if (Date.now() - started > JSONATA_TIMEOUT_MS) throw new Error(`the expression ran longer than ${JSONATA_TIMEOUT_MS} ms`);
  });
  expr.assign('__evaluate_exit', () => {
    depth--;
  });
  const bindings = { trigger: scope.trigger, nodes: scope.nodes, vars: scope.vars, execution: scope.execution, item: scope.item, index: scope.index };
  const value = await expr.evaluate(input, bindings);
  return value === undefined ? null : toPlain(value);
}

const WHOLE_REFERENCE = /^\{\{\s*([^{}]+?)\s*\}\}$/;
const REFERENCE = /\{\{\s*([^{}]+?)\s*\}\}/g;

/**
 * Resolves `{{path}}` references in a config value, deeply. A string that is exactly one reference
 * takes the value with its type; references inside text are interpolated as text.
 */
export function resolveReferences(value: unknown, scope: ExpressionScope): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_REFERENCE.exec(value);
    if (whole) return lookupPath(scope, whole[1]!);
    return value.replace(REFERENCE, (_, path: string) => {
      const found = lookupPath(scope, path);
      if (found === undefined || found === null) return '';
      return typeof found === 'object' ? JSON.stringify(found) : String(found);
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolveReferences(v, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveReferences(v, scope)]));
  }
  return value;
}

/** `a.b[0].c` over plain data; undefined when any step is missing. */
export function lookupPath(root: unknown, path: string): unknown {
  const steps = path.trim().replace(/\[(\d+)\]/g, '.$1').split('.').filter((s) => s !== '');
  let current: unknown = root;
  for (const step of steps) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.hasOwn(current, step)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/** The value as a JSON column gives it back (JSONata marks sequences with extra properties; the round trip keeps only data). */
export function toPlain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim();
}
