/**
 * The views module's table (docs/console.md "Saved views"). Built by migration
 * 20261129_0500_saved_views.
 */
export interface SavedViewsTable {
  id: string;
  tenant_id: string;
  /** Whose view: `user:<user id>` or `key:<API key id>`; nobody else sees it. */
  owner_id: string;
  name: string;
  /** `nameKey(name)`: unique per owner, so two views of one person never read alike. */
  name_key: string;
  /** The folder shown; null for the root. */
  folder_id: string | null;
  /** The documents page's address query (sort, filters, list or grid) as JSON text. */
  filters: string;
  created_at: number;
  updated_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    saved_views: SavedViewsTable;
  }
}
