import { createRequire } from 'node:module';
import type * as Cel from '@marcbachmann/cel-js';
import type Jsonata from 'jsonata';

/**
 * Expressions of contract §10: CEL conditions, JSONata transforms, and `{{...}}` references that
 * are path lookups only. Parsing at validation happens here, synchronously, bounded by length;
 * evaluation happens in the expression sandbox (expression-evaluator.ts), never on the event loop.
 */

// CEL and JSONata (~13 MiB together) load on the first parse, not at start: a process that never
// validates a workflow does not carry them (idle memory, issue 10).
const load = createRequire(import.meta.url);
let cel: typeof Cel | undefined;
let jsonataModule: typeof Jsonata | undefined;

/**
 * Longest expression accepted. Parsing is synchronous at validation, so its cost must be bounded:
 * the slowest shape measured, a JSONata path of 2,000 steps, parses in ~125 ms; most 4,000-character
 * expressions parse in 5–15 ms (docs/security.md).
 */
export const MAX_EXPRESSION_LENGTH = 4_000;
/**
 * Most characters of expressions one definition may hold together (a workflow is validated in one
 * request): four of the longest, so the worst validation parses for about half a second, and far
 * more than real workflows use (the guide's largest has a few hundred). Parse results are cached.
 */
export const MAX_EXPRESSION_TEXT = 16_000;
/** Parse results kept, so executing or re-validating a workflow does not parse its expressions again. */
const PARSE_CACHE_SIZE = 2_000;
const parsed = new Map<string, string | null>();

/** The variables an expression sees. */
export interface ExpressionScope {
  trigger: unknown;
  nodes: Record<string, { status: string; output: unknown }>;
  vars: Record<string, unknown>;
  execution: { id: string };
  item?: unknown;
  index?: number;
}

function parseError(language: 'CEL' | 'JSONata', expression: unknown, parse: (text: string) => void): string | null {
  if (typeof expression !== 'string' || expression.trim() === '') return `must be a non-empty ${language} expression`;
  if (expression.length > MAX_EXPRESSION_LENGTH) return `is longer than ${MAX_EXPRESSION_LENGTH} characters`;
  const key = `${language}:${expression}`;
  const known = parsed.get(key);
  if (known !== undefined) return known;
  let problem: string | null = null;
  try {
    parse(expression);
  } catch (error) {
    problem = firstLine(error);
  }
  if (parsed.size >= PARSE_CACHE_SIZE) parsed.delete(parsed.keys().next().value!);
  parsed.set(key, problem);
  return problem;
}

/** Returns an error message when the CEL expression does not parse, else null. */
export function celParseError(expression: unknown): string | null {
  return parseError('CEL', expression, (text) => {
    cel ??= load('@marcbachmann/cel-js') as typeof Cel;
    cel.parse(text);
  });
}

/** Returns an error message when the JSONata expression does not parse, else null. */
export function jsonataParseError(expression: unknown): string | null {
  return parseError('JSONata', expression, (text) => {
    jsonataModule ??= load('jsonata') as typeof Jsonata;
    jsonataModule(text);
  });
}

const WHOLE_REFERENCE = /^\{\{\s*([^{}]+?)\s*\}\}$/;
const REFERENCE = /\{\{\s*([^{}]+?)\s*\}\}/g;

/**
 * Resolves `{{path}}` references in a config value, deeply. A string that is exactly one reference
 * takes the value with its type; references inside text are interpolated as text. Path lookups
 * only, so it runs here: its time is linear in the config and the text it writes, and that text is
 * bounded by `maxBytes` (the sandbox's result limit), so `{{trigger}}` a thousand times over a large
 * trigger fails with expression_limit_exceeded instead of building gigabytes.
 */
export function resolveReferences(
  value: unknown,
  scope: ExpressionScope,
  maxBytes = Number.POSITIVE_INFINITY,
): unknown {
  let written = 0;
  const count = (text: string): string => {
    written += text.length;
    if (written > maxBytes) throw new ReferenceSizeError(maxBytes);
    return text;
  };
  const resolve = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = WHOLE_REFERENCE.exec(v);
      if (whole) return lookupPath(scope, whole[1]!);
      return v.replace(REFERENCE, (_, path: string) => {
        const found = lookupPath(scope, path);
        if (found === undefined || found === null) return '';
        return count(typeof found === 'object' ? JSON.stringify(found) : String(found));
      });
    }
    if (Array.isArray(v)) return v.map(resolve);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, resolve(inner)]));
    return v;
  };
  return resolve(value);
}

/** Text built from `{{...}}` references went past the result size limit. */
export class ReferenceSizeError extends Error {
  constructor(maxBytes: number) {
    super(
      `expression_limit_exceeded: result size limit of ${maxBytes} bytes exceeded (text built from {{...}} references)`,
    );
    this.name = 'ReferenceSizeError';
  }
}

/** `a.b[0].c` over plain data; undefined when any step is missing. */
export function lookupPath(root: unknown, path: string): unknown {
  const steps = path
    .trim()
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '');
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
