import type { Kysely } from 'kysely';

// MCP servers registered by tenants (contract §10 `mcp_tool`, docs/chat-and-agents.md). Header
// values are sealed (AES-256-GCM) because they carry credentials; their names stay readable.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mcp_servers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('headers_sealed', 'text')
    .addColumn('header_names', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('mcp_servers_name_key', ['tenant_id', 'name_key'])
    .execute();
  await db.schema
    .createIndex('mcp_servers_tenant_idx')
    .on('mcp_servers')
    .columns(['tenant_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_servers').ifExists().execute();
}
