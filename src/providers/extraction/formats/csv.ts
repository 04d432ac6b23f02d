import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import Papa from 'papaparse';
import type { FormatReader } from './context.ts';
import { compactMetadata } from './context.ts';
import { detectEncoding, normaliseText, TextBuilder } from './text-utils.ts';

/** CSV, streamed through papaparse: one line per row, cells separated by tabs; the whole file is one page. */
export const readCsv: FormatReader = async ({ path }) => {
  const encoding = await encodingOf(path);
  const out = new TextBuilder();
  let rows = 0;
  let columns = 0;
  let delimiter = ',';
  const bytes = createReadStream(path, { highWaterMark: 256 * 1024 });
  // papaparse decodes Buffers only in Node's few encodings: hand it text decoded here.
  const text = Readable.from(decoded(bytes, encoding));
  try {
    await new Promise<void>((resolve, reject) => {
      Papa.parse<string[]>(text as unknown as File, {
        skipEmptyLines: 'greedy',
        step: (results, parser) => {
          const row = results.data;
          rows++;
          columns = Math.max(columns, row.length);
          if (results.meta.delimiter) delimiter = results.meta.delimiter;
          if (!out.add(`${row.map((cell) => cell.replace(/\s+/g, ' ').trim()).join('\t')}\n`)) parser.abort();
        },
        complete: () => resolve(),
        error: (error: Error) => reject(error),
      });
      text.on('error', reject);
    });
  } finally {
    bytes.destroy();
    text.destroy();
  }
  const body = normaliseText(out.toString());
  return {
    text: body,
    pages: [body],
    metadata: compactMetadata({
      encoding,
      rows,
      columns,
      delimiter: delimiter === '\t' ? 'tab' : delimiter,
      truncated: out.truncated || undefined,
    }),
    media: null,
  };
};

async function* decoded(bytes: AsyncIterable<Buffer>, encoding: string): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding);
  for await (const chunk of bytes) yield decoder.decode(chunk, { stream: true });
  yield decoder.decode();
}

async function encodingOf(path: string): Promise<string> {
  const file = await open(path, 'r');
  try {
    const sample = new Uint8Array(64 * 1024);
    const { bytesRead } = await file.read(sample, 0, sample.length, 0);
    return detectEncoding(sample.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}
