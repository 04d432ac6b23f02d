import { readFile } from 'node:fs/promises';
import type { FormatReader } from './context.ts';
import { compactMetadata } from './context.ts';
import { decodeText, normaliseText, TEXT_LIMIT_CHARS } from './text-utils.ts';

/** TXT and Markdown: the bytes decoded in their own encoding (BOM, UTF-8, or chardet's guess). */
export const readPlainText: FormatReader = async ({ path }) => {
  const bytes = await readFile(path);
  const { text: decoded, encoding } = decodeText(bytes);
  const truncated = decoded.length > TEXT_LIMIT_CHARS;
  const text = normaliseText(truncated ? decoded.slice(0, TEXT_LIMIT_CHARS) : decoded);
  return {
    text,
    pages: null,
    metadata: compactMetadata({
      encoding,
      lines: text === '' ? 0 : text.split('\n').length,
      truncated: truncated || undefined,
    }),
    media: null,
  };
};
