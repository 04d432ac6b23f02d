import type { Readable } from 'node:stream';
import { withBlobAsFile } from '../../providers/blobs/blob-as-file.ts';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import { type FileCategory, fileTypeRuleForExtension } from '../../providers/files/file-types.ts';
import { imageThumbnailPng } from '../../providers/files/image-thumbnail.ts';
import { pdfTools } from '../../providers/files/pdf-tools.ts';
import type { Document } from './documents.repository.ts';

/** Longest side of a thumbnail, in pixels. */
export const THUMBNAIL_SIZE = 256;

export interface Thumbnail {
  bytes: Buffer;
  contentType: 'image/png' | 'image/svg+xml';
}

const CATEGORY_COLORS: Record<FileCategory, string> = {
  pdf: '#DC2626',
  word: '#2563EB',
  text: '#4B5563',
  image: '#059669',
  spreadsheet: '#16A34A',
  powerpoint: '#EA580C',
  audio: '#7C3AED',
  video: '#DB2777',
};

/** A small generated SVG icon naming the file type: the thumbnail of types that have no picture. */
export function typeIconSvg(extension: string): Buffer {
  const rule = fileTypeRuleForExtension(extension);
  const color = rule ? CATEGORY_COLORS[rule.category] : '#6B7280';
  const label =
    extension
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')
      .slice(0, 5) || 'FILE';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${THUMBNAIL_SIZE}" height="${THUMBNAIL_SIZE}" viewBox="0 0 256 256">
<path d="M64 24h92l44 44v164H64z" fill="#F9FAFB" stroke="#D1D5DB" stroke-width="4"/>
<path d="M156 24v44h44" fill="none" stroke="#D1D5DB" stroke-width="4"/>
<rect x="40" y="132" width="152" height="56" rx="8" fill="${color}"/>
<text x="116" y="171" font-family="Helvetica, Arial, sans-serif" font-size="30" font-weight="700" fill="#FFFFFF" text-anchor="middle">${label}</text>
</svg>`;
  return Buffer.from(svg);
}

async function resizeToPng(input: Buffer | Readable): Promise<Buffer> {
  // Loaded on first use: libvips is large, and an API-only process may never render a thumbnail.
  const { default: sharp } = await import('sharp');
  const resize = sharp({ failOn: 'error' })
    .rotate()
    .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
    .png({ compressionLevel: 9 });
  if (Buffer.isBuffer(input)) return resize.end(input).toBuffer();
  input.pipe(resize);
  return resize.toBuffer();
}

/** From a temporary file, which the PDF thread reads by ranges: a large PDF is never held in memory. */
function renderPdfFirstPage(blobs: BlobStore, storageKey: string): Promise<Buffer> {
  return withBlobAsFile(blobs, storageKey, 'file.pdf', (path) =>
    pdfTools.renderFirstPageOfFile(path, THUMBNAIL_SIZE * 2),
  );
}

/**
 * Renders a document's thumbnail: images resized, the first page of a PDF, otherwise (or when the
 * picture cannot be made, e.g. a damaged file) the type icon.
 */
export async function renderThumbnail(
  blobs: BlobStore,
  doc: Pick<Document, 'extension' | 'storageKey' | 'fileSize'>,
): Promise<Thumbnail> {
  const category = fileTypeRuleForExtension(doc.extension)?.category;
  try {
    if (category === 'image') {
      // Under extraction's image limits: a decompression bomb gets the type icon.
      return {
        bytes: await imageThumbnailPng(await blobs.get(doc.storageKey), THUMBNAIL_SIZE),
        contentType: 'image/png',
      };
    }
    if (category === 'pdf') {
      const page = await renderPdfFirstPage(blobs, doc.storageKey);
      return { bytes: await resizeToPng(page), contentType: 'image/png' };
    }
  } catch {
    // A file whose picture cannot be rendered still gets a thumbnail: its type icon.
  }
  return { bytes: typeIconSvg(doc.extension), contentType: 'image/svg+xml' };
}
