import { Readable } from 'node:stream';
import { standardErrors } from '../../http/common-schemas.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import { csvHeader, csvRow, ndjsonLine, presentAuditRecord } from './audit.presenter.ts';
import type { AuditFilter, AuditRecord } from './audit.repository.ts';
import { AuditExportBody, AuditExportQuery, AuditListQuery, AuditPage } from './audit.schemas.ts';
import type { AuditService } from './audit.service.ts';

function filterOf(q: {
  actor?: string;
  document_id?: string;
  action?: string;
  from?: string;
  to?: string;
}): AuditFilter {
  return {
    ...(q.actor !== undefined ? { actorId: q.actor } : {}),
    ...(q.document_id !== undefined ? { documentId: q.document_id } : {}),
    ...(q.action !== undefined ? { action: q.action } : {}),
    ...(q.from !== undefined ? { from: Date.parse(q.from) } : {}),
    ...(q.to !== undefined ? { to: Date.parse(q.to) } : {}),
  };
}

async function* lines(records: AsyncIterable<AuditRecord>, format: 'csv' | 'ndjson'): AsyncGenerator<string> {
  if (format === 'csv') yield csvHeader();
  for await (const r of records) yield format === 'csv' ? csvRow(r) : ndjsonLine(r);
}

/** docs/audit.md: the audit trail, read-only (there is no route that changes or deletes a record). */
export function auditRoutes(app: App, s: { audit: AuditService }): void {
  const tags = ['audit'];

  app.get(
    '/audit',
    {
      schema: {
        tags,
        summary: 'List audit records',
        description:
          'Owners, admins and API keys read every record of the tenant; members and viewers only their own (`actor` naming someone else is 403). Newest first, in the paged envelope plus `total_capped`: `total` counts up to 10 000 matches, and pages reach the newest 10 000 (`page * page_size` beyond is 400: narrow with `from`/`to` or use the export).',
        querystring: AuditListQuery,
        response: { 200: AuditPage, ...standardErrors },
      },
    },
    async (request) => {
      const { page = 1, page_size: pageSize = 20, ...rest } = request.query;
      const { rows, total, capped } = await s.audit.list(authOf(request), { ...filterOf(rest), page, pageSize });
      return { data: rows.map(presentAuditRecord), total, page, page_size: pageSize, total_capped: capped };
    },
  );

  app.get(
    '/audit/export',
    {
      schema: {
        tags,
        summary: 'Export audit records',
        description:
          'Every record the caller may read under the same filters, newest first, streamed: NDJSON (`format=ndjson`, the default) or CSV with a header row (`format=csv`). The export is itself recorded (`audit.export`).',
        querystring: AuditExportQuery,
        response: { 200: AuditExportBody, ...standardErrors },
      },
    },
    async (request, reply) => {
      const { format = 'ndjson', ...rest } = request.query;
      const records = await s.audit.openExport(authOf(request), filterOf(rest));
      const stamp = new Date().toISOString().slice(0, 10);
      reply
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-${stamp}.${format === 'csv' ? 'csv' : 'ndjson'}"`)
        .header('cache-control', 'no-store');
      return reply.send(Readable.from(lines(records, format)));
    },
  );
}
