import { Worker } from 'node:worker_threads';
import { type CodeView, SCAN_SLOTS } from './vector-codes.ts';
import { mergeResults, type ScanResult, scanTopK } from './vector-scan.ts';

/** Below this many multiply-adds (~10k vectors of 384 dims) a scan runs inline: messaging would cost more. */
const INLINE_WORK = 4_000_000;

/** A matrix to scan: shared memory so threads read it without a copy. */
export interface ScanTarget {
  matrix: SharedArrayBuffer;
  rowDoc: SharedArrayBuffer;
  dims: number;
  rows: number;
  /** The rows' int8 codes (a shared WebAssembly memory), or null: exact-only scan. */
  codes: CodeView | null;
}

interface Pending {
  resolve(result: ScanResult): void;
  reject(error: Error): void;
}

/**
 * Splits large scans across a few threads (each takes a range of rows), so a 100k-document search
 * neither blocks the event loop nor waits on one core. Threads start on first use and are unref'd.
 * Each thread keeps one scratch slot of the code memories for its life (the main thread has slot 0):
 * a thread runs one scan at a time, so no two scans share a slot.
 */
export class ScanPool {
  readonly #size: number;
  #workers: Worker[] = [];
  #pending = new Map<number, Pending>();
  /** The calls each thread is running. */
  #running = new Map<Worker, Set<number>>();
  /** Each live thread's scratch slot (vector-codes.ts). */
  #slots = new Map<Worker, number>();
  #nextId = 1;

  constructor(threads: number) {
    this.#size = Math.max(0, Math.min(threads, SCAN_SLOTS - 1));
  }

  async scan(target: ScanTarget, query: Float32Array, mask: Uint8Array | null, k: number): Promise<ScanResult> {
    if (this.#size === 0 || target.rows * target.dims < INLINE_WORK) {
      const { codes, dims, rows } = target;
      return scanTopK({
        matrix: new Float32Array(target.matrix),
        rowDoc: new Int32Array(target.rowDoc),
        dims,
        start: 0,
        end: rows,
        query,
        mask,
        k,
        codes,
        slot: 0,
      });
    }
    const workers = this.#ensureWorkers();
    const per = Math.ceil(target.rows / workers.length);
    const parts = await Promise.all(
      workers.map((worker, i) => {
        const start = i * per;
        const end = Math.min(target.rows, start + per);
        const slot = this.#slots.get(worker)!;
        return this.#call(worker, {
          matrix: target.matrix,
          rowDoc: target.rowDoc,
          dims: target.dims,
          start,
          end,
          query,
          mask,
          k,
          codes: target.codes,
          slot,
        });
      }),
    );
    return mergeResults(parts, k);
  }

  async close(): Promise<void> {
    const workers = this.#workers;
    this.#workers = [];
    await Promise.all(workers.map((w) => w.terminate()));
  }

  #ensureWorkers(): Worker[] {
    while (this.#workers.length < this.#size) {
      const worker = new Worker(new URL('./vector-scan-thread.ts', import.meta.url));
      worker.unref();
      this.#running.set(worker, new Set());
      // A replacement takes the slot of the thread that died (a survivor may still be using its own).
      const taken = new Set(this.#slots.values());
      let slot = 1;
      while (taken.has(slot)) slot++;
      this.#slots.set(worker, slot);
      worker.on('message', (m: { id: number; result: ScanResult }) => {
        const pending = this.#pending.get(m.id);
        this.#pending.delete(m.id);
        this.#running.get(worker)?.delete(m.id);
        pending?.resolve(m.result);
      });
      worker.on('error', (error) => this.#fail(worker, error));
      worker.on('exit', () => this.#fail(worker, new Error('a vector scan thread exited')));
      this.#workers.push(worker);
    }
    return this.#workers;
  }

  #call(worker: Worker, message: Record<string, unknown>): Promise<ScanResult> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#running.get(worker)?.add(id);
      worker.postMessage({ id, ...message });
    });
  }

  // A thread that died fails what it was running and is replaced on the next scan.
  #fail(worker: Worker, error: Error): void {
    this.#workers = this.#workers.filter((w) => w !== worker);
    this.#slots.delete(worker);
    const ids = this.#running.get(worker) ?? new Set<number>();
    this.#running.delete(worker);
    for (const id of ids) {
      const pending = this.#pending.get(id);
      this.#pending.delete(id);
      pending?.reject(error);
    }
  }
}
