import type { Metadata } from 'sharp';

// What an image may cost to decode, judged from its header before libvips decodes a pixel:
// extraction (formats/image.ts) and image thumbnails (image-thumbnail.ts) apply the same rules.

/** Images above this many pixels are refused as decompression bombs (a 10,000 x 10,000 scan passes). */
export const MAX_IMAGE_PIXELS = 100_000_000;

/** Bytes of one sample of each libvips band format. */
const SAMPLE_BYTES: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  complex: 8,
  double: 8,
  dpcomplex: 16,
};

/**
 * What an image costs in memory when libvips has to decode it whole, or null when it is read a few
 * rows at a time (or shrunk on load) on its way to a smaller size: a baseline JPEG, a plain PNG and
 * a WebP. A progressive JPEG or an interlaced PNG (measured: a 285 KB 6000 x 6000 16-bit RGBA
 * interlaced PNG, +350 MiB to make a 256-pixel thumbnail) and a TIFF (read a strip at a time, and
 * one strip may hold the whole image) are decoded whole: width x height x bands x sample bytes.
 */
export function wholeDecodeBytes(
  meta: Pick<Metadata, 'width' | 'height' | 'channels' | 'depth' | 'isProgressive' | 'format'>,
): number | null {
  if (!meta.isProgressive && meta.format !== 'tiff') return null;
  return (meta.width ?? 0) * (meta.height ?? 0) * (meta.channels ?? 4) * (SAMPLE_BYTES[meta.depth ?? 'uchar'] ?? 1);
}

/** How an image decoded whole is named in messages: "an interlaced image". */
export function wholeDecodeKind(meta: Pick<Metadata, 'format'>): string {
  return meta.format === 'tiff' ? 'an image' : meta.format === 'png' ? 'an interlaced image' : 'a progressive image';
}
