import type { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';

/** A column as the database declares it (the type lower-cased: `bigint`, `bytea`, `boolean`...). */
export interface ColumnInfo {
  name: string;
  type: string;
  /** PostgreSQL `GENERATED ALWAYS AS IDENTITY`: inserts must say OVERRIDING SYSTEM VALUE. */
  identityAlways: boolean;
  /** Filled from a sequence (identity, serial) or SQLite AUTOINCREMENT: reset after the copy. */
  sequenced: boolean;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  /** Primary-key columns in key order: batches are read in this order and resumed after the last key. */
  primaryKey: string[];
  /** Tables this one's foreign keys point to (itself included when it does). */
  references: string[];
}

/**
 * The service's own bookkeeping, never copied: the migration history (the target is migrated by
 * its own run), the transfer's state, and the live-process leases (they belong to the source's
 * processes, not to the data).
 */
export const NOT_DATA = new Set([
  'kysely_migration',
  'kysely_migration_lock',
  'service_instances',
  'dms_transfer_state',
]);

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const quoteIdent = q;

/** Ordinary tables of a SQLite database (views, FTS virtual tables and their shadow tables are indexes, not data). */
export function sqliteTables(raw: DatabaseSync): TableInfo[] {
  const list = raw.prepare('pragma table_list').all() as { schema: string; name: string; type: string }[];
  const tables: TableInfo[] = [];
  for (const t of list) {
    if (t.schema !== 'main' || t.type !== 'table' || t.name.startsWith('sqlite_')) continue;
    const cols = raw.prepare(`pragma table_xinfo(${q(t.name)})`).all() as {
      name: string;
      type: string;
      pk: number;
      hidden: number;
    }[];
    const ddl =
      (
        raw.prepare(`select sql from sqlite_master where type = 'table' and name = ?`).get(t.name) as
          | { sql: string }
          | undefined
      )?.sql ?? '';
    const autoincrement = /\bautoincrement\b/i.test(ddl);
    const keys = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const fks = raw.prepare(`pragma foreign_key_list(${q(t.name)})`).all() as { table: string }[];
    tables.push({
      name: t.name,
      // hidden 2/3: generated columns, computed by the target itself.
      columns: cols
        .filter((c) => c.hidden === 0)
        .map((c) => ({
          name: c.name,
          type: c.type.toLowerCase(),
          identityAlways: false,
          sequenced: autoincrement && keys.length === 1 && keys[0]!.name === c.name,
        })),
      primaryKey: keys.map((c) => c.name),
      references: [...new Set(fks.map((f) => f.table))],
    });
  }
  return tables;
}

/** Base tables of the connection's schema on PostgreSQL, with identity/serial columns and foreign keys. */
export async function postgresTables(client: pg.ClientBase | pg.Pool): Promise<TableInfo[]> {
  const { rows: cols } = await client.query<{
    table_name: string;
    column_name: string;
    type: string;
    identity: string;
    serial: boolean;
    generated: boolean;
  }>(`
    select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as type,
           a.attidentity as identity, coalesce(pg_get_expr(d.adbin, d.adrelid) like 'nextval(%', false) as serial,
           a.attgenerated <> '' as generated
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
     where c.relkind in ('r', 'p')
     order by c.relname, a.attnum`);
  const { rows: keys } = await client.query<{ table_name: string; column_name: string }>(`
    select c.relname as table_name, a.attname as column_name
      from pg_index i
      join pg_class c on c.oid = i.indrelid
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
      cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
      join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
     where i.indisprimary
     order by c.relname, k.ord`);
  const { rows: fks } = await client.query<{ table_name: string; referenced: string }>(`
    select c.relname as table_name, r.relname as referenced
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_class r on r.oid = k.confrelid
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
     where k.contype = 'f'`);
  const byName = new Map<string, TableInfo>();
  for (const c of cols) {
    let t = byName.get(c.table_name);
    if (!t) {
      t = { name: c.table_name, columns: [], primaryKey: [], references: [] };
      byName.set(c.table_name, t);
    }
    if (c.generated) continue;
    t.columns.push({
      name: c.column_name,
      type: c.type.toLowerCase(),
      identityAlways: c.identity === 'a',
      sequenced: c.identity !== '' || c.serial,
    });
  }
  for (const k of keys) byName.get(k.table_name)?.primaryKey.push(k.column_name);
  for (const f of fks) {
    const t = byName.get(f.table_name);
    if (t && !t.references.includes(f.referenced)) t.references.push(f.referenced);
  }
  return [...byName.values()];
}

/**
 * Tables ordered so that each comes after the tables it references (a self-reference does not
 * count; a cycle, which the schema does not have, falls back to name order for its members).
 */
export function dependencyOrder(tables: readonly TableInfo[]): TableInfo[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const ordered: TableInfo[] = [];
  const visit = (t: TableInfo) => {
    if (done.has(t.name) || visiting.has(t.name)) return;
    visiting.add(t.name);
    for (const r of [...t.references].sort()) {
      const dep = byName.get(r);
      if (dep && dep.name !== t.name) visit(dep);
    }
    visiting.delete(t.name);
    done.add(t.name);
    ordered.push(t);
  };
  for (const t of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(t);
  return ordered;
}
