import { createRequire } from 'node:module';
import type * as Cel from '@marcbachmann/cel-js';
import type Jsonata from 'jsonata';
import { Re2RegExp, re2ForAjv } from './re2-regexp.ts';
import type { ReadyMessage, ResultMessage, SandboxTask, TaskMessage } from './sandbox-protocol.ts';

// The child side of sandbox-pool.ts: user-written expressions and JSON Schemas run here, one at a
// time, in a process of their own under the pool's clock and this process's heap limit
// (--max-old-space-size), never on the service's event loop. A V8 out-of-memory abort ends only
// this process.

const load = createRequire(import.meta.url);
/** JSONata's own evaluation-depth hook, kept as a clear early error for deep recursion. */
const JSONATA_MAX_DEPTH = 100;
/** Compiled expressions and schemas kept per process (user texts repeat across executions). */
const CACHE_SIZE = 500;

let cel: typeof Cel | undefined;
let jsonata: typeof Jsonata | undefined;
const compiledJsonata = new Map<string, Jsonata.Expression>();
type Problems = { path: string; message: string }[] | null;
const compiledSchemas = new Map<string, (value: unknown) => Problems>();
type AjvValidate = ((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };
let ajv: { compile(schema: object): AjvValidate } | undefined;

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(key, value);
  }
  return value;
}

/**
 * CEL's `matches` builds `new RegExp(pattern)` (its only use of RegExp): while a CEL expression
 * evaluates — synchronously, nothing else runs in this process meanwhile — the global constructor
 * is RE2's, so `matches` takes linear time (and speaks RE2 syntax, as the CEL specification says).
 */
function withRe2<T>(run: () => T): T {
  const native = globalThis.RegExp;
  globalThis.RegExp = Re2RegExp as unknown as RegExpConstructor;
  try {
    return run();
  } finally {
    globalThis.RegExp = native;
  }
}

function evalCel(expression: string, context: Record<string, unknown>): unknown {
  cel ??= load('@marcbachmann/cel-js') as typeof Cel;
  const lib = cel;
  return withRe2(() => lib.evaluate(expression, context));
}

async function evalJsonata(expression: string, input: unknown, bindings: Record<string, unknown>): Promise<unknown> {
  jsonata ??= load('jsonata') as typeof Jsonata;
  const make = jsonata;
  const expr = remember(compiledJsonata, expression, () =>
    make(expression, { RegexEngine: Re2RegExp as unknown as RegExpConstructor }),
  );
  let depth = 0;
  expr.assign('__evaluate_entry', () => {
    depth++;
    if (depth > JSONATA_MAX_DEPTH) throw new Error(`the expression nests deeper than ${JSONATA_MAX_DEPTH}`);
  });
  expr.assign('__evaluate_exit', () => {
    depth--;
  });
  return expr.evaluate(input, bindings);
}

/** Ajv compiles a schema into JavaScript and runs it: here, under the sandbox's limits (uniqueItems alone is quadratic). */
function checkSchema(schemaText: string, value: unknown): Problems {
  const check = remember(compiledSchemas, schemaText, () => {
    if (!ajv) {
      const ajvModule = load('ajv');
      const Ajv = ajvModule.default ?? ajvModule;
      const formats = load('ajv-formats');
      ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: re2ForAjv } });
      (formats.default ?? formats)(ajv);
    }
    let validate: AjvValidate;
    try {
      validate = ajv!.compile(JSON.parse(schemaText) as object);
    } catch (error) {
      throw new Error(`JSON Schema does not compile: ${error instanceof Error ? error.message : String(error)}`);
    }
    return (v: unknown) =>
      validate(v)
        ? null
        : (validate.errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? 'is invalid' }));
  });
  return check(value);
}

/** CEL integers are BigInts; results leave as JSON numbers. */
function toJson(value: unknown): string {
  return (
    JSON.stringify(value === undefined ? null : value, (_key, v) => (typeof v === 'bigint' ? Number(v) : v)) ?? 'null'
  );
}

async function run(task: SandboxTask): Promise<unknown> {
  switch (task.kind) {
    case 'cel': {
      const scope = JSON.parse(task.scope) as Record<string, unknown>;
      if (task.items === undefined) return evalCel(task.expression, scope);
      const items = JSON.parse(task.items) as unknown[];
      return items.map((item, index) => evalCel(task.expression, { ...scope, item, index }) === true);
    }
    case 'jsonata': {
      const scope = JSON.parse(task.scope) as Record<string, unknown>;
      const input = task.input === undefined ? scope : JSON.parse(task.input);
      return evalJsonata(task.expression, input, scope);
    }
    case 'json_schema':
      return checkSchema(task.schema, JSON.parse(task.value));
  }
}

function firstLine(error: unknown): string {
  const message =
    error instanceof Error
      ? error.message
      : typeof error === 'object' && error !== null && 'message' in error
        ? String(error.message)
        : String(error);
  return message.split('\n')[0]!.trim();
}

const send = process.send?.bind(process);
if (send) {
  // Load the engines now and say so: the pool starts a task's clock only once the process is ready,
  // so a cold start (a few hundred milliseconds, more on a busy machine) never counts against user code.
  cel ??= load('@marcbachmann/cel-js') as typeof Cel;
  jsonata ??= load('jsonata') as typeof Jsonata;
  send({ ready: true } satisfies ReadyMessage);
  // The pool going away (its process ended) ends this one too.
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (message: TaskMessage) => {
    let answer: ResultMessage;
    try {
      const result = toJson(await run(message.task));
      const bytes = Buffer.byteLength(result);
      answer =
        bytes > message.maxResultBytes
          ? { id: message.id, ok: false, resultBytes: bytes }
          : { id: message.id, ok: true, result };
    } catch (error) {
      answer = { id: message.id, ok: false, error: firstLine(error) };
    }
    send(answer);
  });
}
