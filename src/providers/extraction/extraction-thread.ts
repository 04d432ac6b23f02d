import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { DecodeBudgetExceeded, withDecodeBudget } from './decode-budget.ts';
import { corrupt, ExtractionError } from './extraction-error.ts';
import { collectGarbage } from './formats/collect-garbage.ts';
import type { FormatContext, FormatReader } from './formats/context.ts';
import { scaledForOcr } from './ocr-scale.ts';
import type { ExtractJob, FromThread, GreyImage, OcrResult, ToThread } from './thread-protocol.ts';

// The thread side of thread-pool.ts: the format readers run here, one file at a time, off the
// event loop of the process that serves requests.

/** Each format's reader, loaded on first use so a thread only holds the libraries it needs. */
const READERS: Record<string, () => Promise<FormatReader>> = {
  pdf: async () => (await import('./formats/pdf.ts')).readPdf,
  docx: async () => (await import('./formats/docx.ts')).readDocx,
  doc: async () => (await import('./formats/doc.ts')).readDoc,
  txt: async () => (await import('./formats/plain-text.ts')).readPlainText,
  md: async () => (await import('./formats/plain-text.ts')).readPlainText,
  csv: async () => (await import('./formats/csv.ts')).readCsv,
  xlsx: async () => (await import('./formats/xlsx.ts')).readXlsx,
  xls: async () => (await import('./formats/xls.ts')).readXls,
  pptx: async () => (await import('./formats/pptx.ts')).readPptx,
  ppt: async () => (await import('./formats/ppt.ts')).readPpt,
  jpg: async () => (await import('./formats/image.ts')).readImage,
  jpeg: async () => (await import('./formats/image.ts')).readImage,
  png: async () => (await import('./formats/image.ts')).readImage,
  tif: async () => (await import('./formats/image.ts')).readImage,
  tiff: async () => (await import('./formats/image.ts')).readImage,
  webp: async () => (await import('./formats/image.ts')).readImage,
  mp3: async () => (await import('./formats/media.ts')).readMedia,
  wav: async () => (await import('./formats/media.ts')).readMedia,
  m4a: async () => (await import('./formats/media.ts')).readMedia,
  mp4: async () => (await import('./formats/media.ts')).readMedia,
  mov: async () => (await import('./formats/media.ts')).readMedia,
};

/** After a file at least this large, the thread collects its garbage at once. */
const COLLECT_AFTER_BYTES = 8 * 1024 * 1024;

const port = parentPort;
const ocrWaiting = new Map<number, { resolve(result: OcrResult): void; reject(error: Error): void }>();
let nextOcrId = 1;
let current: ExtractJob | null = null;

if (port) {
  port.on('message', (message: ToThread) => {
    if (message.type === 'extract') void extract(message);
    else {
      const waiting = ocrWaiting.get(message.requestId);
      ocrWaiting.delete(message.requestId);
      if (message.ok) waiting?.resolve(message.result);
      else waiting?.reject(new ExtractionError('crashed', `OCR failed: ${message.message}`));
    }
  });
  // A library failing outside its promise (a stream's error event nobody listens to) fails the file,
  // and the thread, whose state is now unknown, exits; the pool starts a fresh one.
  const fatal = (error: unknown) => {
    if (current) reply({ ...failure(current, error), fatal: true });
    process.exit(1);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}

async function extract(job: ExtractJob): Promise<void> {
  current = job;
  let outcome: FromThread;
  let size = 0;
  let retire = false;
  try {
    const load = READERS[job.extension];
    if (!load) throw new ExtractionError('unsupported', `files of type .${job.extension} cannot be extracted`);
    size = (await stat(job.path)).size;
    const context: FormatContext = {
      path: job.path,
      extension: job.extension,
      mediaType: job.mediaType,
      size,
      maxDecodedBytes: job.maxDecodedBytes,
      ocrFits: () => Date.now() + job.ocrPageTimeoutMs <= job.maxDeadline,
      ocr: job.ocr ? (image) => askOcr(job, image) : null,
      ocrParallel: Math.max(1, job.ocrParallel),
      progress: (done, total) => reply({ type: 'progress', id: job.id, done, total }),
    };
    const read = await load();
    const content = await withDecodeBudget(job.maxDecodedBytes, job.extension, () => read(context));
    outcome = { type: 'done', id: job.id, content };
  } catch (error) {
    // A decoder past the budget was left waiting mid-file: this thread ends after answering.
    retire = error instanceof DecodeBudgetExceeded;
    outcome = { ...failure(job, error), ...(retire ? { fatal: true } : {}) };
  }
  // Before answering: once answered, the next file may start here and use the directory.
  await emptyScratch();
  current = null;
  // What a large file left behind (its bytes, the parser's state) is freed now, not when V8 next
  // feels the pressure, so the thread does not hold it while idle or while reading the next file
  // (36 MB PDF: 167 MiB after it, 132 with this). Small files leave little, and a full collection
  // costs ~15 ms: more than many of them take.
  if (retire) {
    reply(outcome);
    process.exit(0);
  }
  if (size >= COLLECT_AFTER_BYTES) collectGarbage();
  reply(outcome);
}

/** The thread's temp directory (its own, set by the pool) holds only what the last file left: remove it. */
async function emptyScratch(): Promise<void> {
  const dir = tmpdir();
  if (!/docuvault-extract-/.test(dir)) return;
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.map((name) => rm(join(dir, name), { recursive: true, force: true })));
}

async function askOcr(job: ExtractJob, original: GreyImage): Promise<OcrResult> {
  // Shrunk here, by the text's size, for whichever engine reads it: this thread has the time, the pool's has the requests.
  const image = await scaledForOcr(original);
  const requestId = nextOcrId++;
  return new Promise((resolve, reject) => {
    ocrWaiting.set(requestId, { resolve, reject });
    // A copy of our own (sharp's buffers live outside V8 and cannot be transferred) moves to the pool's thread.
    const owned = new Uint8Array(image.data);
    port?.postMessage({ type: 'ocr', id: job.id, requestId, image: { ...image, data: owned } } satisfies FromThread, [
      owned.buffer as ArrayBuffer,
    ]);
  });
}

function failure(job: ExtractJob, error: unknown): Extract<FromThread, { type: 'failed' }> {
  if (error instanceof ExtractionError) return { type: 'failed', id: job.id, code: error.code, message: error.message };
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
    return { type: 'failed', id: job.id, code: 'unreadable', message: `the file to extract cannot be read (${code})` };
  }
  // Libraries signal damaged input with plain errors: name the format and keep their words.
  const detail = error instanceof Error ? error.message : String(error);
  const failed = corrupt(job.extension, detail.split('\n')[0]?.slice(0, 300) || 'unreadable content');
  return { type: 'failed', id: job.id, code: failed.code, message: failed.message };
}

function reply(message: FromThread): void {
  port?.postMessage(message);
}
