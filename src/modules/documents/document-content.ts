import type { Readable } from 'node:stream';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import { fileTypeRuleFor } from '../../providers/files/file-types.ts';
import { pdfTools } from '../../providers/files/pdf-tools.ts';

/** PDFs are parsed in memory (pdf.js needs the whole file): larger ones wait for the full pipeline. */
export const MAX_PDF_EXTRACT_BYTES = 64 * 1024 * 1024;

interface StoredDocument {
  extension: string;
  storage_key: string;
  file_size: number;
}

export function isPlainText(doc: Pick<StoredDocument, 'extension'>): boolean {
  return fileTypeRuleFor(`x.${doc.extension}`)?.content === 'text';
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The text of a plain-text document (txt, md, csv), or null for other types. */
export async function readTextContent(blobs: BlobStore, doc: StoredDocument): Promise<string | null> {
  if (!isPlainText(doc)) return null;
  const bytes = await readAll(await blobs.get(doc.storage_key));
  // A leading BOM is an encoding marker, not text.
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

/** Text and page count of a PDF up to MAX_PDF_EXTRACT_BYTES, or null for other types and larger files. */
export async function extractPdfText(
  blobs: BlobStore,
  doc: StoredDocument,
): Promise<{ text: string; pages: number; info: { author?: string; title?: string } } | null> {
  if (doc.extension !== 'pdf' || Number(doc.file_size) > MAX_PDF_EXTRACT_BYTES) return null;
  const bytes = await readAll(await blobs.get(doc.storage_key));
  return pdfTools.extractText(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}
