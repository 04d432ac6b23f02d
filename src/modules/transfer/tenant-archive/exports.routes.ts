import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { TIERS, type Tier } from '../../../domain/tiers.ts';
import { ErrorBody, standardErrors } from '../../../http/common-schemas.ts';
import { type App, authOf } from '../../../http/fastify-types.ts';
import { sendStoredFile } from '../../../http/file-response.ts';
import { assertBodyStillArriving } from '../../../http/request-body.ts';
import { errors } from '../../../lib/errors.ts';
import { presentExport } from './exports.presenter.ts';
import type { TenantExport } from './exports.repository.ts';
import {
  AdminExportParams,
  ExportParams,
  ExportView,
  ImportMultipartBody,
  ImportReportView,
  TenantIdParams,
} from './exports.schemas.ts';
import type { ExportsService } from './exports.service.ts';

const BinarySchema = { type: 'string', format: 'binary' };
const archiveBytes = (description: string, extraHeaders: Record<string, unknown> = {}) =>
  Type.Unsafe<Readable | Buffer | string>({
    description,
    headers: {
      ETag: { type: 'string', description: 'The quoted hex SHA-256 of the archive.' },
      'Accept-Ranges': { type: 'string', description: '`bytes`' },
      ...extraHeaders,
    },
    content: { 'application/x-tar': { schema: BinarySchema } },
  });
const downloadResponses = {
  200: archiveBytes('The whole archive (application/x-tar).'),
  206: archiveBytes('One byte range of the archive.', {
    'Content-Range': { type: 'string', description: '`bytes <first>-<last>/<size>`' },
  }),
  304: Type.Unsafe<undefined>({ description: 'Not modified: the If-None-Match ETag is current.' }),
  409: ErrorBody,
  416: ErrorBody,
  ...standardErrors,
};

/** Serves a completed export's archive with validators and one range, as document downloads are served. */
function sendArchive(request: FastifyRequest, reply: FastifyReply, s: ExportsService, e: TenantExport) {
  const { key, size, sha256 } = s.downloadable(e);
  const archive = { filename: `tenant-export-${e.id}.tar`, fileType: 'application/x-tar', fileSize: size, sha256 };
  return sendStoredFile(request, reply, archive, (range) => s.open(key, range));
}

/** Issue 35: tenant exports (owner and administrator) and imports (administrator), docs/tenant-export.md. */
export async function exportRoutes(app: App, s: { exports: ExportsService }): Promise<void> {
  const admin = { config: { auth: 'admin' as const, rateLimit: false as const } };
  const tags = ['tenant export'];
  const ownerPath = (e: TenantExport) => `/api/v1/exports/${e.id}/download`;
  const adminPath = (e: TenantExport) => `/api/v1/admin/tenants/${e.tenantId}/exports/${e.id}/download`;

  app.post(
    '/tenant/export',
    {
      schema: {
        tags,
        summary: 'Export this tenant',
        description:
          'The tenant’s owner only (a user token; 403 `forbidden` for everyone else, API keys included). Starts a job writing one archive of the tenant (docs/tenant-export.md); follow it with `GET /exports/{id}`. The event `tenant.export.completed` is emitted when it ends.',
        response: { 202: ExportView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const created = await s.exports.startForOwner(authOf(request));
      return reply.status(202).send(presentExport(created, ownerPath(created)));
    },
  );

  app.get(
    '/exports/:id',
    {
      schema: {
        tags,
        summary: 'An export’s progress',
        description:
          'The tenant’s owner only. When `completed`, `download_url` serves the archive until `expires_at` (EXPORT_RETENTION_HOURS); then the export is `expired`.',
        params: ExportParams,
        response: { 200: ExportView, ...standardErrors },
      },
    },
    async (request) =>
      presentExport(
        await s.exports.getForOwner(authOf(request), request.params.id),
        ownerPath({ id: request.params.id } as TenantExport),
      ),
  );

  app.get(
    '/exports/:id/download',
    {
      schema: {
        tags,
        summary: 'Download an export’s archive',
        description:
          'The tenant’s owner only. Honours `Range` (one range: 206), `If-None-Match` and `If-Range`. 409 before the export completed; 404 once it expired.',
        params: ExportParams,
        response: downloadResponses,
      },
    },
    async (request, reply) =>
      sendArchive(request, reply, s.exports, await s.exports.getForOwner(authOf(request), request.params.id)),
  );

  app.post(
    '/admin/tenants/:tenant_id/export',
    {
      ...admin,
      schema: {
        tags: ['admin'],
        summary: 'Export a tenant',
        description:
          'Administrator key only. As `POST /tenant/export`; follow it with `GET /admin/tenants/{tenant_id}/exports/{export_id}`.',
        params: TenantIdParams,
        response: { 202: ExportView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const created = await s.exports.startForAdmin(request.params.tenant_id);
      return reply.status(202).send(presentExport(created, adminPath(created)));
    },
  );

  app.get(
    '/admin/tenants/:tenant_id/exports/:export_id',
    {
      ...admin,
      schema: {
        tags: ['admin'],
        summary: 'A tenant export’s progress',
        description: 'Administrator key only.',
        params: AdminExportParams,
        response: { 200: ExportView, ...standardErrors },
      },
    },
    async (request) => {
      const e = await s.exports.getForAdmin(request.params.tenant_id, request.params.export_id);
      return presentExport(e, adminPath(e));
    },
  );

  app.get(
    '/admin/tenants/:tenant_id/exports/:export_id/download',
    {
      ...admin,
      schema: {
        tags: ['admin'],
        summary: 'Download a tenant export’s archive',
        description: 'Administrator key only; as `GET /exports/{id}/download`.',
        params: AdminExportParams,
        response: downloadResponses,
      },
    },
    async (request, reply) =>
      sendArchive(
        request,
        reply,
        s.exports,
        await s.exports.getForAdmin(request.params.tenant_id, request.params.export_id),
      ),
  );

  // Encapsulated: only the import parses multipart, as a stream (the archive is never held whole).
  await app.register(async (scope: App) => {
    await scope.register(multipart, {
      limits: { files: 1, fields: 10, fieldSize: 1024, parts: 11, fileSize: Number.MAX_SAFE_INTEGER },
    });
    scope.addHook('onSend', async (request, reply) => {
      // An import refused before the end of its body: close after the answer instead of reading the rest.
      if (!request.raw.readableEnded && request.raw.socket) {
        request.raw.unpipe();
        reply.header('connection', 'close');
      }
    });
    scope.post(
      '/admin/tenants/import',
      {
        ...admin,
        schema: {
          tags: ['admin'],
          summary: 'Import a tenant from an export archive',
          description:
            'Administrator key only. multipart/form-data, streamed: optional `subdomain`, `name`, `tier` fields, then the `archive` file. Creates the tenant with everything the archive holds and answers what was imported and what not. 409 `conflict` when the subdomain is taken; 403 `tier_limit_exceeded` when the archive’s files exceed the tier’s storage (checked from the manifest, before any file is read); 422 `archive_damaged` naming the first bad entry (checksum, size, truncation), with nothing created.',
          consumes: ['multipart/form-data'],
          documentedBody: ImportMultipartBody,
          response: { 201: ImportReportView, 409: ErrorBody, 413: ErrorBody, 422: ErrorBody, ...standardErrors },
        },
      },
      async (request, reply) => {
        if (!request.isMultipart()) throw errors.field('body', 'must be multipart/form-data');
        const options: { subdomain?: string; name?: string; tier?: Tier } = {};
        assertBodyStillArriving(request);
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            const value = String(part.value ?? '');
            if (part.fieldname === 'subdomain') options.subdomain = value;
            else if (part.fieldname === 'name') options.name = value;
            else if (part.fieldname === 'tier') {
              if (!(TIERS as readonly string[]).includes(value))
                throw errors.field('tier', `must be one of: ${TIERS.join(', ')}`);
              options.tier = value as Tier;
            } else throw errors.field(part.fieldname, 'is not a field of an import');
            continue;
          }
          if (part.fieldname !== 'archive')
            throw errors.field(part.fieldname, 'the archive goes in the `archive` part');
          if (options.subdomain !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(options.subdomain)) {
            throw errors.field('subdomain', 'must be lower-case letters, digits and hyphens');
          }
          const report = await s.exports.importArchive(part.file, options);
          return reply.status(201).send(report);
        }
        throw errors.field('archive', 'is required');
      },
    );
  });
}
