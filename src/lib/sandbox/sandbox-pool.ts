import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ReadyMessage, ResultMessage, SandboxTask, TaskMessage } from './sandbox-protocol.ts';

/** The limits every piece of user code runs under (EXPRESSION_* in src/config/config.ts). */
export interface SandboxLimits {
  /** Wall-clock time of one task, from the moment a process takes it; past it the process is killed. */
  timeoutMs: number;
  /** V8 heap limit of each process (`--max-old-space-size`). */
  memoryMb: number;
  /** Most bytes of JSON a task's data may have (scope, items and input, or schema and value, together). */
  maxInputBytes: number;
  /** Most bytes of JSON a task may answer with. */
  maxResultBytes: number;
  /** Processes running tasks at once; started on first use. */
  threads: number;
}

export type LimitName = 'time' | 'memory' | 'input_size' | 'result_size';

/** User code went past one of the sandbox's limits: the task failed and, for time and memory, its process was replaced. */
export class SandboxLimitError extends Error {
  readonly code = 'expression_limit_exceeded';
  readonly limit: LimitName;
  /** The limit's value (ms, MB or bytes). */
  readonly value: number;

  constructor(limit: LimitName, value: number, detail: string) {
    super(`expression_limit_exceeded: ${describeLimit(limit, value)}${detail ? ` (${detail})` : ''}`);
    this.name = 'SandboxLimitError';
    this.limit = limit;
    this.value = value;
  }
}

function describeLimit(limit: LimitName, value: number): string {
  switch (limit) {
    case 'time':
      return `time limit of ${value} ms reached, the evaluation was stopped`;
    case 'memory':
      return `memory limit of ${value} MB reached, the evaluation was stopped`;
    case 'input_size':
      return `input size limit of ${value} bytes exceeded`;
    case 'result_size':
      return `result size limit of ${value} bytes exceeded`;
  }
}

/** The user code itself failed (does not parse, a type error, a failing function): its message. */
export class SandboxEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxEvaluationError';
  }
}

/** An idle child exits after this long, so a service that stops running workflows gives its memory back. */
const IDLE_MS = 60_000;
/** A new child has this long to load its engines (~0.2 s when the machine is quiet). */
const STARTUP_MS = 30_000;
/** What a child's stderr keeps, to tell a V8 out-of-memory abort from another crash. */
const STDERR_TAIL = 4_096;
const CHILD = fileURLToPath(new URL('./sandbox-child.ts', import.meta.url));

interface Call {
  id: number;
  task: SandboxTask;
  resolve(json: string): void;
  reject(error: Error): void;
  signal: AbortSignal | undefined;
  onAbort(): void;
  timer: NodeJS.Timeout | null;
  slot: Slot | null;
}

interface Slot {
  worker: ChildProcess | null;
  /** The child has loaded its engines (a task's clock starts only then). */
  ready: boolean;
  call: Call | null;
  /** The end of the child's stderr, read when it exits. */
  stderr: string;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * A small pool of child processes that run user-written code (workflow expressions, JSON Schemas) under limits:
 * a wall-clock deadline per task (the child is killed and a fresh one takes the next task), a heap
 * limit per child, and size limits on what goes in and comes out. The pool starts no child until
 * the first task, and idle children exit, so a service that runs no workflow pays nothing.
 *
 * Processes, not worker threads: a worker's `resourceLimits` stops gradual growth, but a single
 * large allocation past the limit (a 10-million-element array, `$pad("", 4e8)`) makes V8 abort the
 * whole process — measured on Node 24 — which is what the box must prevent. A child's abort is its own.
 */
export class SandboxPool {
  readonly limits: Readonly<SandboxLimits>;
  readonly #slots: Slot[];
  #queue: Call[] = [];
  #nextId = 1;
  #closed = false;

  constructor(limits: SandboxLimits) {
    this.limits = { ...limits };
    this.#slots = Array.from({ length: Math.max(1, limits.threads) }, () => ({
      worker: null,
      ready: false,
      call: null,
      stderr: '',
      idleTimer: null,
    }));
  }

  /** Runs a task; resolves with its result as JSON text, rejects with SandboxLimitError or SandboxEvaluationError. */
  run(task: SandboxTask, signal?: AbortSignal): Promise<string> {
    if (this.#closed) return Promise.reject(new Error('the expression sandbox is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    const inputBytes = taskBytes(task);
    if (inputBytes > this.limits.maxInputBytes) {
      return Promise.reject(
        new SandboxLimitError('input_size', this.limits.maxInputBytes, `the input is ${inputBytes} bytes`),
      );
    }
    return new Promise((resolve, reject) => {
      const call: Call = {
        id: this.#nextId++,
        task,
        resolve,
        reject,
        signal,
        onAbort: () => this.#fail(call, signal?.reason instanceof Error ? signal.reason : new Error('aborted'), true),
        timer: null,
        slot: null,
      };
      signal?.addEventListener('abort', call.onAbort, { once: true });
      this.#queue.push(call);
      this.#dispatch();
    });
  }

  /** Child processes alive now (tests, metrics). */
  get processCount(): number {
    return this.#slots.filter((s) => s.worker !== null).length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const error = new Error('the expression sandbox was closed');
    for (const call of [...this.#queue]) this.#fail(call, error, false);
    const terminations: Promise<unknown>[] = [];
    for (const slot of this.#slots) {
      if (slot.call) this.#fail(slot.call, error, false);
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      if (slot.worker) terminations.push(stop(slot.worker));
      slot.worker = null;
    }
    await Promise.all(terminations);
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const ready = this.#slots.find((s) => s.worker && s.ready && !s.call);
      if (ready) {
        this.#start(ready, this.#queue.shift()!);
        continue;
      }
      const empty = this.#slots.find((s) => !s.worker && !s.call);
      if (this.#slots.some((s) => s.worker && s.ready)) {
        // The warm children are busy: start one more meanwhile, and the task goes to whichever is
        // free first (a start takes a few hundred milliseconds, far more than most tasks).
        if (empty) this.#prestart(empty);
        return;
      }
      // Nothing warm: the task waits for a child to start (its clock starts when that child is ready).
      const slot = this.#slots.find((s) => s.worker && !s.call) ?? empty;
      if (!slot) return;
      this.#start(slot, this.#queue.shift()!);
    }
  }

  /** Starts a child with no task; it takes queued tasks once ready. */
  #prestart(slot: Slot): void {
    try {
      this.#spawn(slot);
    } catch {
      // Tasks keep waiting for the children already running.
    }
  }

  #start(slot: Slot, call: Call): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    let worker: ChildProcess;
    try {
      worker = slot.worker ?? this.#spawn(slot);
    } catch (error) {
      this.#settle(call, () =>
        call.reject(
          new Error(`the expression sandbox could not start a process: ${(error as Error).message}`, { cause: error }),
        ),
      );
      return;
    }
    setRef(worker, true);
    slot.call = call;
    call.slot = slot;
    const message: TaskMessage = { id: call.id, task: call.task, maxResultBytes: this.limits.maxResultBytes };
    worker.send(message);
    if (slot.ready) this.#startClock(call);
  }

  /**
   * The clock starts when a ready child has the task: time queued behind other tasks, or while a
   * new child loads its engines, is not the user's. A child that cannot get ready in time fails too.
   */
  #startClock(call: Call): void {
    call.timer = setTimeout(
      () => this.#fail(call, new SandboxLimitError('time', this.limits.timeoutMs, ''), true),
      this.limits.timeoutMs,
    );
  }

  #spawn(slot: Slot): ChildProcess {
    const env = { ...process.env };
    // Not a test process, whatever started the service (node --test sets this for its files).
    delete env.NODE_TEST_CONTEXT;
    const worker = fork(CHILD, [], {
      execArgv: [
        `--max-old-space-size=${this.limits.memoryMb}`,
        '--max-semi-space-size=4',
        '--disable-warning=ExperimentalWarning',
      ],
      env,
      // Nothing user code prints belongs in the service's output; stderr's end tells an OOM abort.
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    slot.worker = worker;
    slot.ready = false;
    slot.stderr = '';
    worker.stderr?.setEncoding('utf8');
    worker.stderr?.on('data', (chunk: string) => {
      slot.stderr = (slot.stderr + chunk).slice(-STDERR_TAIL);
    });
    const startup = setTimeout(() => {
      if (slot.worker !== worker || slot.ready) return;
      if (slot.call) this.#fail(slot.call, new Error('the expression process did not start in time'), true);
      else {
        slot.worker = null;
        void stop(worker);
      }
    }, STARTUP_MS);
    startup.unref();
    worker.on('message', (message: ResultMessage | ReadyMessage) => {
      if ('ready' in message) {
        clearTimeout(startup);
        if (slot.worker !== worker) return;
        slot.ready = true;
        if (slot.call && !slot.call.timer) this.#startClock(slot.call);
        else if (!slot.call) this.#release(slot); // started ahead: take queued tasks, or idle
        return;
      }
      this.#onMessage(slot, worker, message);
    });
    worker.on('error', () => {
      // A failed spawn or send ends in 'exit' (or was a kill on purpose): handled there.
    });
    worker.on('exit', (code, signal) => {
      clearTimeout(startup);
      if (slot.worker !== worker) return; // replaced on purpose
      slot.worker = null;
      const call = slot.call;
      if (call) this.#fail(call, this.#crashed(code, signal, slot.stderr), false);
      this.#dispatch();
    });
    return worker;
  }

  #crashed(code: number | null, signal: NodeJS.Signals | null, stderr: string): Error {
    if (/heap out of memory|Reached heap limit|invalid (table|array) size|allocation failed/i.test(stderr))
      return new SandboxLimitError('memory', this.limits.memoryMb, '');
    return new Error(`the expression process stopped (${signal ?? `exit code ${code}`})`);
  }

  #onMessage(slot: Slot, worker: ChildProcess, message: ResultMessage): void {
    const call = slot.call;
    if (slot.worker !== worker || !call || message.id !== call.id) return;
    if (message.ok) this.#settle(call, () => call.resolve(message.result));
    else if ('resultBytes' in message) {
      this.#settle(call, () =>
        call.reject(
          new SandboxLimitError(
            'result_size',
            this.limits.maxResultBytes,
            `the result is ${message.resultBytes} bytes`,
          ),
        ),
      );
    } else this.#settle(call, () => call.reject(new SandboxEvaluationError(message.error)));
    this.#release(slot);
  }

  /** Ends a call; `kill` ends its process (it may be stuck in the user's code) and the next task gets a fresh one. */
  #fail(call: Call, error: Error, kill: boolean): void {
    const slot = call.slot;
    this.#queue = this.#queue.filter((c) => c !== call);
    this.#settle(call, () => call.reject(error));
    if (!slot) return;
    if (kill && slot.worker) {
      const worker = slot.worker;
      slot.worker = null;
      void stop(worker);
    }
    this.#release(slot);
  }

  #settle(call: Call, settle: () => void): void {
    if (call.timer) clearTimeout(call.timer);
    call.timer = null;
    call.signal?.removeEventListener('abort', call.onAbort);
    settle();
  }

  #release(slot: Slot): void {
    if (slot.call) slot.call.slot = null;
    slot.call = null;
    if (slot.worker) {
      // An idle child keeps neither the service alive nor its memory for long.
      setRef(slot.worker, false);
      const worker = slot.worker;
      slot.idleTimer = setTimeout(() => {
        slot.idleTimer = null;
        if (slot.worker === worker && !slot.call) {
          slot.worker = null;
          void stop(worker);
        }
      }, IDLE_MS);
      slot.idleTimer.unref();
    }
    this.#dispatch();
  }
}

/** Kills a child (it may be looping in user code, so no polite request) and waits for it to go. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    setRef(child, true); // until it has gone: the caller may be waiting on nothing else
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Whether the child (and its IPC channel and pipe) keeps the service's event loop alive. */
function setRef(child: ChildProcess, ref: boolean): void {
  const handles = [child, child.channel, child.stderr] as ({ ref?(): void; unref?(): void } | null | undefined)[];
  for (const handle of handles) (ref ? handle?.ref : handle?.unref)?.call(handle);
}

function taskBytes(task: SandboxTask): number {
  switch (task.kind) {
    case 'cel':
      return Buffer.byteLength(task.scope) + (task.items === undefined ? 0 : Buffer.byteLength(task.items));
    case 'jsonata':
      return Buffer.byteLength(task.scope) + (task.input === undefined ? 0 : Buffer.byteLength(task.input));
    case 'json_schema':
      return Buffer.byteLength(task.schema) + Buffer.byteLength(task.value);
  }
}
