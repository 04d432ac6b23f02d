import type { ApiCaller } from './api-caller.ts';
import type { OperationInput, OperationResponse } from './operation-types.ts';

export type AuditQuery = NonNullable<OperationInput<'getAudit'>['query']>;
export type AuditPage = OperationResponse<'getAudit'>;
export type AuditRecord = AuditPage['data'][number];

/** The audit trail (docs/audit.md): a page of records, or all of them streamed. */
export class AuditApi {
  readonly #client: ApiCaller;

  constructor(client: ApiCaller) {
    this.#client = client;
  }

  /** One page, newest first (owners and admins: the tenant's; others: their own). */
  list(query: AuditQuery = {}): Promise<AuditPage> {
    return this.#client.call('getAudit', { query });
  }

  /** The audit trail of one document. */
  ofDocument(documentId: string, query: Omit<AuditQuery, 'document_id'> = {}): Promise<AuditPage> {
    return this.list({ ...query, document_id: documentId });
  }

  /** The raw export (`ndjson` or `csv`), streamed: pipe `response.body` to a file. */
  exportRaw(query: Omit<AuditQuery, 'page' | 'page_size'> & { format?: 'ndjson' | 'csv' } = {}): Promise<Response> {
    return this.#client.send('exportAudit', { query });
  }

  /** Every matching record, newest first, parsed from the NDJSON export as it streams. */
  async *export(query: Omit<AuditQuery, 'page' | 'page_size'> = {}): AsyncGenerator<AuditRecord> {
    const res = await this.exportRaw({ ...query, format: 'ndjson' });
    if (!res.body) return;
    const decoder = new TextDecoder();
    let rest = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      rest += decoder.decode(chunk, { stream: true });
      let nl = rest.indexOf('\n');
      while (nl >= 0) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        if (line) yield JSON.parse(line) as AuditRecord;
        nl = rest.indexOf('\n');
      }
    }
    if (rest.trim()) yield JSON.parse(rest) as AuditRecord;
  }
}
