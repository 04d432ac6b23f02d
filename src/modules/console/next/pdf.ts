// pdf.js, loaded only when a PDF is previewed (its own chunk; the worker is served beside the bundle).
import { GlobalWorkerOptions, getDocument, type PDFDocumentProxy } from 'pdfjs-dist';

GlobalWorkerOptions.workerSrc = '/console/pdf.worker.min.mjs';

export async function openPdf(data: ArrayBuffer): Promise<PDFDocumentProxy> {
  return getDocument({ data: new Uint8Array(data) }).promise;
}

/** Draws one page into the canvas at the width given (sharp on high-density screens). */
export async function drawPage(
  pdf: PDFDocumentProxy,
  number: number,
  canvas: HTMLCanvasElement,
  width: number,
): Promise<void> {
  const page = await pdf.getPage(number);
  const unscaled = page.getViewport({ scale: 1 });
  const scale = width / unscaled.width;
  const ratio = window.devicePixelRatio || 1;
  const viewport = page.getViewport({ scale: scale * ratio });
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  canvas.style.width = `${Math.floor(viewport.width / ratio)}px`;
  await page.render({ canvas, viewport }).promise;
}
