import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ByteRange } from '../providers/blobs/blob-store.ts';
import { contentDisposition } from '../providers/files/filenames.ts';
import { decideRange, ifRangeAllows, noneMatch } from './http-range.ts';

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Answers a stored file as the downloads do (docs/api-decisions.md §6): the SHA-256 as a strong
 * ETag, `If-None-Match` (304), `Range` with `If-Range` (206, 416), the file's media type (text
 * with its charset) and an attachment disposition. `open` reads the bytes, or a range of them.
 */
export async function sendStoredFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: { filename: string; fileType: string; fileSize: number; sha256: string },
  open: (range?: ByteRange) => Promise<Readable>,
): Promise<FastifyReply> {
  const size = file.fileSize;
  const etag = `"${file.sha256}"`;
  reply.headers({
    etag,
    'accept-ranges': 'bytes',
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-cache',
    'content-disposition': contentDisposition(file.filename),
  });
  if (noneMatch(headerText(request.headers['if-none-match']), etag)) return reply.status(304).send(undefined);
  const header = ifRangeAllows(headerText(request.headers['if-range']), etag) ? request.headers.range : undefined;
  const range = decideRange(header, size);
  if (range.kind === 'unsatisfiable') {
    return reply
      .status(416)
      .header('content-range', `bytes */${size}`)
      .type('application/json; charset=utf-8')
      .send({
        error: 'range_not_satisfiable',
        code: 'RANGE_NOT_SATISFIABLE',
        message: `The range is outside the ${size} bytes of the file`,
      });
  }
  // Text is stored only when it is valid UTF-8 (file-types.ts), so the charset is known: say it.
  reply.type(file.fileType.startsWith('text/') ? `${file.fileType}; charset=utf-8` : file.fileType);
  if (range.kind === 'partial') {
    const stream = await open({ start: range.start, end: range.end });
    return reply
      .status(206)
      .headers({
        'content-range': `bytes ${range.start}-${range.end}/${size}`,
        'content-length': range.end - range.start + 1,
      })
      .send(stream);
  }
  return reply.header('content-length', size).send(await open());
}
