import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { DocumentsService } from './documents.service.ts';
import { ErrorBody, IdParams, standardErrors } from '../../http/common-schemas.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import { contentDisposition } from '../../providers/files/filenames.ts';
import { decideRange, ifRangeAllows, noneMatch } from '../../http/http-range.ts';
import { typeIconSvg } from './thumbnails.ts';

const BinarySchema = { type: 'string', format: 'binary' };
/** An answer of bytes in any of `mediaTypes`, as the OpenAPI document shows it (nothing is serialised). */
export const bytesIn = (description: string, mediaTypes: string[], headers?: Record<string, unknown>) =>
  Type.Unsafe<Readable | Buffer | string>({
    description,
    ...(headers ? { headers } : {}),
    content: Object.fromEntries(mediaTypes.map((t) => [t, { schema: BinarySchema }])),
  });
export const NotModified = Type.Unsafe<undefined>({ description: 'Not modified: the If-None-Match ETag is current.' });
export const RangeNotSatisfiable = Type.Unsafe<Record<string, unknown>>({
  description: 'Range not satisfiable (`range_not_satisfiable`): the range starts past the end; `Content-Range: bytes */<size>` gives the size.',
  headers: { 'Content-Range': { type: 'string', description: '`bytes */<size>`' } },
  content: { 'application/json': { schema: ErrorBody } },
});
export const fileHeaders = {
  ETag: { type: 'string', description: 'The quoted hex SHA-256 of the file.' },
  'Accept-Ranges': { type: 'string', description: '`bytes`' },
  'Content-Disposition': { type: 'string', description: 'attachment, with the file name (RFC 6266, `filename*`).' },
};

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** Spec + docs/api-decisions.md §6: downloads with validators and ranges; thumbnails. */
export function documentFileRoutes(app: App, s: { documents: DocumentsService }): void {
  const tags = ['documents'];
  const documents = s.documents;

  app.get(
    '/documents/:id/download',
    {
      schema: {
        tags,
        summary: "Download a document's original file",
        params: IdParams,
        description: 'The original bytes. Honours `Range` (one range: 206; several: the whole file), `If-None-Match` (304) and `If-Range`.',
        response: {
          200: bytesIn('The whole file, in its own media type.', ['*/*'], fileHeaders),
          206: bytesIn('One byte range of the file.', ['*/*'], {
            ...fileHeaders,
            'Content-Range': { type: 'string', description: '`bytes <first>-<last>/<size>`' },
          }),
          304: NotModified,
          416: RangeNotSatisfiable,
          ...standardErrors,
        },
      },
    },
    async (request, reply) => {
      const document = await documents.authorizeRead(authOf(request), request.params.id);
      const size = document.fileSize;
      const etag = `"${document.sha256}"`;
      reply.headers({
        etag,
        'accept-ranges': 'bytes',
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-cache',
        'content-disposition': contentDisposition(document.filename),
      });
      if (noneMatch(headerText(request.headers['if-none-match']), etag)) return reply.status(304).send(undefined);
      const header = ifRangeAllows(headerText(request.headers['if-range']), etag) ? request.headers.range : undefined;
      const range = decideRange(header, size);
      if (range.kind === 'unsatisfiable') {
        return reply.status(416).header('content-range', `bytes */${size}`).type('application/json; charset=utf-8').send({
          error: 'range_not_satisfiable',
          code: 'RANGE_NOT_SATISFIABLE',
          message: `The range is outside the ${size} bytes of the file`,
        });
      }
      // Text is stored only when it is valid UTF-8 (file-types.ts), so the charset is known: say it.
      reply.type(document.fileType.startsWith('text/') ? `${document.fileType}; charset=utf-8` : document.fileType);
      if (range.kind === 'partial') {
        const stream = await documents.openBlob(document.storageKey, { start: range.start, end: range.end });
        return reply
          .status(206)
          .headers({ 'content-range': `bytes ${range.start}-${range.end}/${size}`, 'content-length': range.end - range.start + 1 })
          .send(stream);
      }
      const stream = await documents.openBlob(document.storageKey);
      return reply.header('content-length', size).send(stream);
    },
  );

  app.get(
    '/documents/:id/thumbnail',
    {
      schema: {
        tags,
        summary: "Get a document's thumbnail",
        params: IdParams,
        description: 'A small image: images resized, the first page of PDFs, otherwise an icon of the file type.',
        response: {
          200: bytesIn('A PNG of the file (images resized, the first page of PDFs), or an SVG icon of its type until one is rendered.', ['image/png', 'image/svg+xml']),
          ...standardErrors,
        },
      },
    },
    async (request, reply) => {
      const document = await documents.authorizeRead(authOf(request), request.params.id);
      reply.headers({ 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" });
      if (document.thumbnailKey && document.thumbnailType) {
        reply.header('cache-control', 'private, max-age=3600');
        return reply.type(document.thumbnailType).send(await documents.openBlob(document.thumbnailKey));
      }
      // Not rendered yet: the type icon stands in, and is not cached so the real one shows up.
      return reply.header('cache-control', 'no-store').type('image/svg+xml').send(typeIconSvg(document.extension));
    },
  );
}
