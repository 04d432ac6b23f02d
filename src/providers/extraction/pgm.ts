import type { GreyImage } from './thread-protocol.ts';

/** A binary PGM (P5), the cheapest image format for tesseract's reader to decode, in an ArrayBuffer of its own. */
export function pgm(image: GreyImage): Uint8Array<ArrayBuffer> {
  const header = Buffer.from(`P5\n${image.width} ${image.height}\n255\n`, 'latin1');
  const out = new Uint8Array(header.length + image.data.length);
  out.set(header);
  out.set(image.data, header.length);
  return out;
}
