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
};
