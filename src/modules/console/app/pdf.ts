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

/** A box on the drawn page, in CSS pixels from its top left corner. */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

const fold = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');

/**
 * Where a cited passage lies on a page: the boxes of the page's text runs (pdf.js's text content)
 * that the passage covers, at the width the page was drawn. The passage is found in the page's text
 * with whitespace and case folded; a passage cut differently from the page (an excerpt made by the
 * service) is found by its longest leading part that the page holds (from 200 characters down to
 * 24). Empty when the page does not hold it.
 */
export async function passageBoxes(
  pdf: PDFDocumentProxy,
  number: number,
  width: number,
  passage: string,
): Promise<Box[]> {
  const page = await pdf.getPage(number);
  const viewport = page.getViewport({ scale: width / page.getViewport({ scale: 1 }).width });
  const items = (await page.getTextContent()).items.filter(
    (i): i is Extract<typeof i, { str: string }> => 'str' in i && i.str.length > 0,
  );
  // The page's text as one string, each run's span in it remembered; runs joined by a space.
  let text = '';
  const spans = items.map((item) => {
    const piece = text.endsWith(' ') || text === '' ? fold(item.str).trimStart() : fold(item.str);
    const start = text.length;
    text += piece;
    const end = text.length;
    if (!text.endsWith(' ')) text += ' ';
    return { item, start, end };
  });
  const wanted = fold(passage).trim();
  let from = -1;
  let length = 0;
  for (let n = Math.min(wanted.length, 200); n >= 24 && from < 0; n = Math.floor(n * 0.7)) {
    from = text.indexOf(wanted.slice(0, n));
    length = n;
  }
  if (from < 0) return [];
  // A passage longer than what was matched runs on: cover as much of it as the page holds.
  const to = Math.min(text.length, from + Math.max(length, wanted.length));
  return spans
    .filter((s) => s.end > from && s.start < to)
    .map(({ item }) => {
      const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = item.transform as number[];
      const [x, y] = viewport.convertToViewportPoint(e, f);
      const height = Math.hypot(c, d) * viewport.scale || Math.hypot(a, b) * viewport.scale;
      return { left: x, top: y - height, width: item.width * viewport.scale, height };
    });
}
