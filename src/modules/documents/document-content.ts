import type { Readable } from 'node:stream';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import { fileTypeRuleForExtension } from '../../providers/files/file-types.ts';
import type { Document } from './documents.repository.ts';

type StoredDocument = Pick<Document, 'extension' | 'storageKey'>;

export function isPlainText(doc: Pick<StoredDocument, 'extension'>): boolean {
  return fileTypeRuleForExtension(doc.extension)?.content === 'text';
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The text of a plain-text document (txt, md, csv), or null for other types. */
export async function readTextContent(blobs: BlobStore, doc: StoredDocument): Promise<string | null> {
  if (!isPlainText(doc)) return null;
  const bytes = await readAll(await blobs.get(doc.storageKey));
  // A leading BOM is an encoding marker, not text.
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}
