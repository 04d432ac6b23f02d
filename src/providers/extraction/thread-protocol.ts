import type { ExtractedContent } from './extraction-types.ts';

// The messages between the pool (thread-pool.ts) and an extraction thread (extraction-thread.ts).

/** A greyscale image, one byte per pixel, row by row: what the OCR engine reads. */
export interface GreyImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** What OCR made of one image. */
export interface OcrResult {
  text: string;
  /** Mean word confidence, 0 to 100. */
  confidence: number;
}

/** Pool to thread: extract one file. */
export interface ExtractJob {
  type: 'extract';
  id: number;
  path: string;
  extension: string;
  mediaType: string;
  /** Epoch ms after which the pool gives up whatever happens: OCR of many pages stops before it. */
  maxDeadline: number;
  /** The time each OCR'd page is given: a page is started only if this still fits before `maxDeadline`. */
  ocrPageTimeoutMs: number;
  /** Whether OCR can be asked for (the pool has an OCR engine). */
  ocr: boolean;
  /** How many images the OCR engine reads at once: a reader may have that many pages' OCR in flight. */
  ocrParallel: number;
  /** The decode budget (decode-budget.ts): the most one stream or part may unpack to. */
  maxDecodedBytes: number;
}

/** Pool to thread: the answer to an OCR request. */
export type OcrAnswer =
  | { type: 'ocr-result'; requestId: number; ok: true; result: OcrResult }
  | { type: 'ocr-result'; requestId: number; ok: false; message: string };

export type ToThread = ExtractJob | OcrAnswer;

/** Thread to pool: the outcome of a job, or a request to OCR an image for it. */
export type FromThread =
  | { type: 'done'; id: number; content: ExtractedContent }
  /** `fatal`: the thread is exiting after this failure and takes no more work. */
  | { type: 'failed'; id: number; code: string; message: string; fatal?: boolean }
  | { type: 'ocr'; id: number; requestId: number; image: GreyImage }
  /** Pages of the file read so far (`done` of `total`): the document's processing progress. */
  | { type: 'progress'; id: number; done: number; total: number };
