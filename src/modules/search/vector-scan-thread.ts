import { parentPort } from 'node:worker_threads';
import { type ScanRequest, scanTopK } from './vector-scan.ts';

type Message = Omit<ScanRequest, 'matrix' | 'rowDoc'> & {
  id: number;
  matrix: SharedArrayBuffer;
  rowDoc: SharedArrayBuffer;
};

/** A scan thread: answers `{id, request}` with `{id, result}` (matrix and codes arrive as shared memory, not copied). */
parentPort?.on('message', (message: Message) => {
  const { id, matrix, rowDoc, ...request } = message;
  const result = scanTopK({ ...request, matrix: new Float32Array(matrix), rowDoc: new Int32Array(rowDoc) });
  parentPort?.postMessage({ id, result });
});
