import { parentPort } from 'node:worker_threads';
import { scanTopK } from './vector-scan.ts';

/** A scan thread: answers `{id, request}` with `{id, result}` (the matrix arrives as shared memory, not copied). */
parentPort?.on('message', (message: { id: number; matrix: SharedArrayBuffer; rowDoc: SharedArrayBuffer; dims: number; start: number; end: number; query: Float32Array; mask: Uint8Array | null; k: number }) => {
  const result = scanTopK({
    matrix: new Float32Array(message.matrix),
    rowDoc: new Int32Array(message.rowDoc),
    dims: message.dims,
    start: message.start,
    end: message.end,
    query: message.query,
    mask: message.mask,
    k: message.k,
  });
  parentPort?.postMessage({ id: message.id, result });
});
