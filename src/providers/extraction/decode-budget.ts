import { Duplex } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { ExtractionError, formatLabel } from './extraction-error.ts';

// The byte budget of decompressed output inside a parsing thread (extraction, PDF thumbnails).
//
// pdf.js inflates a FlateDecode (or BrotliDecode) stream through the global DecompressionStream,
// gathers every chunk, then copies them into one array: a 1 MB stream of zeros that inflates to
// 1 GiB costs 2 GiB of ArrayBuffers, outside the V8 heap and its limit, and pdf.js does it again
// for each pass over a page (text, then the operator list for OCR). The thread's
// DecompressionStream is replaced by one that counts what comes out; past the budget it stops
// reading (so at most the budget is held) and fails the work it belongs to at once. pdf.js is then
// left waiting for bytes that never come: the thread is retired, which frees everything it held.
//
// pdf.js decodes a few streams in JavaScript instead (LZW, RunLength, predictors, object streams,
// fonts): their buffers are ArrayBuffers of the thread, bounded by the owner's memory watch
// (memory-watch.ts). Office zips are bounded by zip-guard.ts and images by image.ts, both against
// the same budget.

/** The default decode budget in MB (PROCESSING_MAX_DECODED_MB): the most one stream or part may unpack to. */
export const DEFAULT_MAX_DECODED_MB = 64;

/**
 * The most a parsing thread may hold outside its V8 heap, for a decode budget: a decoded stream and
 * the one copy pdf.js makes of it (its chunks are joined into one array), plus the dead buffers V8
 * lets pile up before it collects them (about 64 MB of growth in external memory triggers a GC).
 */
export function bufferLimitFor(maxDecodedBytes: number): number {
  return 2 * maxDecodedBytes + 64 * 1024 * 1024;
}

/** Failed because a decoder passed the budget; the thread still holds work that will never finish. */
export class DecodeBudgetExceeded extends ExtractionError {
  constructor(message: string) {
    super('too_large', message);
    this.name = 'DecodeBudgetExceeded';
  }
}

interface Budget {
  limitBytes: number;
  /** How the file is named in messages ("the PDF file"). */
  subject: string;
  exceed(error: DecodeBudgetExceeded): void;
}

const FILTERS: Record<string, string> = {
  deflate: 'FlateDecode',
  'deflate-raw': 'FlateDecode',
  gzip: 'gzip',
  brotli: 'BrotliDecode',
};

let current: Budget | null = null;
let installed = false;

/**
 * Runs `work` with every DecompressionStream of this thread bounded to `limitBytes` of output each.
 * The answer rejects with DecodeBudgetExceeded as soon as one stream passes it; the work itself is
 * abandoned mid-way, so the caller must retire the thread. One at a time per thread.
 */
export async function withDecodeBudget<T>(limitBytes: number, extension: string, work: () => Promise<T>): Promise<T> {
  install();
  if (current) throw new Error('a decode budget is already running in this thread');
  let exceed!: (error: DecodeBudgetExceeded) => void;
  const exceeded = new Promise<never>((_, reject) => {
    exceed = reject;
  });
  current = { limitBytes, subject: `the ${formatLabel(extension)} file`, exceed };
  try {
    return await Promise.race([work(), exceeded]);
  } finally {
    current = null;
  }
}

/** A message for a decoded part over the budget: "the DOCX file has a part (...) that unpacks to more than the 64 MB allowed". */
export function overBudget(subject: string, what: string, limitBytes: number): string {
  return `${subject} has ${what} that unpacks to more than the ${megabytes(limitBytes)} allowed`;
}

export function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

/**
 * zlib's decompressors for the formats of DecompressionStream, with 1 MiB output chunks instead of
 * 16 KiB: each chunk is then its own mapping (`MALLOC_MMAP_THRESHOLD_` is 1 MiB in the start
 * scripts and the image), returned to the system when freed instead of left in malloc's heap (a
 * 64 MB stream in 16 KiB chunks stayed resident, ~100 MiB, after its thread had ended), and the
 * stream crosses to libuv's threads 64 times less often.
 */
const DECOMPRESSORS: Record<string, () => Duplex> = {
  deflate: () => createInflate({ chunkSize: CHUNK_BYTES }),
  'deflate-raw': () => createInflateRaw({ chunkSize: CHUNK_BYTES }),
  gzip: () => createGunzip({ chunkSize: CHUNK_BYTES }),
  brotli: () => createBrotliDecompress({ chunkSize: CHUNK_BYTES }),
};
const CHUNK_BYTES = 1024 * 1024;

function install(): void {
  if (installed) return;
  installed = true;
  const Native = globalThis.DecompressionStream;
  if (!Native) return;
  class BudgetedDecompressionStream {
    readonly readable: ReadableStream<Uint8Array>;
    readonly writable: WritableStream<BufferSource>;

    constructor(format: CompressionFormat) {
      const make = DECOMPRESSORS[format];
      const inner = make ? (Duplex.toWeb(make()) as unknown as DecompressionStream) : new Native(format);
      this.writable = inner.writable;
      const budget = current;
      if (!budget) {
        this.readable = inner.readable;
        return;
      }
      let total = 0;
      this.readable = inner.readable.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            total += chunk.byteLength;
            if (total <= budget.limitBytes) {
              controller.enqueue(chunk);
              return undefined;
            }
            const filter = FILTERS[format] ?? format;
            budget.exceed(
              new DecodeBudgetExceeded(
                overBudget(budget.subject, `a compressed stream (${filter})`, budget.limitBytes),
              ),
            );
            // Never settles: no more is read from the decompressor, and the reader (pdf.js, which
            // would fall back to its own unbounded decoder on an error) waits until the thread ends.
            return new Promise<void>(() => {});
          },
        }),
      );
    }
  }
  globalThis.DecompressionStream = BudgetedDecompressionStream as unknown as typeof DecompressionStream;
}
