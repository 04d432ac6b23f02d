import type { Worker } from 'node:worker_threads';

/** How often a working thread's memory is sampled. */
export const MEMORY_WATCH_INTERVAL_MS = 20;

/**
 * Watches the memory a parsing thread holds outside its V8 heap while it works, and calls
 * `onExceeded` (once) when it passes `limitBytes`. The heap has its own limit (`resourceLimits`);
 * this bounds the rest: ArrayBuffers (decoded streams, pixel buffers, what pdf.js's own decoders
 * grow) and the memory native modules report to V8 (zlib, canvases). V8 counts an ArrayBuffer
 * when it is allocated, before its pages are touched, so a decoder that doubles its buffer is seen
 * at the doubling. `worker.getHeapStatistics()` is answered by the thread even in the middle of a
 * synchronous loop. Answers a function that stops watching; the owner calls it when the work ends
 * (the thread's `exit` included).
 */
export function watchThreadMemory(worker: Worker, limitBytes: number, onExceeded: (bytes: number) => void): () => void {
  let stopped = false;
  let sampling = false;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const timer = setInterval(() => {
    if (sampling || stopped) return;
    sampling = true;
    worker.getHeapStatistics().then(
      (stats) => {
        sampling = false;
        const outside = (stats as { external_memory?: number }).external_memory ?? 0;
        if (stopped || outside <= limitBytes) return;
        stop();
        onExceeded(outside);
      },
      // Not running yet (still starting) or already gone: the owner stops watching on `exit`.
      () => {
        sampling = false;
      },
    );
  }, MEMORY_WATCH_INTERVAL_MS);
  timer.unref();
  return stop;
}
