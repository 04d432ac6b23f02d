import type { Readable } from 'node:stream';
import { DEFAULT_MAX_DECODED_MB } from '../extraction/decode-budget.ts';
import { MAX_IMAGE_PIXELS, wholeDecodeBytes, wholeDecodeKind } from './image-limits.ts';

/**
 * An uploaded image as a PNG of at most `size` pixels a side (EXIF orientation applied), made in
 * the calling thread by sharp, under extraction's limits: refused from its header when it has more
 * than MAX_IMAGE_PIXELS or libvips would decode it whole into more than the decode budget (the
 * caller shows the type icon instead).
 */
export async function imageThumbnailPng(
  input: Buffer | Readable,
  size: number,
  maxDecodedBytes = DEFAULT_MAX_DECODED_MB * 1024 * 1024,
): Promise<Buffer> {
  // Loaded on first use: libvips is large, and an API-only process may never render a thumbnail.
  const { default: sharp } = await import('sharp');
  const image = sharp({ failOn: 'error', limitInputPixels: MAX_IMAGE_PIXELS });
  if (Buffer.isBuffer(input)) image.end(input);
  else input.pipe(image);
  const meta = await image.metadata();
  const whole = wholeDecodeBytes(meta);
  if (whole !== null && whole > maxDecodedBytes) {
    throw new Error(
      `${wholeDecodeKind(meta)} of ${meta.width} x ${meta.height} pixels would decode to more than ${Math.round(maxDecodedBytes / 1024 / 1024)} MB`,
    );
  }
  return image
    .rotate()
    .resize(size, size, { fit: 'inside', withoutEnlargement: true })
    .png({ compressionLevel: 9 })
    .toBuffer();
}
