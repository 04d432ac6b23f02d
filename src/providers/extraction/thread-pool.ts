import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ExtractionError, formatLabel, isExtractionErrorCode } from './extraction-error.ts';
import type { ExtractedContent } from './extraction-types.ts';
import { freeNow } from './free-now.ts';
import { watchThreadMemory } from './memory-watch.ts';
import type { OcrRecognizer } from './ocr-engine.ts';
import type { ExtractJob, FromThread, GreyImage, OcrAnswer } from './thread-protocol.ts';

/** A thread (pdf.js, exceljs, sharp... loaded: 50-150 MiB) exits after this long without work. */
const DEFAULT_IDLE_MS = 30_000;

export interface PoolOptions {
  threads: number;
  /** Time allowed per file (ExtractorOptions says how OCR'd pages extend it). */
  timeoutMs: number;
  ocrPageTimeoutMs: number;
  maxTimeoutMs: number;
  memoryMb: number;
  /** The decode budget each thread applies (decode-budget.ts). */
  maxDecodedBytes: number;
  /** The most a thread may hold outside its V8 heap (ArrayBuffers, native buffers) while it reads a file. */
  bufferLimitBytes: number;
  idleMs?: number;
  /** Who answers the threads' OCR requests; null when OCR is not available. */
  ocr: OcrRecognizer | null;
}

export interface PoolJob {
  path: string;
  extension: string;
  mediaType: string;
}

interface Call {
  id: number;
  job: PoolJob;
  signal: AbortSignal | undefined;
  resolve(content: ExtractedContent): void;
  reject(error: ExtractionError): void;
  onAbort(): void;
  onProgress: ((progress: { done: number; total: number }) => void) | undefined;
  /** Aborts the call's OCR requests when the call ends. */
  ocrControl: AbortController;
  timer: NodeJS.Timeout | null;
  /** Stops watching the thread's memory. */
  stopWatch: (() => void) | null;
  /** Epoch ms: when the call started, when it fails with a timeout, and the latest that may move to. */
  started: number;
  deadline: number;
  maxDeadline: number;
  slot: Slot | null;
}

interface Slot {
  worker: Worker | null;
  call: Call | null;
  /** Set by the `error` event so the `exit` that follows can say why. */
  failure: Error | null;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * A small pool of extraction threads, each with a V8 heap limit. Each file runs in one thread under
 * a deadline: on timeout or abort the thread is terminated and replaced, and a thread that dies
 * (out of memory) fails only the call it was running.
 */
export class ThreadPool {
  readonly #options: Required<PoolOptions>;
  readonly #slots: Slot[];
  #queue: Call[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: PoolOptions) {
    this.#options = { idleMs: DEFAULT_IDLE_MS, ...options };
    this.#slots = Array.from({ length: Math.max(1, options.threads) }, () => ({
      worker: null,
      call: null,
      failure: null,
      idleTimer: null,
    }));
  }

  run(
    job: PoolJob,
    signal?: AbortSignal,
    onProgress?: (progress: { done: number; total: number }) => void,
  ): Promise<ExtractedContent> {
    if (this.#closed) return Promise.reject(new ExtractionError('aborted', 'the extractor is closed'));
    if (signal?.aborted) return Promise.reject(aborted(job));
    return new Promise((resolve, reject) => {
      const call: Call = {
        id: this.#nextId++,
        job,
        signal,
        resolve,
        reject,
        onAbort: () => this.#fail(call, aborted(job), true),
        onProgress,
        ocrControl: new AbortController(),
        timer: null,
        stopWatch: null,
        started: 0,
        deadline: 0,
        maxDeadline: 0,
        slot: null,
      };
      signal?.addEventListener('abort', call.onAbort, { once: true });
      this.#queue.push(call);
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const error = new ExtractionError('aborted', 'the extractor was closed');
    for (const call of [...this.#queue]) this.#fail(call, error, false);
    const terminations: Promise<unknown>[] = [];
    for (const slot of this.#slots) {
      if (slot.call) this.#fail(slot.call, error, false);
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      if (slot.worker) terminations.push(slot.worker.terminate());
      slot.worker = null;
    }
    await Promise.all(terminations);
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      // Prefer a thread that is already warm.
      const slot = this.#slots.find((s) => !s.call && s.worker) ?? this.#slots.find((s) => !s.call);
      if (!slot) return;
      const call = this.#queue.shift() as Call;
      this.#start(slot, call);
    }
  }

  #start(slot: Slot, call: Call): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    let worker: Worker;
    try {
      worker = slot.worker ?? this.#spawn(slot);
    } catch (error) {
      this.#finish(call, () =>
        call.reject(
          new ExtractionError('crashed', `an extraction thread could not be started: ${(error as Error).message}`, {
            cause: error,
          }),
        ),
      );
      return;
    }
    worker.ref();
    slot.call = call;
    call.slot = slot;
    const { timeoutMs, ocrPageTimeoutMs, maxTimeoutMs } = this.#options;
    call.started = Date.now();
    call.maxDeadline = call.started + Math.max(timeoutMs, maxTimeoutMs);
    this.#armTimer(call, call.started + timeoutMs);
    const { bufferLimitBytes, maxDecodedBytes } = this.#options;
    call.stopWatch = watchThreadMemory(worker, bufferLimitBytes, () =>
      this.#fail(call, outgrown(call.job, bufferLimitBytes), true),
    );
    const message: ExtractJob = {
      type: 'extract',
      id: call.id,
      ...call.job,
      maxDeadline: call.maxDeadline,
      ocrPageTimeoutMs,
      ocr: this.#options.ocr !== null,
      ocrParallel: this.#options.ocr?.parallel() ?? 1,
      maxDecodedBytes,
    };
    worker.postMessage(message);
  }

  /** (Re)sets the call's timeout to fire at `deadline`. */
  #armTimer(call: Call, deadline: number): void {
    if (call.timer) clearTimeout(call.timer);
    call.deadline = deadline;
    call.timer = setTimeout(
      () => {
        const seconds = Math.round((deadline - call.started) / 100) / 10;
        this.#fail(
          call,
          new ExtractionError(
            'timeout',
            `extracting the ${formatLabel(call.job.extension)} file took longer than ${seconds} s`,
          ),
          true,
        );
      },
      Math.max(0, deadline - Date.now()),
    );
  }

  #spawn(slot: Slot): Worker {
    // Each thread has its own temp directory (exceljs spills worksheets to temp files): the thread
    // empties it after each file, and it goes with the thread, even one terminated mid-file.
    const scratch = mkdtempSync(join(tmpdir(), 'docuvault-extract-'));
    const worker = new Worker(new URL('./extraction-thread.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.#options.memoryMb },
      env: { ...process.env, TMPDIR: scratch, TMP: scratch, TEMP: scratch },
      // Libraries print warnings about damaged files (pdf.js: "Indexing all PDF objects"): not for the service's output.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    slot.worker = worker;
    slot.failure = null;
    worker.on('message', (message: FromThread) => this.#onMessage(slot, worker, message));
    worker.on('error', (error) => {
      if (slot.worker === worker) slot.failure = error;
    });
    worker.on('exit', () => {
      void rm(scratch, { recursive: true, force: true }).catch(() => {});
      if (slot.worker !== worker) return; // replaced on purpose
      slot.worker = null;
      const call = slot.call;
      if (call) this.#fail(call, crashed(call.job, slot.failure, this.#options.memoryMb), false);
      slot.failure = null;
      this.#dispatch();
    });
    return worker;
  }

  #onMessage(slot: Slot, worker: Worker, message: FromThread): void {
    const call = slot.call;
    if (slot.worker !== worker || !call || message.id !== call.id) return;
    if (message.type === 'ocr') {
      void this.#answerOcr(worker, call, message.requestId, message.image);
      return;
    }
    if (message.type === 'progress') {
      // A listener's failure is its own: it must not fail the extraction.
      try {
        call.onProgress?.({ done: message.done, total: message.total });
      } catch {}
      return;
    }
    if (message.type === 'done') this.#finish(call, () => call.resolve(message.content));
    else {
      const code = isExtractionErrorCode(message.code) ? message.code : 'corrupt';
      this.#finish(call, () => call.reject(new ExtractionError(code, message.message)));
      // The thread is on its way out: give it no other file.
      if (message.fatal) slot.worker = null;
    }
    this.#release(slot);
  }

  /**
   * The file's clock stops while its page waits for the shared OCR engine (other files' pages are
   * not its fault), bounded by its maximum; when the recognition starts the page gets the time the
   * file had left, and at least the per-page allowance, within that maximum.
   */
  async #answerOcr(worker: Worker, call: Call, requestId: number, image: GreyImage): Promise<void> {
    let answer: OcrAnswer;
    try {
      const engine = this.#options.ocr;
      if (!engine) throw new Error('OCR is not available');
      const left = call.deadline - Date.now();
      this.#armTimer(call, call.maxDeadline);
      const onStart = () => {
        if (call.ocrControl.signal.aborted) return; // the call has ended
        const now = Date.now();
        this.#armTimer(call, Math.min(now + Math.max(left, this.#options.ocrPageTimeoutMs), call.maxDeadline));
      };
      const result = await engine.recognize(image, { signal: call.ocrControl.signal, onStart });
      answer = { type: 'ocr-result', requestId, ok: true, result };
    } catch (error) {
      answer = {
        type: 'ocr-result',
        requestId,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      };
    } finally {
      // Transferred from the thread, ours alone, and read by now (the engine copies it to start).
      freeNow(image.data);
    }
    if (call.slot?.worker === worker) worker.postMessage(answer);
  }

  /** Ends a call; `kill` terminates its thread (it may be stuck in a hostile file) and starts no other until asked. */
  #fail(call: Call, error: ExtractionError, kill: boolean): void {
    const slot = call.slot;
    this.#queue = this.#queue.filter((c) => c !== call);
    this.#finish(call, () => call.reject(error));
    if (!slot) return;
    if (kill && slot.worker) {
      const worker = slot.worker;
      slot.worker = null;
      void worker.terminate();
    }
    this.#release(slot);
  }

  #finish(call: Call, settle: () => void): void {
    if (call.timer) clearTimeout(call.timer);
    call.timer = null;
    call.stopWatch?.();
    call.stopWatch = null;
    call.signal?.removeEventListener('abort', call.onAbort);
    call.ocrControl.abort();
    settle();
  }

  #release(slot: Slot): void {
    if (slot.call) slot.call.slot = null;
    slot.call = null;
    if (slot.worker) {
      // An idle thread does not keep the process alive, and exits after a while.
      slot.worker.unref();
      const worker = slot.worker;
      slot.idleTimer = setTimeout(() => {
        slot.idleTimer = null;
        if (slot.worker === worker && !slot.call) {
          slot.worker = null;
          void worker.terminate();
        }
      }, this.#options.idleMs);
      slot.idleTimer.unref();
    }
    this.#dispatch();
  }
}

function aborted(job: PoolJob): ExtractionError {
  return new ExtractionError('aborted', `extracting the ${formatLabel(job.extension)} file was aborted`);
}

function outgrown(job: PoolJob, limitBytes: number): ExtractionError {
  const mb = Math.round(limitBytes / 1024 / 1024);
  return new ExtractionError(
    'too_large',
    `the ${formatLabel(job.extension)} file needs more than ${mb} MB of decoded data in memory to extract`,
  );
}

function crashed(job: PoolJob, failure: Error | null, memoryMb: number): ExtractionError {
  const label = formatLabel(job.extension);
  if ((failure as NodeJS.ErrnoException | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new ExtractionError('too_large', `the ${label} file needs more than ${memoryMb} MB of memory to extract`, {
      cause: failure,
    });
  }
  const detail = failure ? `: ${failure.message}` : '';
  return new ExtractionError('crashed', `the extraction thread stopped while reading the ${label} file${detail}`, {
    cause: failure,
  });
}
