import type { DialectName } from '../database.ts';

/**
 * Tables that are indexes over other tables and differ by dialect, so they are rebuilt in the
 * target from the rows copied rather than copied: the full-text index (SQLite: FTS5 rowid map +
 * virtual table; PostgreSQL: a tsvector per document). The statements are the ones the search
 * migration runs for "documents already processed" (20261123_1300_search.ts). A new table whose
 * columns differ between the dialects makes the transfer stop naming it until it is listed here.
 */
export const DERIVED_TABLES: Readonly<Record<string, Record<DialectName, readonly string[]>>> = {
  search_documents: {
    sqlite: [
      'delete from search_documents',
      'insert into search_documents (tenant_id, document_id) select tenant_id, document_id from document_contents',
      "insert into search_text (search_text) values ('rebuild')",
    ],
    postgres: [
      'delete from search_documents',
      // search_tsvector() guards against the 1 MB tsvector limit with an exception block, which costs
      // a subtransaction per row (measured: most of the rebuild). A text under 300,000 characters
      // cannot reach the limit (at worst ~2.7 bytes of tsvector per character), so only longer ones take it.
      `insert into search_documents (document_id, tenant_id, tsv)
         select document_id, tenant_id, case when length(content) < 300000 then to_tsvector('docuvault_search', content) else search_tsvector(content) end
           from document_contents`,
    ],
  },
  // SQLite's trigram index over filenames (the rowid map of an FTS5 table); PostgreSQL indexes the
  // column itself (pg_trgm), so there is nothing to rebuild there. Statements as in 20261127_2100_document_name_index.ts.
  document_name_rows: {
    sqlite: [
      'delete from document_name_rows',
      'insert into document_name_rows (tenant_id, document_id) select tenant_id, id from documents order by tenant_id, id',
      "insert into document_names (document_names) values ('rebuild')",
    ],
    postgres: [],
  },
  // Saved keyword indexes are a cache of the tenant's texts; a search after the transfer builds and
  // saves a fresh one, so none is carried over (their versions count the source's changes).
  search_snapshots: {
    sqlite: ['delete from search_snapshots'],
    postgres: ['delete from search_snapshots'],
  },
};
