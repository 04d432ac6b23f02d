import { Worker } from 'node:worker_threads';
import { bufferLimitFor } from '../extraction/decode-budget.ts';
import { watchThreadMemory } from '../extraction/memory-watch.ts';
import type { PdfInfo, PdfRequest, PdfResponse, PdfThreadData } from './pdf-thread.ts';

/** A call to the PDF thread taking longer than this fails, and the thread is replaced. */
const CALL_TIMEOUT_MS = 60_000;
/** The thread (pdf.js and a canvas: about 55 MiB) exits after this long without work; the next call starts a new one. */
const DEFAULT_IDLE_MS = 30_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface Pending {
  resolve(response: PdfResponse & { ok: true }): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** The thread it was sent to, and what was sent (sent again if that thread retires before answering). */
  worker: Worker;
  request: PdfRequest;
}

const MB = 1024 * 1024;

export interface PdfToolsOptions {
  idleMs?: number;
  /**
   * The decode budget of the thread (decode-budget.ts); default 32 MB, half the extraction's: a
   * thumbnail needs the first page only, and a page it cannot draw gets the type icon.
   */
  maxDecodedMb?: number;
  /** V8 heap limit of the thread; default 256 MB. */
  memoryMb?: number;
}

/**
 * PDF text extraction and first-page rendering in one worker thread (started on first use; it keeps
 * the process alive only while a call is waiting), so parsing a large or hostile PDF never stalls
 * request handling. The thread runs under the same guards as extraction: a heap limit, the decode
 * budget, and at most twice that outside its heap (watched while a call waits): a hostile file fails
 * its call and the thread is replaced.
 */
export class PdfTools {
  #worker: Worker | null = null;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #idleMs: number;
  #idleTimer: NodeJS.Timeout | null = null;
  #maxDecodedBytes: number;
  #memoryMb: number;
  #stopWatch: (() => void) | null = null;

  constructor(options: PdfToolsOptions = {}) {
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#maxDecodedBytes = (options.maxDecodedMb ?? 32) * MB;
    this.#memoryMb = options.memoryMb ?? 256;
  }

  /** Whether the thread is running now. */
  get running(): boolean {
    return this.#worker !== null;
  }

  /** The text, page count and document information (author, title) of a PDF. */
  async extractText(bytes: Uint8Array): Promise<{ text: string; pages: number; info: PdfInfo }> {
    const response = await this.#call({ op: 'text', bytes });
    return { text: response.text ?? '', pages: response.pages ?? 0, info: response.info ?? {} };
  }

  /** The first page as PNG, `width` pixels wide. */
  async renderFirstPage(bytes: Uint8Array, width: number): Promise<Buffer> {
    const response = await this.#call({ op: 'render', bytes, width });
    return Buffer.from(response.png ?? new Uint8Array());
  }

  /** The first page of the PDF file at `path` as PNG, `width` pixels wide; the thread reads only what that page needs. */
  async renderFirstPageOfFile(path: string, width: number): Promise<Buffer> {
    const response = await this.#call({ op: 'render-file', path, width });
    return Buffer.from(response.png ?? new Uint8Array());
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#failAll(new Error('the PDF thread was closed'));
    await worker?.terminate();
  }

  #call(request: DistributiveOmit<PdfRequest, 'id'>): Promise<PdfResponse & { ok: true }> {
    const worker = this.#ensureWorker();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`PDF processing took longer than ${CALL_TIMEOUT_MS} ms`));
        // The thread may be stuck in a hostile file: replace it.
        void this.#restart('the PDF thread was restarted');
      }, CALL_TIMEOUT_MS);
      timer.unref();
      const message = { ...request, id } as PdfRequest;
      this.#pending.set(id, { resolve, reject, timer, worker, request: message });
      this.#refWhileBusy();
      // The bytes are copied into the thread; the caller keeps its buffer.
      worker.postMessage(message);
    });
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const workerData: PdfThreadData = { maxDecodedBytes: this.#maxDecodedBytes };
    const worker = new Worker(new URL('./pdf-thread.ts', import.meta.url), {
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: this.#memoryMb },
    });
    worker.on('message', (response: PdfResponse) => {
      if (!response.ok && response.retiring && this.#worker === worker) this.#retire(worker);
      const pending = this.#pending.get(response.id);
      if (!pending) return;
      this.#pending.delete(response.id);
      clearTimeout(pending.timer);
      this.#refWhileBusy();
      if (response.ok) pending.resolve(response);
      else pending.reject(new Error(response.message));
    });
    worker.on('error', (error) => this.#failAll(error));
    worker.on('exit', () => {
      // A thread closed or replaced on purpose is no longer current: its successor's calls are not its own.
      if (this.#worker !== worker) return;
      this.#worker = null;
      this.#failAll(new Error('the PDF thread exited'));
    });
    this.#worker = worker;
    return worker;
  }

  /** The thread keeps the process alive only while a call waits on it, and exits when idle for long. */
  #refWhileBusy(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    const worker = this.#worker;
    if (!worker || this.#pending.size === 0) {
      this.#stopWatch?.();
      this.#stopWatch = null;
    }
    if (!worker) return;
    if (this.#pending.size > 0) {
      worker.ref();
      const limit = bufferLimitFor(this.#maxDecodedBytes);
      this.#stopWatch ??= watchThreadMemory(worker, limit, () => {
        this.#stopWatch = null;
        void this.#restart(`the PDF needs more than ${Math.round(limit / MB)} MB of decoded data in memory`);
      });
      return;
    }
    worker.unref();
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      if (this.#pending.size === 0) void this.close();
    }, this.#idleMs);
    this.#idleTimer.unref();
  }

  /**
   * The thread ends after its last answer (a file passed the decode budget and left pdf.js waiting):
   * calls from now on go to a new thread, and those it had queued are sent there once it is gone.
   */
  #retire(worker: Worker): void {
    this.#worker = null;
    worker.once('exit', () => {
      const orphans = [...this.#pending.values()].filter((p) => p.worker === worker);
      if (orphans.length === 0 || this.#pending.size === 0) return;
      const next = this.#ensureWorker();
      for (const pending of orphans) {
        pending.worker = next;
        next.postMessage(pending.request);
      }
      this.#refWhileBusy();
    });
  }

  async #restart(reason: string): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#failAll(new Error(reason));
    await worker?.terminate();
  }

  #failAll(error: Error): void {
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.#pending.delete(id);
    }
    this.#refWhileBusy();
  }
}

/** The process-wide PDF thread. */
export const pdfTools = new PdfTools();
