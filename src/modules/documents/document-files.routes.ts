import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { ErrorBody, IdParams, standardErrors } from '../../http/common-schemas.ts';
import { type App, authOf } from '../../http/fastify-types.ts';
import { sendStoredFile } from '../../http/file-response.ts';
import type { DocumentsService } from './documents.service.ts';
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
  description:
    'Range not satisfiable (`range_not_satisfiable`): the range starts past the end; `Content-Range: bytes */<size>` gives the size.',
  headers: { 'Content-Range': { type: 'string', description: '`bytes */<size>`' } },
  content: { 'application/json': { schema: ErrorBody } },
});
export const fileHeaders = {
  ETag: { type: 'string', description: 'The quoted hex SHA-256 of the file.' },
  'Accept-Ranges': { type: 'string', description: '`bytes`' },
  'Content-Disposition': { type: 'string', description: 'attachment, with the file name (RFC 6266, `filename*`).' },
};

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
        description:
          'The original bytes. Honours `Range` (one range: 206; several: the whole file), `If-None-Match` (304) and `If-Range`.',
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
      return sendStoredFile(request, reply, document, (range) => documents.openBlob(document.storageKey, range));
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
          200: bytesIn(
            'A PNG of the file (images resized, the first page of PDFs), or an SVG icon of its type until one is rendered.',
            ['image/png', 'image/svg+xml'],
          ),
          ...standardErrors,
        },
      },
    },
    async (request, reply) => {
      const document = await documents.authorizeRead(authOf(request), request.params.id);
      reply.headers({
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      });
      if (document.thumbnailKey && document.thumbnailType) {
        reply.header('cache-control', 'private, max-age=3600');
        return reply.type(document.thumbnailType).send(await documents.openBlob(document.thumbnailKey));
      }
      // Not rendered yet: the type icon stands in, and is not cached so the real one shows up.
      return reply.header('cache-control', 'no-store').type('image/svg+xml').send(typeIconSvg(document.extension));
    },
  );
}
