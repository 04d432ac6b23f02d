// The mcp module's tables (migration 20261125_1300_mcp_servers), added to the database type by
// declaration merging so src/db/schema.ts stays free of module knowledge.

/** An MCP server a tenant registered for its workflows' `mcp_tool` nodes (contract §10). */
export interface McpServersTable {
  id: string;
  tenant_id: string;
  name: string;
  /** Lower-cased name: names are unique per tenant, case-insensitive. */
  name_key: string;
  /** The Streamable HTTP endpoint. */
  url: string;
  /** JSON object of the headers sent on every request, sealed with the module's key (they carry credentials); null when none. */
  headers_sealed: string | null;
  /** JSON string[] of the header names, shown in answers (the values never are). */
  header_names: string;
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    mcp_servers: McpServersTable;
  }
}
