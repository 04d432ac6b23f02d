import type { AuditRecord } from './audit.repository.ts';

/** The API's JSON of one record (the export's NDJSON lines and CSV rows too). */
export function presentAuditRecord(r: AuditRecord) {
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    actor_type: r.actorType,
    actor_id: r.actorId,
    action: r.action,
    target_type: r.targetType,
    target_id: r.targetId,
    outcome: r.outcome,
    status: r.status,
    ip: r.ip,
    user_agent: r.userAgent,
    request_id: r.requestId,
    details: r.details,
  };
}

type Presented = ReturnType<typeof presentAuditRecord>;

export const CSV_COLUMNS: readonly (keyof Presented)[] = [
  'id',
  'at',
  'actor_type',
  'actor_id',
  'action',
  'target_type',
  'target_id',
  'outcome',
  'status',
  'ip',
  'user_agent',
  'request_id',
  'details',
];

/**
 * One CSV cell (RFC 4180 quoting). A text starting with `=`, `+`, `-`, `@`, tab or CR is prefixed
 * with `'` so a spreadsheet never runs it as a formula (a user agent is the caller's to choose).
 */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(',')}\r\n`;
}

export function csvRow(r: AuditRecord): string {
  const p = presentAuditRecord(r);
  return `${CSV_COLUMNS.map((c) => csvCell(p[c])).join(',')}\r\n`;
}

export function ndjsonLine(r: AuditRecord): string {
  return `${JSON.stringify(presentAuditRecord(r))}\n`;
}
