import diagnostics from 'node:diagnostics_channel';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Worker as Thread } from 'node:worker_threads';
import type Tesseract from 'tesseract.js';
import { freeNow } from './free-now.ts';
import { pgm } from './pgm.ts';
import type { GreyImage, OcrResult } from './thread-protocol.ts';

/** The tesseract worker (about 100-250 MiB while it works) exits after this long without work. */
const DEFAULT_IDLE_MS = 60_000;
/**
 * A tesseract.js worker is replaced after this many images (naptha/tesseract.js#977, #900: a small
 * leak per image, and a WebAssembly heap that never shrinks), its thread gone before the next one
 * starts. Not more often: its WebAssembly heap stays at ~45 MiB page after page (2000 x 2588
 * scans, measured over 30 pages), while each replacement's start (a new isolate, the core
 * compiled, the traineddata loaded) churns the process's malloc heap. Scanned 30-page PDF, peak
 * RSS with a fixed malloc mmap threshold (`MALLOC_MMAP_THRESHOLD_=131072`; `npm start` sets 1 MiB,
 * which measured the same): 354-373 MiB replacing every 3 images, 323 every 10, 314 never.
 */
const DEFAULT_RECYCLE_AFTER = 10;

/** `onStart` is told when the recognition leaves the queue and starts. */
export interface RecognizeOptions {
  signal?: AbortSignal | undefined;
  onStart?: (() => void) | undefined;
}

/** A started tesseract.js worker, and the exit of its thread. */
interface Started {
  api: Tesseract.Worker;
  exited: Promise<void>;
}

interface Queued {
  image: GreyImage;
  signal: AbortSignal | undefined;
  onStart: (() => void) | undefined;
  resolve(result: OcrResult): void;
  reject(error: Error): void;
  onAbort(): void;
}

/**
 * The English traineddata shipped by `@tesseract.js-data/eng`, or null when it is not installed.
 * tesseract.js must be pointed at it: without a `langPath` it fetches from a CDN and hangs offline.
 */
export function englishLangPath(): string | null {
  try {
    const base = dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json'));
    const path = join(base, '4.0.0_best_int');
    return existsSync(join(path, 'eng.traineddata.gz')) ? path : null;
  } catch {
    return null;
  }
}

/** What reads the text of an image: tesseract.js (below) or the system's tesseract (native-tesseract.ts). */
export interface OcrRecognizer {
  recognize(image: GreyImage, options?: RecognizeOptions): Promise<OcrResult>;
  /** How many images it reads at once: a reader may prepare that many pages ahead. */
  parallel(): number;
  close(): Promise<void>;
}

/**
 * OCR with one tesseract.js worker for the whole process (it runs in its own thread), started on
 * first use and ended when idle. Images are recognised one at a time, in the order asked.
 */
export class OcrEngine implements OcrRecognizer {
  readonly #langPath: string;
  readonly #idleMs: number;
  readonly #recycleAfter: number;
  #worker: Promise<Started> | null = null;
  /** Images the current worker has read. */
  #workerImages = 0;
  /** The termination of the last worker: the next one starts after it, so two never coexist. */
  #retired: Promise<void> = Promise.resolve();
  #started = 0;
  #queue: Queued[] = [];
  #current: Queued | null = null;
  #idleTimer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: { langPath: string; idleMs?: number; recycleAfter?: number | undefined }) {
    this.#langPath = options.langPath;
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#recycleAfter = Math.max(1, options.recycleAfter ?? DEFAULT_RECYCLE_AFTER);
  }

  /** How many tesseract workers this engine has started. */
  get workersStarted(): number {
    return this.#started;
  }

  /** Recognises the text of an image; aborting drops it from the queue or stops the worker on it. */
  /** One worker thread, one image at a time: a reader prepares no page ahead (its memory would add to the worker's). */
  parallel(): number {
    return 1;
  }

  recognize(image: GreyImage, { signal, onStart }: RecognizeOptions = {}): Promise<OcrResult> {
    if (this.#closed) return Promise.reject(new Error('the OCR engine is closed'));
    if (signal?.aborted) return Promise.reject(new Error('OCR aborted'));
    return new Promise((resolve, reject) => {
      const item: Queued = {
        image,
        signal,
        onStart,
        resolve,
        reject,
        onAbort: () => {
          if (this.#current === item) {
            // tesseract cannot stop a recognition half-way: drop the worker, the next image starts a new one.
            this.#current = null;
            void this.#dropWorker();
            reject(new Error('OCR aborted'));
            this.#pump();
          } else {
            this.#queue = this.#queue.filter((q) => q !== item);
            reject(new Error('OCR aborted'));
          }
        },
      };
      signal?.addEventListener('abort', item.onAbort, { once: true });
      this.#queue.push(item);
      this.#pump();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const item of this.#queue) item.reject(new Error('the OCR engine is closed'));
    this.#queue = [];
    this.#current?.reject(new Error('the OCR engine is closed'));
    this.#current = null;
    await this.#dropWorker();
  }

  #pump(): void {
    if (this.#current || this.#closed) return;
    const item = this.#queue.shift();
    if (!item) {
      this.#scheduleIdle();
      return;
    }
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    this.#current = item;
    item.onStart?.();
    void this.#run(item);
  }

  async #run(item: Queued): Promise<void> {
    const workerPromise = this.#ensureWorker();
    try {
      const worker = await workerPromise;
      // Aborted while the worker started: its image may be freed already (the pool frees it).
      if (this.#current !== item) return;
      const image = pgm(item.image);
      // Given an ArrayBuffer, tesseract.js takes a view of it where it copies a Buffer (its types do
      // not list it; its loadImage accepts it); it copies it into its thread, and ours is freed once
      // the recognition is over.
      const { data } = await worker.api.recognize(image.buffer as unknown as Buffer).finally(() => freeNow(image));
      if (this.#worker === workerPromise && ++this.#workerImages >= this.#recycleAfter) void this.#dropWorker();
      if (this.#current !== item) return; // aborted meanwhile: already answered
      item.resolve({ text: data.text ?? '', confidence: Math.round(data.confidence ?? 0) });
    } catch (error) {
      if (this.#current !== item) return;
      // A failed recognition may leave the worker in a bad state: start afresh next time.
      if (this.#worker === workerPromise) void this.#dropWorker();
      item.reject(error instanceof Error ? error : new Error(String(error)));
    } finally {
      item.signal?.removeEventListener('abort', item.onAbort);
      if (this.#current === item) {
        this.#current = null;
        this.#pump();
      }
    }
  }

  #ensureWorker(): Promise<Started> {
    if (this.#worker) return this.#worker;
    this.#workerImages = 0;
    this.#started++;
    const retired = this.#retired;
    const started = (async (): Promise<Started> => {
      await retired;
      const { createWorker, OEM, PSM } = await import('tesseract.js');
      const { value: creating, exited } = withThreadExit(() =>
        createWorker('eng', OEM.LSTM_ONLY, {
          langPath: this.#langPath,
          gzip: true,
          cacheMethod: 'none',
          // Errors are answered through the recognize promise; the default handler would also throw them.
          errorHandler: () => {},
        }),
      );
      const api = await creating;
      // Whole pages: let tesseract find the columns and blocks itself. Its diagnostics
      // ("Estimating resolution as ...") go to its in-memory file system, not the service's output.
      await api.setParameters({ tessedit_pageseg_mode: PSM.AUTO, debug_file: '/dev/null' });
      return { api, exited };
    })();
    started.catch(() => {
      if (this.#worker === started) this.#worker = null;
    });
    this.#worker = started;
    return started;
  }

  async #dropWorker(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    if (!worker) return;
    // Until the thread is gone its memory (100-250 MiB) is still there: the next worker waits for it.
    const terminated = worker
      .then(async ({ api, exited }) => {
        await api.terminate();
        await exited;
      })
      .then(
        () => {},
        () => {},
      );
    this.#retired = terminated;
    await terminated;
  }

  #scheduleIdle(): void {
    if (!this.#worker || this.#idleTimer) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      if (!this.#current && this.#queue.length === 0) void this.#dropWorker();
    }, this.#idleMs);
    this.#idleTimer.unref();
  }
}

/**
 * Runs `create`, which starts one thread synchronously (tesseract.js's createWorker does), and
 * returns its result with that thread's exit: tesseract.js's terminate() does not wait for it.
 */
function withThreadExit<T>(create: () => T): { value: T; exited: Promise<void> } {
  let thread: Thread | null = null;
  const onThread = (message: unknown) => {
    thread ??= (message as { worker: Thread }).worker;
  };
  diagnostics.subscribe('worker_threads', onThread);
  let value: T;
  try {
    value = create();
  } finally {
    diagnostics.unsubscribe('worker_threads', onThread);
  }
  const started = thread as Thread | null;
  const exited = started ? new Promise<void>((resolve) => started.once('exit', () => resolve())) : Promise.resolve();
  return { value, exited };
}
