import type { getDocumentProxy } from 'unpdf';
import { getResolvedPDFJS } from 'unpdf';
import type { GreyImage } from '../thread-protocol.ts';
import { sharp } from './sharp.ts';

type PdfPage = Awaited<ReturnType<Awaited<ReturnType<typeof getDocumentProxy>>['getPage']>>;
type Matrix = [number, number, number, number, number, number];

/** Decoded image data as pdf.js hands it to its canvas code (`bitmap` where OffscreenCanvas exists). */
interface PdfImage {
  width: number;
  height: number;
  kind: number;
  data?: Uint8Array | Uint8ClampedArray | null;
}

/**
 * A scanned page, read without drawing it. A scan is one image painted upright over the page and
 * nothing else; its pixels, decoded by pdf.js, are scaled straight to the size the OCR reads
 * (`scale` pixels per point, as the page would be rendered). Rendering instead costs a full-size
 * RGBA copy of the image inside the canvas and the canvas itself (about 55 MB more for a 300-dpi
 * letter page). Null when the page is anything else: the caller renders it.
 */
export async function scannedPageImage(
  page: PdfPage,
  scale: number,
  maxSize: { short: number; long: number },
): Promise<GreyImage | null> {
  if (page.rotate % 360 !== 0) return null;
  const { OPS, ImageKind, Util } = await getResolvedPDFJS();
  const { fnArray, argsArray } = await page.getOperatorList();
  const harmless = new Set<number>([
    OPS.dependency,
    OPS.beginMarkedContent,
    OPS.beginMarkedContentProps,
    OPS.endMarkedContent,
  ]);
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const saved: Matrix[] = [];
  let found: { id: string; ctm: Matrix } | null = null;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i] as number;
    const args = argsArray[i] as unknown[];
    if (fn === OPS.save) saved.push(ctm);
    else if (fn === OPS.restore) ctm = saved.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = Util.transform(ctm, args as Matrix) as Matrix;
    else if (fn === OPS.paintImageXObject && !found) found = { id: args[0] as string, ctm };
    else if (!harmless.has(fn)) return null;
  }
  if (!found) return null;
  // Upright: no rotation, shear or mirroring (PDF space has y upwards, as image rows are stored).
  const [a, b, c, d] = found.ctm;
  if (Math.abs(b) > 1e-6 || Math.abs(c) > 1e-6 || a <= 0 || d <= 0) return null;

  const objs = found.id.startsWith('g_') ? page.commonObjs : page.objs;
  const image = await new Promise<PdfImage | null>((resolve) => objs.get(found.id, resolve));
  if (!image?.data || image.width <= 0 || image.height <= 0) return null;
  const channels =
    image.kind === ImageKind.RGBA_32BPP
      ? 4
      : image.kind === ImageKind.RGB_24BPP
        ? 3
        : image.kind === ImageKind.GRAYSCALE_1BPP
          ? 1
          : 0;
  if (channels === 0) return null;

  let width = a * scale;
  let height = d * scale;
  const fit = Math.min(1, maxSize.short / Math.min(width, height), maxSize.long / Math.max(width, height));
  width = Math.max(1, Math.floor(width * fit));
  height = Math.max(1, Math.floor(height * fit));
  const pixels = channels === 1 ? unpackBits(image.data, image.width, image.height) : image.data;
  const { data, info } = await sharp(pixels, {
    raw: { width: image.width, height: image.height, channels: channels as 1 | 3 | 4 },
  })
    .flatten({ background: '#ffffff' })
    .resize({ width, height, fit: 'fill', kernel: 'lanczos3' })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`unexpected ${info.channels} channels after greyscale`);
  return {
    width: info.width,
    height: info.height,
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}

/** pdf.js's 1-bit greyscale (rows padded to whole bytes, a set bit is white) as one byte per pixel. */
function unpackBits(packed: Uint8Array | Uint8ClampedArray, width: number, height: number): Uint8Array {
  const rowBytes = (width + 7) >> 3;
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * rowBytes;
    for (let x = 0, i = y * width; x < width; x++, i++) {
      out[i] = ((packed[row + (x >> 3)] as number) >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
  }
  return out;
}
