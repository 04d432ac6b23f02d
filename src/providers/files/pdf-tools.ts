import { Worker } from 'node:worker_threads';
import type { PdfInfo, PdfRequest, PdfResponse } from './pdf-thread.ts';

/** A call to the PDF thread taking longer than this fails, and the thread is replaced. */
const CALL_TIMEOUT_MS = 60_000;
/** The thread (pdf.js and a canvas: about 55 MiB) exits after this long without work; the next call starts a new one. */
const DEFAULT_IDLE_MS = 30_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface Pending {
  resolve(response: PdfResponse & { ok: true }): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * PDF text extraction and first-page rendering in one worker thread (started on first use; it keeps
 * the process alive only while a call is waiting), so parsing a large or hostile PDF never stalls
 * request handling.
 */
export class PdfTools {
  #worker: Worker | null = null;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #idleMs: number;
  #idleTimer: NodeJS.Timeout | null = null;

  constructor(options: { idleMs?: number } = {}) {
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
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
        void this.#restart();
      }, CALL_TIMEOUT_MS);
      timer.unref();
      this.#pending.set(id, { resolve, reject, timer });
      this.#refWhileBusy();
      // The bytes are copied into the thread; the caller keeps its buffer.
      worker.postMessage({ ...request, id });
    });
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./pdf-thread.ts', import.meta.url));
    worker.on('message', (response: PdfResponse) => {
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
    if (!this.#worker) return;
    if (this.#pending.size > 0) {
      this.#worker.ref();
      return;
    }
    this.#worker.unref();
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      if (this.#pending.size === 0) void this.close();
    }, this.#idleMs);
    this.#idleTimer.unref();
  }

  async #restart(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#failAll(new Error('the PDF thread was restarted'));
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
