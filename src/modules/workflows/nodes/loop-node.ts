import { itemsOf, type NodeHandler, type NodeOutcome, type RunContext, resolveConfig } from '../node-handlers.ts';
import type { Executor } from '../../../db/executor.ts';

/** Node types a loop cannot run inline: they wait durably or hand over to people. */
const NOT_IN_LOOP = new Set(['loop', 'delay', 'schedule', 'human_approval', 'human_review', 'human_assignment']);

/**
 * How much of a loop one job runs before it checkpoints: no new item starts once the batch has
 * run `checkpointAfterMs` (the first item always starts) or started `maxItems`. Quick inner nodes
 * (transform, set_variable) finish a few hundred items in one job; slow ones (an HTTP call per
 * item) checkpoint after about a second of work, so a crash repeats at most that much.
 */
export const LOOP_BATCH = { maxItems: 100, checkpointAfterMs: 1_000 };

/** What a loop keeps between its jobs: the outputs of its first `outputs.length` items, in order. */
interface LoopCheckpoint {
  outputs: unknown[];
}

type Effect = (trx: Executor, run: RunContext) => Promise<void>;

/**
 * `loop`: runs its inner node once per item (at most `concurrency` at a time), output = outputs in
 * order. It runs in batches, one job each: a batch's outputs and inner side effects (notifications)
 * commit with its checkpoint, and the next job goes on from there, so a worker killed mid-loop
 * repeats the batch it was in, not the loop, and no job holds a long loop for its whole length.
 * Items are resolved again in each batch (a resumed execution's `modified_data` reaches the items
 * not done yet); items done are never run again.
 */
export function loopHandler(handlers: Record<string, NodeHandler>, batch = LOOP_BATCH): NodeHandler {
  return async (input) => {
    const { node, config, rawConfig, scope } = input;
    const items = itemsOf(node, config.items);
    const max = Number(config.max_iterations ?? 1000);
    if (items.length > max) throw new Error(`Node "${node.id}": ${items.length} items exceed max_iterations ${max}`);
    const inner = rawConfig.node as { type?: string; config?: Record<string, unknown> } | undefined;
    const handler = inner?.type ? handlers[inner.type] : undefined;
    if (!inner?.type || !handler || NOT_IN_LOOP.has(inner.type))
      throw new Error(`Node "${node.id}": the loop's node type "${inner?.type}" cannot run in a loop`);
    const outputs = [...doneOf(input.checkpoint)];
    const first = outputs.length;
    if (first > items.length)
      throw new Error(`Node "${node.id}": ${first} items were done but "items" now has ${items.length}`);
    const last = Math.min(items.length, first + batch.maxItems);
    const concurrency = Math.max(1, Number(config.concurrency ?? 1));
    const effects: Effect[] = [];
    const began = performance.now();
    let next = first;
    const worker = async () => {
      while (next < last && (next === first || performance.now() - began < batch.checkpointAfterMs)) {
        const index = next++;
        const itemScope = { ...scope, item: items[index], index };
        const innerRaw = inner.config ?? {};
        const outcome = await handler({
          ...input,
          node: { id: `${node.id}[${index}]`, type: inner.type!, config: innerRaw },
          rawConfig: innerRaw,
          config: resolveConfig(innerRaw, itemScope, input.maxReferenceBytes),
          scope: itemScope,
          checkpoint: null,
          idempotencyKey: `${scope.execution.id}:${node.id}:${index}`,
        });
        if (outcome.kind !== 'completed') throw new Error(`Node "${node.id}[${index}]" did not complete inline`);
        outputs[index] = outcome.output;
        if (outcome.effects) effects[index - first] = outcome.effects;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, last - first) }, worker));
    // Every item started has finished (one failing fails the batch): the outputs are a prefix.
    const applied = effects.filter(Boolean);
    const effect: Effect | undefined =
      applied.length > 0
        ? async (trx, run) => {
            for (const e of applied) await e(trx, run);
          }
        : undefined;
    const rest = effect ? { effects: effect } : {};
    if (next >= items.length) return { kind: 'completed', output: outputs, ...rest } satisfies NodeOutcome;
    const checkpoint: LoopCheckpoint = { outputs };
    return {
      kind: 'checkpoint',
      checkpoint,
      progress: `${next} of ${items.length} items done`,
      ...rest,
    } satisfies NodeOutcome;
  };
}

function doneOf(checkpoint: unknown): unknown[] {
  const outputs = (checkpoint as Partial<LoopCheckpoint> | null)?.outputs;
  return Array.isArray(outputs) ? outputs : [];
}
