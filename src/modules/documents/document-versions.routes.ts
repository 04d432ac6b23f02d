import multipart from '@fastify/multipart';
import { ErrorBody, IdParams, standardErrors } from '../../http/common-schemas.ts';
import { type App, authOf } from '../../http/fastify-types.ts';
import { sendStoredFile } from '../../http/file-response.ts';
import { setRequestFingerprint } from '../../http/idempotency.ts';
import { bytesIn, fileHeaders, NotModified, RangeNotSatisfiable } from './document-files.routes.ts';
import { presentVersion, presentVersionList, presentVersionUpload } from './document-versions.presenter.ts';
import {
  DocumentVersionList,
  VersionMultipartBody,
  VersionParams,
  VersionRestoreAnswer,
  VersionUploadAnswer,
} from './document-versions.schemas.ts';
import type { DocumentVersionsService } from './document-versions.service.ts';
import { closeUnreadUploads, multipartLimits, multipartSourceOf } from './multipart-source.ts';

/** Document versions (docs/versions.md): upload a new version, list, download one, restore one. */
export async function documentVersionRoutes(app: App, s: { versions: DocumentVersionsService }): Promise<void> {
  const tags = ['documents'];
  const versions = s.versions;

  // Encapsulated, as the upload routes are: only this route parses multipart, as a stream.
  await app.register(async (scope: App) => {
    await scope.register(multipart, { limits: multipartLimits(2) });
    scope.addHook('onSend', async (request, reply) => closeUnreadUploads(request, reply));
    scope.post(
      '/documents/:id/versions',
      {
        config: { rateLimit: 'document_upload' },
        schema: {
          tags,
          operationId: 'uploadDocumentVersion',
          summary: 'Upload a new version of a document',
          description:
            'multipart/form-data, streamed, with the limits and checks of an upload: `file` (required), `filename`. The file becomes the current version (201) and the document is processed again; earlier versions are kept. A file identical (SHA-256) to the current version adds nothing and answers the current version (200, `created: false`). Needs edit access to the document. Honours `Idempotency-Key`.',
          params: IdParams,
          consumes: ['multipart/form-data'],
          documentedBody: VersionMultipartBody,
          response: {
            200: VersionUploadAnswer,
            201: VersionUploadAnswer,
            ...standardErrors,
            413: ErrorBody,
            415: ErrorBody,
          },
        },
      },
      async (request, reply) => {
        const made = await versions.upload(authOf(request), request.params.id, multipartSourceOf(request, 2), (value) =>
          setRequestFingerprint(request, value),
        );
        return reply.status(made.created ? 201 : 200).send(presentVersionUpload(made));
      },
    );
  });

  app.get(
    '/documents/:id/versions',
    {
      schema: {
        tags,
        operationId: 'listDocumentVersions',
        summary: "List a document's versions",
        description:
          'Every version, oldest first, with the current one marked. A document never given a new version has one: version 1.',
        params: IdParams,
        response: { 200: DocumentVersionList, ...standardErrors },
      },
    },
    async (request) => {
      const list = await versions.list(authOf(request), request.params.id);
      return presentVersionList(request.params.id, list);
    },
  );

  app.get(
    '/documents/:id/versions/:number/download',
    {
      schema: {
        tags,
        operationId: 'downloadDocumentVersion',
        summary: 'Download one version of a document',
        description:
          'The bytes of that version, as the document download answers them: `Range` (206), `If-None-Match` (304), `If-Range`; the ETag is the quoted SHA-256 of the version.',
        params: VersionParams,
        response: {
          200: bytesIn('The whole file of the version, in its own media type.', ['*/*'], fileHeaders),
          206: bytesIn('One byte range of the version.', ['*/*'], {
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
      const version = await versions.get(authOf(request), request.params.id, Number(request.params.number));
      return sendStoredFile(request, reply, version, (range) => versions.openBlob(version.storageKey, range));
    },
  );

  app.post(
    '/documents/:id/versions/:number/restore',
    {
      schema: {
        tags,
        operationId: 'restoreDocumentVersion',
        summary: 'Make an earlier version current again',
        description:
          'Marks version `number` current (no copy is made: numbers stay as they are and the next upload takes the next free number); the document takes its file and is processed again. 200 with `restored: false` when it already was current. Needs edit access.',
        params: VersionParams,
        response: { 200: VersionRestoreAnswer, ...standardErrors },
      },
    },
    async (request) => {
      const done = await versions.restore(authOf(request), request.params.id, Number(request.params.number));
      return { ...presentVersion(done.version), restored: done.restored };
    },
  );
}
