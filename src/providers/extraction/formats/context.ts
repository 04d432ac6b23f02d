import type { ExtractedContent } from '../extractor.ts';
import type { GreyImage, OcrResult } from '../thread-protocol.ts';

/** What a format reader gets: the file and the thread's services. */
export interface FormatContext {
  path: string;
  /** Lower-case extension, as in file-types.ts. */
  extension: string;
  mediaType: string;
  /** Size of the file in bytes. */
  size: number;
  /** The most one decoded part (a PDF stream, a zip entry read whole, an image decoded whole) may unpack to. */
  maxDecodedBytes: number;
  /** Whether one more page's OCR fits in the time this file may still take; pages that do not are skipped. */
  ocrFits(): boolean;
  /** Recognises an image's text, or null when OCR is not available. */
  ocr: ((image: GreyImage) => Promise<OcrResult>) | null;
  /** How many pages' OCR may be in flight at once (1: each page waits for the one before). */
  ocrParallel: number;
  /** Says how many of the file's pages are read (each page once its text is known, OCR'd or not). */
  progress(done: number, total: number): void;
}

/** Reads one format: the text and what the file says about itself. */
export type FormatReader = (context: FormatContext) => Promise<ExtractedContent>;

/** Metadata without the entries that have no value. */
export function compactMetadata(
  entries: Record<string, string | number | boolean | null | undefined>,
): ExtractedContent['metadata'] {
  const out: ExtractedContent['metadata'] = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value === null || value === undefined || value === '' || (typeof value === 'number' && !Number.isFinite(value)))
      continue;
    out[key] = typeof value === 'string' ? value.trim().slice(0, 1000) : value;
  }
  return out;
}

/** An ISO 8601 timestamp for a date, or undefined when it is not a valid one. */
export function isoDate(value: Date | string | number | null | undefined): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const date = value instanceof Date ? value : new Date(value);
  const time = date.getTime();
  // Dates before 1900 or far ahead are placeholders (FILETIME zero, "0000-00-00"), not facts.
  if (Number.isNaN(time) || time < Date.UTC(1900, 0, 1) || time > Date.UTC(2200, 0, 1)) return undefined;
  return date.toISOString();
}
