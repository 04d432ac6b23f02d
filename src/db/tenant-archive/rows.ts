import { CompiledQuery, type RawBuilder, sql } from 'kysely';
import type { Executor } from '../executor.ts';
import type { ArchiveResource } from './resources.ts';

/** One row as the archive carries it: column name to a portable value. */
export type ArchiveRow = Record<string, unknown>;

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;

/** A row value as JSON: bytes (embeddings) as `{"$b64": ...}`, everything else as it is. */
export function encodeValue(value: unknown): unknown {
  if (isBytes(value)) return { $b64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** The reverse of encodeValue. */
export function decodeValue(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && '$b64' in value)
    return Buffer.from(String((value as { $b64: string }).$b64), 'base64');
  return value;
}

/**
 * A tenant's rows of one table, in key order, `batchSize` at a time (keyset pagination: memory
 * stays one batch whatever the table's size). Both dialects compare row values `(a, b) > (x, y)`.
 *
 * On SQLite a large tenant's filter is written `+tenant_id` (the unary plus keeps the planner off
 * the tenant's indexes): with `tenant_id = ?` SQLite searched a tenant index whose order is not the
 * key's, then sorted all of the tenant's rows again for every page — a quadratic read, 9 s for
 * the 30,000 passages of a 10,000-document tenant at 500 rows a page, 37 s at 100 (measured
 * 2026-11-29, docs/benchmarks.md). Through the primary key's index instead, each page continues
 * where the last stopped (0.8–1 s for the same rows), skipping other tenants' rows in between.
 * That walk reads the whole table's key range, which is the wrong price for a small tenant of a
 * large instance: there the tenant index (sorting n rows for each of n / batchSize pages) is
 * cheaper, so the filter is chosen from the two counts (sqliteTenantFilter).
 */
export async function* tenantRows(
  db: Executor,
  dialect: 'sqlite' | 'postgres',
  resource: ArchiveResource,
  tenantId: string,
  batchSize = 500,
): AsyncGenerator<ArchiveRow[]> {
  const keys = resource.key.map((k) => sql.ref(k));
  const tenant =
    dialect === 'sqlite' ? await sqliteTenantFilter(db, resource.table, tenantId, batchSize) : sql`tenant_id`;
  let after: unknown[] | null = null;
  for (;;) {
    const past: RawBuilder<unknown> = after === null ? sql`` : sql`and (${sql.join(keys)}) > (${sql.join(after)})`;
    const result: { rows: ArchiveRow[] } =
      await sql<ArchiveRow>`select * from ${sql.table(resource.table)} where ${tenant} = ${tenantId} ${past} order by ${sql.join(keys)} limit ${batchSize}`.execute(
        db,
      );
    const rows = result.rows;
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batchSize) return;
    const last: ArchiveRow = rows[rows.length - 1]!;
    after = resource.key.map((k): unknown => last[k]);
  }
}

/**
 * `tenant_id` (the tenant index) when re-sorting the tenant's rows for every page costs less than
 * walking the table's whole key range (n² / batchSize against the table's row count), else
 * `+tenant_id` (the key's index). Both give the same rows in the same order.
 */
export async function sqliteTenantFilter(
  db: Executor,
  table: string,
  tenantId: string,
  batchSize: number,
): Promise<RawBuilder<unknown>> {
  const count = async (where: RawBuilder<unknown>) =>
    Number(
      (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} ${where}`.execute(db)).rows[0]?.n ?? 0,
    );
  const tenantRowCount = await count(sql`where tenant_id = ${tenantId}`);
  const tableRowCount = await count(sql``);
  return (tenantRowCount * tenantRowCount) / batchSize <= tableRowCount ? sql`tenant_id` : sql`+tenant_id`;
}

/** Which of `ids` already exist in `table` (any tenant): those must be remapped on import. */
export async function takenIds(db: Executor, table: string, ids: readonly string[]): Promise<string[]> {
  const taken: string[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    const { rows } = await sql<{
      id: string;
    }>`select id from ${sql.table(table)} where id in (${sql.join(slice)})`.execute(db);
    for (const r of rows) taken.push(r.id);
  }
  return taken;
}

/** The columns `table` has in this database (an archive from an older or newer schema may differ). */
export async function tableColumns(db: Executor, dialect: 'sqlite' | 'postgres', table: string): Promise<Set<string>> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{
      name: string;
      hidden: number;
    }>`select name, hidden from pragma_table_xinfo(${table})`.execute(db);
    return new Set(rows.filter((r) => r.hidden === 0).map((r) => r.name));
  }
  const { rows } = await sql<{
    name: string;
  }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table} and is_generated = 'NEVER'`.execute(
    db,
  );
  return new Set(rows.map((r) => r.name));
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Rows per statement on SQLite: one compiled statement per table and size, reused (see insertRows). */
const SQLITE_ROWS_PER_STATEMENT = 32;

/**
 * Inserts rows (all with the same columns) as plain SQL text with parameters: no query tree
 * built and compiled per batch (a tenant import inserts tens of thousands of rows).
 *
 * SQLite: statements of exactly SQLITE_ROWS_PER_STATEMENT rows, the rest one row each, so a table
 * takes two statement texts whatever its batches' sizes, each prepared once (the adapter keeps
 * compiled statements) instead of one large statement per distinct batch size. PostgreSQL: one
 * statement per batch (at most ~8,000 parameters each), one round trip.
 */
export async function insertRows(
  db: Executor,
  dialect: 'sqlite' | 'postgres',
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
): Promise<void> {
  if (rows.length === 0) return;
  const head = `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values `;
  const width = columns.length;
  const text = (count: number): string => {
    const tuples: string[] = [];
    for (let r = 0; r < count; r++) {
      const marks: string[] = [];
      for (let c = 1; c <= width; c++) marks.push(dialect === 'sqlite' ? '?' : `$${r * width + c}`);
      tuples.push(`(${marks.join(', ')})`);
    }
    return head + tuples.join(', ');
  };
  const perStatement =
    dialect === 'sqlite'
      ? Math.max(1, Math.min(SQLITE_ROWS_PER_STATEMENT, Math.floor(8_000 / width)))
      : Math.max(1, Math.floor(8_000 / width));
  const full = text(perStatement);
  let i = 0;
  for (; i + perStatement <= rows.length; i += perStatement)
    await db.executeQuery(CompiledQuery.raw(full, rows.slice(i, i + perStatement).flat()));
  if (i === rows.length) return;
  if (dialect === 'postgres') {
    await db.executeQuery(CompiledQuery.raw(text(rows.length - i), rows.slice(i).flat()));
    return;
  }
  const one = text(1);
  for (; i < rows.length; i++) await db.executeQuery(CompiledQuery.raw(one, rows[i]!));
}

/** The live tenant row, as the archive's `tenant.json` carries it. */
export async function tenantRow(db: Executor, tenantId: string): Promise<ArchiveRow | null> {
  const { rows } =
    await sql<ArchiveRow>`select * from ${sql.table('tenants')} where id = ${tenantId} and sandbox_of is null`.execute(
      db,
    );
  return rows[0] ?? null;
}

/** Whether a tenant id or subdomain is free on this service. */
export async function tenantTaken(db: Executor, field: 'id' | 'subdomain', value: string): Promise<boolean> {
  const { rows } = await sql<{
    n: number;
  }>`select count(*) as n from ${sql.table('tenants')} where ${sql.ref(field)} = ${value}`.execute(db);
  return Number(rows[0]?.n ?? 0) > 0;
}

/**
 * Creates the imported tenant and its sandbox twin (empty: sandbox data is not exported), as
 * identity's tenant creation does (tenants.service.ts `create`).
 */
export async function insertTenant(
  db: Executor,
  dialect: 'sqlite' | 'postgres',
  tenant: {
    id: string;
    twinId: string;
    name: string;
    subdomain: string;
    tier: string;
    corsOrigins: string;
    settings: string;
    now: number;
  },
): Promise<void> {
  const base = {
    name: tenant.name,
    tier: tenant.tier,
    status: 'active',
    cors_origins: tenant.corsOrigins,
    settings: tenant.settings,
    created_at: tenant.now,
    updated_at: tenant.now,
  };
  for (const row of [
    { ...base, id: tenant.id, subdomain: tenant.subdomain, sandbox_of: null },
    { ...base, id: tenant.twinId, subdomain: `${tenant.subdomain}.sandbox`, sandbox_of: tenant.id, cors_origins: '[]' },
  ]) {
    const columns = Object.keys(row);
    await insertRows(db, dialect, 'tenants', columns, [columns.map((c) => (row as Record<string, unknown>)[c])]);
  }
}

/** A document's bytes as an export needs them. */
export interface ArchiveFile {
  id: string;
  fileSize: number;
  sha256: string;
  storageKey: string;
  thumbnailKey: string | null;
}

/** Every document's blob keys of a tenant, in id order (10,000 documents: ~2 MB of memory). */
export async function tenantArchiveFiles(db: Executor, tenantId: string): Promise<ArchiveFile[]> {
  const { rows } = await sql<{
    id: string;
    file_size: number;
    sha256: string;
    storage_key: string;
    thumbnail_key: string | null;
  }>`
    select id, file_size, sha256, storage_key, thumbnail_key from ${sql.table('documents')} where tenant_id = ${tenantId} order by id`.execute(
    db,
  );
  return rows.map((r) => ({
    id: r.id,
    fileSize: Number(r.file_size),
    sha256: r.sha256,
    storageKey: r.storage_key,
    thumbnailKey: r.thumbnail_key,
  }));
}

/** An earlier version's bytes as an export needs them (docs/versions.md). */
export interface ArchiveVersionFile {
  id: string;
  fileSize: number;
  sha256: string;
  storageKey: string;
}

/**
 * The tenant's document versions whose bytes are not the document's own (every version but the
 * current one, whose key is the document's `storage_key` and travels under `files/`), in id order.
 */
export async function tenantArchiveVersionFiles(db: Executor, tenantId: string): Promise<ArchiveVersionFile[]> {
  const { rows } = await sql<{ id: string; file_size: number; sha256: string; storage_key: string }>`
    select v.id, v.file_size, v.sha256, v.storage_key from ${sql.table('document_versions')} v
    join ${sql.table('documents')} d on d.id = v.document_id and d.tenant_id = v.tenant_id
    where v.tenant_id = ${tenantId} and v.storage_key <> d.storage_key order by v.id`.execute(db);
  return rows.map((r) => ({ id: r.id, fileSize: Number(r.file_size), sha256: r.sha256, storageKey: r.storage_key }));
}

/** The tenant's API keys by name and prefix (listed as not portable; the secret is never read). */
export async function apiKeysOf(
  db: Executor,
  tenantId: string,
): Promise<{ name: string; prefix: string; environment: string }[]> {
  const { rows } = await sql<{ name: string; prefix: string; environment: string }>`
    select name, prefix, environment from ${sql.table('api_keys')} where tenant_id = ${tenantId} and revoked_at is null order by created_at, id`.execute(
    db,
  );
  return rows.map((r) => ({ name: r.name, prefix: r.prefix, environment: r.environment }));
}

/** The newest migration this database ran: the schema an archive's rows follow. */
export async function latestMigration(db: Executor): Promise<string> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name desc limit 1`.execute(
    db,
  );
  return rows[0]?.name ?? '';
}
