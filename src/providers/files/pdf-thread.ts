import { parentPort, workerData } from 'node:worker_threads';
import { DecodeBudgetExceeded, withDecodeBudget } from '../extraction/decode-budget.ts';

// The worker-thread side of pdf-tools.ts: pdf.js (through unpdf) parses and renders here, off the
// event loop of the process that serves requests, one request at a time, each under the decode
// budget (a stream inflating past it fails the request, and the thread, left with pdf.js waiting
// mid-stream, ends; the next call starts a fresh one).

/** What the thread is started with. */
export interface PdfThreadData {
  maxDecodedBytes: number;
}

export type PdfRequest =
  | { id: number; op: 'text'; bytes: Uint8Array }
  | { id: number; op: 'render'; bytes: Uint8Array; width: number }
  | { id: number; op: 'render-file'; path: string; width: number };

/** What the document information dictionary says, when it says it. */
export interface PdfInfo {
  author?: string;
  title?: string;
}

export type PdfResponse =
  | { id: number; ok: true; text?: string; pages?: number; info?: PdfInfo; png?: Uint8Array }
  /** `retiring`: the thread ends after this answer and takes no more calls. */
  | { id: number; ok: false; message: string; retiring?: boolean };

const port = parentPort;
const { maxDecodedBytes } = (workerData ?? {}) as PdfThreadData;
let queue: Promise<void> = Promise.resolve();
if (port) {
  port.on('message', (request: PdfRequest) => {
    queue = queue.then(() => answer(request));
  });
}

async function answer(request: PdfRequest): Promise<void> {
  if (!port) return;
  try {
    await withDecodeBudget(maxDecodedBytes, 'pdf', () => handle(request));
  } catch (error) {
    const retiring = error instanceof DecodeBudgetExceeded;
    port.postMessage({
      id: request.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      retiring,
    } satisfies PdfResponse);
    if (retiring) process.exit(0);
  }
}

async function handle(request: PdfRequest): Promise<void> {
  if (!port) return;
  const { extractText, getDocumentProxy, getMeta, renderPageAsImage } = await import('unpdf');
  if (request.op === 'text') {
    const pdf = await getDocumentProxy(request.bytes);
    try {
      const { totalPages, text } = await extractText(pdf, { mergePages: true });
      const info = infoOf((await getMeta(pdf).catch(() => null))?.info);
      port.postMessage({ id: request.id, ok: true, text, pages: totalPages, info } satisfies PdfResponse);
    } finally {
      await pdf.destroy();
    }
  } else if (request.op === 'render-file') {
    // By ranges: the first page costs what it needs, whatever the file's size; a damaged file
    // over the rebuild limit fails (and gets the type icon) instead of being held whole.
    const { openPdf } = await import('../extraction/formats/pdf-source.ts');
    const { pdf, close } = await openPdf(request.path, { maxImageSize: 50_000_000, ranges: true });
    try {
      const png = new Uint8Array(
        await renderPageAsImage(pdf, 1, { canvasImport: () => import('@napi-rs/canvas'), width: request.width }),
      );
      port.postMessage({ id: request.id, ok: true, png } satisfies PdfResponse, [png.buffer]);
    } finally {
      await close();
    }
  } else {
    const png = new Uint8Array(
      await renderPageAsImage(request.bytes, 1, {
        canvasImport: () => import('@napi-rs/canvas'),
        width: request.width,
      }),
    );
    port.postMessage({ id: request.id, ok: true, png } satisfies PdfResponse, [png.buffer]);
  }
}

function infoOf(raw: Record<string, unknown> | undefined): PdfInfo {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 500) : undefined);
  const author = text(raw?.['Author']);
  const title = text(raw?.['Title']);
  return { ...(author ? { author } : {}), ...(title ? { title } : {}) };
}
