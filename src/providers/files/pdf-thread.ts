import { parentPort } from 'node:worker_threads';

// The worker-thread side of pdf-tools.ts: pdf.js (through unpdf) parses and renders here, off the
// event loop of the process that serves requests.

export type PdfRequest =
  | { id: number; op: 'text'; bytes: Uint8Array }
  | { id: number; op: 'render'; bytes: Uint8Array; width: number };

export type PdfResponse =
  | { id: number; ok: true; text?: string; pages?: number; png?: Uint8Array }
  | { id: number; ok: false; message: string };

const port = parentPort;
if (port) {
  port.on('message', async (request: PdfRequest) => {
    try {
      const { extractText, getDocumentProxy, renderPageAsImage } = await import('unpdf');
      if (request.op === 'text') {
        const pdf = await getDocumentProxy(request.bytes);
        try {
          const { totalPages, text } = await extractText(pdf, { mergePages: true });
          port.postMessage({ id: request.id, ok: true, text, pages: totalPages } satisfies PdfResponse);
        } finally {
          await pdf.destroy();
        }
      } else {
        const png = new Uint8Array(
          await renderPageAsImage(request.bytes, 1, { canvasImport: () => import('@napi-rs/canvas'), width: request.width }),
        );
        port.postMessage({ id: request.id, ok: true, png } satisfies PdfResponse, [png.buffer]);
      }
    } catch (error) {
      port.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies PdfResponse);
    }
  });
}
