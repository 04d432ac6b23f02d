import { PostgresAdapter, sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { DocumentQueries } from '../documents/index.ts';
import './search.tables.ts';

/** Documents per `IN (...)` list: well under SQLite's bound-parameter limit. */
const IN_BATCH = 500;
/** Bytes per row of a snapshot: rows far below the drivers' and PostgreSQL's limits, few enough to read fast. */
const SNAPSHOT_PART_BYTES = 16 * 1024 * 1024;

/**
 * SQL of search's own tables: the change log, and the documents in the full-text index with their
 * text (read through the documents module's `contentOf`). Passages and vectors are read through
 * the processing module's entry.
 */
export class SearchRepository {
  /** The tenant's change version (0 before anything was indexed): moves with every change of a document's text or passages. */
  async version(db: Executor, tenantId: string): Promise<number> {
    const row = await db
      .selectFrom('search_state')
      .select('version')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row ? Number(row.version) : 0;
  }

  /** Documents whose text or passages changed after `version`. */
  async changedSince(db: Executor, tenantId: string, version: number): Promise<string[]> {
    const rows = await db
      .selectFrom('search_changes')
      .select('document_id')
      .where('tenant_id', '=', tenantId)
      .where('version', '>', version)
      .execute();
    return rows.map((r) => r.document_id);
  }

  /** Every document of the tenant with indexed text. */
  async indexedDocuments(db: Executor, tenantId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('search_documents')
      .select('document_id')
      .where('tenant_id', '=', tenantId)
      .execute();
    return rows.map((r) => r.document_id);
  }

  /** The indexed text of these documents (a document without text is absent). */
  async texts(
    db: Executor,
    documents: Pick<DocumentQueries, 'contentOf'>,
    tenantId: string,
    documentIds: string[],
    visit: (id: string, text: string) => void,
  ): Promise<void> {
    for (let i = 0; i < documentIds.length; i += IN_BATCH) {
      const batch = documentIds.slice(i, i + IN_BATCH);
      const rows = await sql<{ document_id: string; text: string | null }>`
        select s.document_id as document_id, ${documents.contentOf(tenantId, sql.ref('s.document_id'))} as text
        from search_documents s
        where s.tenant_id = ${tenantId} and s.document_id in (${sql.join(batch.map((id) => sql`${id}`))})`.execute(db);
      for (const r of rows.rows) if (r.text) visit(r.document_id, r.text);
    }
  }

  /** The tenant's latest snapshot of this kind, or null (none, or parts of two writes: never within one statement). */
  async snapshot(db: Executor, tenantId: string, kind: string): Promise<{ version: number; data: Uint8Array } | null> {
    const rows = await db
      .selectFrom('search_snapshots')
      .select(['part', 'version', 'data'])
      .where('tenant_id', '=', tenantId)
      .where('kind', '=', kind)
      .orderBy('part')
      .execute();
    if (rows.length === 0) return null;
    const version = Number(rows[0]!.version);
    if (rows.some((r, i) => r.part !== i || Number(r.version) !== version)) return null;
    if (rows.length === 1) return { version, data: rows[0]!.data };
    const data = new Uint8Array(rows.reduce((n, r) => n + r.data.length, 0));
    let at = 0;
    for (const r of rows) {
      data.set(r.data, at);
      at += r.data.length;
    }
    return { version, data };
  }

  /** Replaces the tenant's snapshot of this kind, unless a newer one was written meanwhile (by another process). */
  async saveSnapshot(
    db: Executor,
    tenantId: string,
    kind: string,
    version: number,
    data: Uint8Array,
  ): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      // Two processes saving at once would both find no row and both insert: PostgreSQL queues them
      // on a lock of the tenant's snapshot (SQLite runs one write transaction at a time anyway).
      if (trx.getExecutor().adapter instanceof PostgresAdapter)
        await sql`select pg_advisory_xact_lock(hashtext(${`search_snapshots:${tenantId}:${kind}`}))`.execute(trx);
      const current = await trx
        .selectFrom('search_snapshots')
        .select('version')
        .where('tenant_id', '=', tenantId)
        .where('kind', '=', kind)
        .where('part', '=', 0)
        .executeTakeFirst();
      if (current && Number(current.version) > version) return false;
      await trx.deleteFrom('search_snapshots').where('tenant_id', '=', tenantId).where('kind', '=', kind).execute();
      for (let at = 0, part = 0; at < data.length || part === 0; at += SNAPSHOT_PART_BYTES, part++) {
        await trx
          .insertInto('search_snapshots')
          .values({
            tenant_id: tenantId,
            kind,
            part,
            version,
            data: data.subarray(at, Math.min(data.length, at + SNAPSHOT_PART_BYTES)),
          })
          .execute();
      }
      return true;
    });
  }
}
