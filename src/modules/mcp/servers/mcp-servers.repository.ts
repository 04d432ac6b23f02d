import type { Selectable } from 'kysely';
import type { Executor } from '../../../db/executor.ts';
import type { McpServersTable } from '../mcp.tables.ts';

export type McpServerRow = Selectable<McpServersTable>;

/** SQL for registered MCP servers; every query takes the tenant. */
export class McpServersRepository {
  async insert(db: Executor, row: McpServerRow): Promise<void> {
    await db.insertInto('mcp_servers').values(row).execute();
  }

  async findById(db: Executor, tenantId: string, id: string): Promise<McpServerRow | null> {
    return (await db.selectFrom('mcp_servers').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async count(db: Executor, tenantId: string): Promise<number> {
    const row = await db.selectFrom('mcp_servers').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(db: Executor, tenantId: string, page: { limit: number; offset: number }): Promise<{ rows: McpServerRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      db.selectFrom('mcp_servers').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
      this.count(db, tenantId),
    ]);
    return { rows, total };
  }

  async delete(db: Executor, tenantId: string, id: string): Promise<boolean> {
    const result = await db.deleteFrom('mcp_servers').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async deleteForTenant(db: Executor, tenantId: string): Promise<void> {
    await db.deleteFrom('mcp_servers').where('tenant_id', '=', tenantId).execute();
  }
}
