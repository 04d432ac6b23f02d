import type { Selectable } from 'kysely';
import type { Executor } from '../../../db/executor.ts';
import { parseJson } from '../../../lib/json.ts';
import type { McpServersTable } from '../mcp.tables.ts';

/** An MCP server a tenant registered, as services see it (not the SDK's `McpServer` of `mcp-server.ts`). */
export interface RegisteredMcpServer {
  id: string;
  tenantId: string;
  /** Unique per tenant, case-insensitively. */
  name: string;
  /** The Streamable HTTP endpoint. */
  url: string;
  /** The headers sent on every request, as a sealed JSON object; null when none. */
  headersSealed: string | null;
  /** The names of those headers (shown in answers; the values never are). */
  headerNames: string[];
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

export function toRegisteredMcpServer(row: Selectable<McpServersTable>): RegisteredMcpServer {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    url: row.url,
    headersSealed: row.headers_sealed,
    headerNames: parseJson<string[]>(row.header_names, []),
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** SQL for registered MCP servers; every query takes the tenant. */
export class McpServersRepository {
  async insert(db: Executor, server: RegisteredMcpServer): Promise<void> {
    await db
      .insertInto('mcp_servers')
      .values({
        id: server.id,
        tenant_id: server.tenantId,
        name: server.name,
        name_key: server.name.toLowerCase(),
        url: server.url,
        headers_sealed: server.headersSealed,
        header_names: JSON.stringify(server.headerNames),
        created_by: server.createdBy,
        created_at: server.createdAt,
        updated_at: server.updatedAt,
      })
      .execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<RegisteredMcpServer | null> {
    const row = await db
      .selectFrom('mcp_servers')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRegisteredMcpServer(row) : null;
  }

  async count(db: Executor, tenantId: string): Promise<number> {
    const row = await db
      .selectFrom('mcp_servers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(
    db: Executor,
    tenantId: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: RegisteredMcpServer[]; total: number }> {
    const [rows, total] = await Promise.all([
      db
        .selectFrom('mcp_servers')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at')
        .orderBy('id')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      this.count(db, tenantId),
    ]);
    return { rows: rows.map(toRegisteredMcpServer), total };
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const result = await db
      .deleteFrom('mcp_servers')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('mcp_servers').where('tenant_id', '=', tenantId).execute();
  }
}
