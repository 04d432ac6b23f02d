import { readFile } from 'node:fs/promises';
import JSZip from 'jszip';
import mammoth from 'mammoth';
import type { FormatReader } from './context.ts';
import { compactMetadata } from './context.ts';
import { officeProperties } from './ooxml.ts';
import { normaliseText, TEXT_LIMIT_CHARS } from './text-utils.ts';
import { guardZip } from './zip-guard.ts';

/** DOCX: mammoth's raw text (tables included), and the author, title and dates of docProps. */
export const readDocx: FormatReader = async ({ path, extension, maxDecodedBytes }) => {
  await guardZip(path, extension, { maxPartBytes: maxDecodedBytes });
  const buffer = await readFile(path);
  const zip = await JSZip.loadAsync(buffer);
  const { value } = await mammoth.extractRawText({ buffer });
  const truncated = value.length > TEXT_LIMIT_CHARS;
  const text = normaliseText(truncated ? value.slice(0, TEXT_LIMIT_CHARS) : value);
  const props = await officeProperties((name) => zip.file(name)?.async('string') ?? Promise.resolve(undefined));
  return {
    text,
    pages: null,
    metadata: compactMetadata({ ...props, truncated: truncated || undefined }),
    media: null,
  };
};
