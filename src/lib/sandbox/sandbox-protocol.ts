/**
 * What the sandbox pool and its child processes say to each other. Values travel as JSON text: its length
 * is the size the limits count, and parsing it in the child gives plain data (no prototypes,
 * getters or functions from the caller).
 */

/** One piece of user code to run, with its data. */
export type SandboxTask =
  /** A CEL expression over `scope`; with `items`, once per item with `item` and `index` added (a filter). */
  | { kind: 'cel'; expression: string; scope: string; items?: string }
  /** A JSONata expression over `input` (the scope itself when absent), the scope's keys bound as `$name`. */
  | { kind: 'jsonata'; expression: string; scope: string; input?: string }
  /** A JSON Schema (Ajv, RE2 patterns) checked against a value: null when it holds, else `[{path, message}]`. */
  | { kind: 'json_schema'; schema: string; value: string };

export interface TaskMessage {
  id: number;
  task: SandboxTask;
  /** The child refuses to answer with more JSON than this. */
  maxResultBytes: number;
}

export type ResultMessage =
  /** `result`: the value as JSON text (`null` for undefined). */
  | { id: number; ok: true; result: string }
  /** The user code failed (a parse or evaluation error): a message for the node's error. */
  | { id: number; ok: false; error: string }
  /** The result was larger than `maxResultBytes` (its size in bytes). */
  | { id: number; ok: false; resultBytes: number };

/** Sent once by a child when its engines are loaded. */
export interface ReadyMessage {
  ready: true;
}
