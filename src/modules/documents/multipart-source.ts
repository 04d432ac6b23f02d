import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { assertBodyStillArriving } from '../../http/request-body.ts';
import { errors } from '../../lib/errors.ts';
import { MAX_UPLOAD_BYTES } from '../../providers/files/file-types.ts';

/** One part of a multipart body, as the upload services see it. */
export type UploadPart =
  | { type: 'field'; fieldname: string; value: string }
  | { type: 'file'; fieldname: string; filename: string; file: Readable & { truncated?: boolean } };

/** A multipart body being streamed: parts in arrival order, each file read before the next part arrives. */
export interface MultipartSource {
  parts(): AsyncIterable<UploadPart>;
  /** The declared body size, when the client sent one. */
  contentLength: number | null;
}

/** Parser ceilings; the per-type size limits are enforced while storing (maxBytes). */
export function multipartLimits(files: number) {
  return {
    // One byte over the largest type limit, so the store's own limit always fires first.
    fileSize: MAX_UPLOAD_BYTES + 1,
    files,
    fields: 100,
    fieldSize: 64 * 1024,
    parts: files + 100,
  };
}

/**
 * Adapts a Fastify multipart request (registered @fastify/multipart) to a MultipartSource.
 * `maxFiles` is what the parser lets through; the services decide what more means.
 */
export function multipartSourceOf(request: FastifyRequest, maxFiles: number): MultipartSource {
  if (!request.isMultipart()) throw errors.field('body', 'must be multipart/form-data');
  const declared = Number(request.headers['content-length']);
  return {
    contentLength: Number.isSafeInteger(declared) && declared >= 0 ? declared : null,
    async *parts() {
      assertBodyStillArriving(request);
      for await (const part of request.parts({ limits: multipartLimits(maxFiles) })) {
        if (part.type === 'file') {
          yield { type: 'file', fieldname: part.fieldname, filename: part.filename ?? '', file: part.file };
        } else {
          if (part.valueTruncated) throw errors.field(part.fieldname, 'is too long');
          // A part sent as application/json arrives parsed; hand it on as its JSON text.
          const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value ?? '');
          yield { type: 'field', fieldname: part.fieldname, value };
        }
      }
    },
  };
}

/**
 * When an upload is answered before its body was read to the end (a refusal mid-file), close the
 * connection after the answer instead of reading the rest of a possibly huge body.
 */
export function closeUnreadUploads(request: FastifyRequest, reply: FastifyReply): void {
  if (!request.raw.readableEnded && request.raw.socket) {
    request.raw.unpipe();
    reply.header('connection', 'close');
  }
}
