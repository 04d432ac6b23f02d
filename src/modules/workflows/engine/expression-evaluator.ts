import { SandboxPool, type SandboxLimits } from '../../../lib/sandbox/sandbox-pool.ts';
import type { SandboxTask } from '../../../lib/sandbox/sandbox-protocol.ts';
import type { ExpressionScope } from './expressions.ts';

/**
 * Evaluates workflow expressions in the expression sandbox (src/lib/sandbox/): child processes with
 * a time, heap, input and result limit, so a runaway expression fails its node and the event loop
 * never runs user code. One call is one message to one child: a filter's condition over all its
 * items goes together, under one time limit.
 */
export class ExpressionEvaluator {
  readonly #pool: SandboxPool;

  constructor(limits: SandboxLimits) {
    this.#pool = new SandboxPool(limits);
  }

  get limits(): Readonly<SandboxLimits> {
    return this.#pool.limits;
  }

  /** A CEL expression's value (CEL integers come back as numbers). */
  async cel(expression: string, scope: ExpressionScope, signal?: AbortSignal): Promise<unknown> {
    return this.#run({ kind: 'cel', expression, scope: JSON.stringify(scope) }, signal);
  }

  /** Whether the CEL condition is exactly `true`, for each item (bound as `item`, with its `index`). */
  async celEach(
    expression: string,
    scope: ExpressionScope,
    items: readonly unknown[],
    signal?: AbortSignal,
  ): Promise<boolean[]> {
    return (await this.#run(
      { kind: 'cel', expression, scope: JSON.stringify(scope), items: JSON.stringify(items) },
      signal,
    )) as boolean[];
  }

  /**
   * A JSONata expression over `input` (the scope itself when omitted) with the scope bound as
   * `$trigger`, `$nodes`, `$vars`, `$execution` (and `$item`, `$index` in a loop).
   */
  async jsonata(expression: string, scope: ExpressionScope, input?: unknown, signal?: AbortSignal): Promise<unknown> {
    const task: SandboxTask = { kind: 'jsonata', expression, scope: JSON.stringify(scope) };
    if (input !== undefined) task.input = JSON.stringify(input);
    return this.#run(task, signal);
  }

  /** Checks `value` against a user-written JSON Schema: null when it holds, else each problem's JSON pointer and message. */
  async schemaProblems(
    schema: object,
    value: unknown,
    signal?: AbortSignal,
  ): Promise<{ path: string; message: string }[] | null> {
    return (await this.#run(
      { kind: 'json_schema', schema: JSON.stringify(schema), value: JSON.stringify(value ?? null) },
      signal,
    )) as { path: string; message: string }[] | null;
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  async #run(task: SandboxTask, signal?: AbortSignal): Promise<unknown> {
    return JSON.parse(await this.#pool.run(task, signal));
  }
}
