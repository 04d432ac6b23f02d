import { readFile } from 'node:fs/promises';
import WordExtractor from 'word-extractor';
import { ExtractionError } from '../extraction-error.ts';
import { CompoundFile, summaryInformation } from './cfb.ts';
import type { FormatReader } from './context.ts';
import { compactMetadata } from './context.ts';
import { normaliseText, TEXT_LIMIT_CHARS } from './text-utils.ts';

/** Word 97-2003 (.doc) through word-extractor: body, text boxes, footnotes, endnotes and comments. */
export const readDoc: FormatReader = async ({ path }) => {
  const bytes = await readFile(path);
  const container = new CompoundFile(bytes);
  if (!container.stream('WordDocument')) throw new Error('there is no WordDocument stream');
  const fib = container.stream('WordDocument') as Buffer;
  // FIB flag fEncrypted: the text is unreadable without the password.
  if (fib.length >= 12 && (fib.readUInt16LE(0x0a) & 0x0100) !== 0)
    throw new ExtractionError('unsupported', 'the DOC file is password-protected');
  const document = await new WordExtractor().extract(bytes);
  const parts = [
    document.getBody(),
    document.getTextboxes({ includeHeadersAndFooters: false, includeBody: true }),
    document.getFootnotes(),
    document.getEndnotes(),
    document.getAnnotations(),
  ];
  const whole = parts.filter((p) => p && p.trim() !== '').join('\n\n');
  const truncated = whole.length > TEXT_LIMIT_CHARS;
  const info = summaryInformation(container);
  return {
    text: normaliseText(truncated ? whole.slice(0, TEXT_LIMIT_CHARS) : whole),
    pages: null,
    metadata: compactMetadata({ ...info, truncated: truncated || undefined }),
    media: null,
  };
};
