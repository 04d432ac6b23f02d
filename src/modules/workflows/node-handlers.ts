import type { Executor } from '../../db/executor.ts';
import type { AuthContext } from '../../domain/auth-context.ts';
import type { OutboundHttp } from '../../providers/outbound/outbound-http.ts';
import type { ExpressionEvaluator } from './engine/expression-evaluator.ts';
import { type ExpressionScope, resolveReferences } from './engine/expressions.ts';
import type { WorkflowNode } from './engine/types.ts';

/** Where a node run sits, for effects written in the transaction that records its result. */
export interface RunContext {
  tenantId: string;
  executionId: string;
  workflowId: string;
  workflowName: string;
  runId: string;
  nodeId: string;
  /** The job priority of the execution's steps, for timers a node arms (task escalation and expiry). */
  jobPriority: number;
  now: number;
}

/** What one run of a node produced. */
export type NodeOutcome =
  | {
      kind: 'completed';
      output: unknown;
      setVariable?: { name: string; value: unknown };
      end?: { status: 'completed' | 'failed'; output: unknown };
      /** Side effects written in the transaction that records the result (exactly once with it). */
      effects?: (trx: Executor, run: RunContext) => Promise<void>;
    }
  /** A durable timer: run the node again at `until`. */
  | { kind: 'wait'; until: number }
  /**
   * Part done (a loop's batch): keep `checkpoint` on the run and go on in a new job, which gets it
   * back as `NodeInput.checkpoint`. `effects` of the part done commit with it; `progress` is logged.
   */
  | {
      kind: 'checkpoint';
      checkpoint: unknown;
      progress: string;
      effects?: (trx: Executor, run: RunContext) => Promise<void>;
    }
  /** Hand the run to something outside the engine (a human task); `hold` returns the holder's mark (`task:<id>`). */
  | { kind: 'suspend'; hold: (trx: Executor, run: RunContext) => Promise<string> };

/** What a handler is given: the node, its config with references resolved, the expression scope. */
export interface NodeInput {
  node: WorkflowNode;
  config: Record<string, unknown>;
  /** Config as written (expressions and nested loop nodes are read raw). */
  rawConfig: Record<string, unknown>;
  scope: ExpressionScope;
  /** When this node run started (epoch ms), for durable timers. */
  startedAt: number;
  /** What the run's last `checkpoint` outcome kept; null on its first job. */
  checkpoint: unknown;
  now: number;
  /** `execution:node:iteration` (iteration 0 outside a loop), sent by side-effecting nodes (Idempotency-Key). */
  idempotencyKey: string;
  tenantId: string;
  /**
   * The execution's principal as the access rules take it (resolved on first use): what a node that
   * reads documents may read. Throws a `forbidden` node failure when the principal can no longer act.
   */
  actingAs: () => Promise<AuthContext>;
  signal: AbortSignal;
  /** Most text `{{...}}` references may write into a config (the sandbox's result limit). */
  maxReferenceBytes: number;
}

/** A node type's behaviour. Issue 15 adds AI, human and MCP handlers to this table. */
export type NodeHandler = (input: NodeInput) => Promise<NodeOutcome>;

const done = (output: unknown): NodeOutcome => ({ kind: 'completed', output });

/**
 * A node failure with the API's error code (`not_found`, `forbidden`), recorded as the run's error
 * `Node "<id>": <code>: <message>`.
 */
export function nodeFailure(nodeId: string, code: string, message: string): Error {
  return new Error(`Node "${nodeId}": ${code}: ${message}`);
}

/** Fails a node with a message naming the node and the expression (contract §10), or the sandbox limit it hit. */
function expressionError(node: WorkflowNode, expression: string, error: unknown): Error {
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new Error(`Node "${node.id}": expression "${expression}" failed: ${message}`, { cause: error });
}

/** Runs one evaluation of a node's expression, failing the node with the expression named. */
async function evaluating<T>(
  node: WorkflowNode,
  expression: string,
  run: (expression: string) => Promise<T>,
): Promise<T> {
  try {
    return await run(expression);
  } catch (error) {
    throw expressionError(node, expression, error);
  }
}

/** `items` of `filter`, `aggregate` and `loop`: an array, or the node fails. */
export function itemsOf(node: WorkflowNode, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new Error(`Node "${node.id}": config "items" must resolve to an array`);
  return value;
}

/** The control nodes of contract §10: nothing outside the process, expressions in the sandbox. */
export function controlHandlers(expressions: ExpressionEvaluator): Record<string, NodeHandler> {
  return {
    condition: async ({ node, rawConfig, scope, signal }) =>
      done({
        result:
          (await evaluating(node, String(rawConfig.expression), (e) => expressions.cel(e, scope, signal))) === true,
      }),
    switch: async ({ node, rawConfig, config, scope, signal }) => {
      const value = await evaluating(node, String(rawConfig.expression), (e) => expressions.cel(e, scope, signal));
      const cases = config.cases;
      let matched = 'default';
      if (Array.isArray(cases)) {
        const hit = cases.find((c) => c === value);
        if (hit !== undefined) matched = String(hit);
      } else if (cases && typeof cases === 'object') {
        const hit = Object.entries(cases).find(([, v]) => v === value);
        if (hit) matched = hit[0];
      }
      return done({ value, case: matched });
    },
    parallel: async () => done({}),
    join: async ({ node, scope }) => {
      const outputs: Record<string, unknown> = {};
      for (const dep of node.depends_on ?? []) {
        const result = scope.nodes[dep];
        if (result?.status === 'completed') outputs[dep] = result.output;
      }
      return done(outputs);
    },
    transform: async ({ node, rawConfig, scope, signal }) =>
      done(
        await evaluating(node, String(rawConfig.expression), (e) => expressions.jsonata(e, scope, undefined, signal)),
      ),
    filter: async ({ node, config, rawConfig, scope, signal }) => {
      const items = itemsOf(node, config.items);
      // One message for all the items: one hop to the sandbox and one time limit for the node.
      const keep = await evaluating(node, String(rawConfig.condition), (e) =>
        expressions.celEach(e, scope, items, signal),
      );
      return done(items.filter((_, index) => keep[index] === true));
    },
    aggregate: async ({ node, config, rawConfig, scope, signal }) =>
      done(
        await evaluating(node, String(rawConfig.expression), (e) =>
          expressions.jsonata(e, scope, itemsOf(node, config.items), signal),
        ),
      ),
    set_variable: async ({ config }) => {
      const name = String(config.name);
      return { kind: 'completed', output: { name, value: config.value }, setVariable: { name, value: config.value } };
    },
    delay: async ({ node, config, startedAt, now }) => {
      let until: number;
      if (config.until !== undefined) {
        until = Date.parse(String(config.until));
        if (Number.isNaN(until)) throw new Error(`Node "${node.id}": config "until" is not a timestamp`);
      } else {
        const seconds = Number(config.seconds);
        if (!Number.isFinite(seconds) || seconds < 0)
          throw new Error(`Node "${node.id}": config "seconds" must be a non-negative number`);
        until = startedAt + seconds * 1000;
      }
      if (now < until) return { kind: 'wait', until };
      return done({ waited_until: new Date(until).toISOString() });
    },
    end: async ({ config }) => {
      const status = config.status === 'failed' ? 'failed' : 'completed';
      const output = config.output ?? null;
      return { kind: 'completed', output, end: { status, output } };
    },
  };
}

/** `http_request` through the guarded outbound client; a non-2xx answer fails the node. */
export function httpRequestHandler(http: OutboundHttp): NodeHandler {
  return async ({ node, config, idempotencyKey, signal }) => {
    const headers: Record<string, string> = { 'idempotency-key': idempotencyKey };
    for (const [k, v] of Object.entries((config.headers as Record<string, unknown>) ?? {}))
      headers[k.toLowerCase()] = String(v);
    let body: string | undefined;
    if (config.body !== undefined && config.body !== null) {
      body = typeof config.body === 'string' ? config.body : JSON.stringify(config.body);
      if (typeof config.body !== 'string' && !headers['content-type']) headers['content-type'] = 'application/json';
    }
    const response = await http.request({
      url: String(config.url),
      method: String(config.method).toUpperCase(),
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(node.timeout_seconds ? { timeoutMs: node.timeout_seconds * 1000 } : {}),
      signal,
    });
    const text = response.body.toString('utf8');
    let parsed: unknown = text;
    if ((response.headers['content-type'] ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (response.status < 200 || response.status > 299)
      throw new Error(`Node "${node.id}": ${config.method} ${config.url} answered ${response.status}`);
    return done({ status: response.status, headers: response.headers, body: parsed });
  };
}

/** Keys whose values are read raw (expressions, nested nodes), not reference-resolved. */
export const RAW_KEYS = new Set(['expression', 'condition', 'node']);

/** A node's config with its `{{...}}` references resolved over `scope` (raw keys kept as written). */
export function resolveConfig(
  rawConfig: Record<string, unknown>,
  scope: ExpressionScope,
  maxReferenceBytes: number,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(rawConfig).map(([k, v]) => [
      k,
      RAW_KEYS.has(k) ? v : resolveReferences(v, scope, maxReferenceBytes),
    ]),
  );
}
