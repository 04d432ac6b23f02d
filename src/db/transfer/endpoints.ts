import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DialectName } from '../database.ts';
import { type ColumnInfo, postgresTables, quoteIdent as q, sqliteTables, type TableInfo } from './catalog.ts';
import { copyField } from './values.ts';

/** Where the transfer keeps its progress, in the target, until the end (then dropped). */
export const STATE_TABLE = 'dms_transfer_state';

export type Row = Record<string, unknown>;

/** One side of a transfer: what the copy needs from a database, whichever its dialect. */
/**
 * A PostgreSQL column as the UTF-8 bytes of values.ts `canonical` of the value the transfer sent
 * for it (`toPostgres`), for the types the service's schema uses; null for any other type.
 */
export function canonicalSql(column: string, type: string): string | null {
  if (type === 'text' || type.startsWith('character varying')) return `convert_to(${column}, 'UTF8')`;
  if (type === 'bigint' || type === 'integer' || type === 'smallint') return `convert_to(${column}::text, 'UTF8')`;
  if (type === 'boolean')
    return `case when ${column} is null then null when ${column} then '\\x31'::bytea else '\\x30'::bytea end`;
  if (type === 'bytea') return `convert_to('b:' || translate(encode(${column}, 'base64'), E'\\n', ''), 'UTF8')`;
  return null;
}

export interface Endpoint {
  readonly dialect: DialectName;
  tables(): Promise<TableInfo[]>;
  count(table: string): Promise<number>;
  /** Up to `limit` rows after `after` (a primary-key tuple; null: from the start), in key order. */
  readAfter(
    table: TableInfo,
    columns: readonly string[],
    after: readonly unknown[] | null,
    limit: number,
  ): Promise<Row[]>;
  /** Inserts the rows (already converted for this dialect) and records `state` in the same transaction. */
  writeBatch(
    table: string,
    columns: readonly ColumnInfo[],
    rows: readonly unknown[][],
    state: Record<string, string>,
  ): Promise<void>;
  readState(): Promise<Map<string, string> | null>;
  createState(): Promise<void>;
  writeState(entries: Record<string, string>): Promise<void>;
  dropState(): Promise<void>;
  exec(statement: string): Promise<void>;
  close(): Promise<void>;
}

const keyPredicate = (pk: readonly string[], placeholders: readonly string[]) =>
  `(${pk.map(q).join(', ')}) > (${placeholders.join(', ')})`;

/** SQLite through node:sqlite directly: the fastest path, with statements prepared once per table. */
export class SqliteEndpoint implements Endpoint {
  readonly dialect = 'sqlite' as const;
  private readonly raw: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  constructor(file: string, options: { readOnly: boolean }) {
    this.raw = new DatabaseSync(file, { readOnly: options.readOnly, timeout: 5_000 });
    // The copy writes rows whose references may come later (self-references) and re-creates the
    // trigger-made rows itself; checked as a whole at the end (pragma foreign_key_check).
    if (!options.readOnly) this.raw.exec('pragma foreign_keys = off; pragma synchronous = normal');
  }

  private prepare(text: string): StatementSync {
    let s = this.statements.get(text);
    if (!s) {
      s = this.raw.prepare(text);
      this.statements.set(text, s);
    }
    return s;
  }

  async tables() {
    return sqliteTables(this.raw);
  }

  async count(table: string) {
    return Number((this.prepare(`select count(*) as n from ${q(table)}`).get() as { n: number }).n);
  }

  async readAfter(table: TableInfo, columns: readonly string[], after: readonly unknown[] | null, limit: number) {
    const where = after
      ? `where ${keyPredicate(
          table.primaryKey,
          table.primaryKey.map(() => '?'),
        )}`
      : '';
    const text = `select ${columns.map(q).join(', ')} from ${q(table.name)} ${where} order by ${table.primaryKey.map(q).join(', ')} limit ${limit}`;
    return this.prepare(text).all(...((after ?? []) as SQLInputValue[])) as Row[];
  }

  async writeBatch(
    table: string,
    columns: readonly ColumnInfo[],
    rows: readonly unknown[][],
    state: Record<string, string>,
  ) {
    const insert = this.prepare(
      `insert into ${q(table)} (${columns.map((c) => q(c.name)).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
    );
    this.raw.exec('begin immediate');
    try {
      for (const row of rows) insert.run(...(row as SQLInputValue[]));
      this.putState(state);
      this.raw.exec('commit');
    } catch (error) {
      this.raw.exec('rollback');
      throw error;
    }
  }

  private putState(entries: Record<string, string>) {
    const put = this.prepare(
      `insert into ${STATE_TABLE} (name, value) values (?, ?) on conflict (name) do update set value = excluded.value`,
    );
    for (const [name, value] of Object.entries(entries)) put.run(name, value);
  }

  async readState() {
    const exists = this.raw.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(STATE_TABLE);
    if (!exists) return null;
    const rows = this.raw.prepare(`select name, value from ${STATE_TABLE}`).all() as { name: string; value: string }[];
    return new Map(rows.map((r) => [r.name, r.value]));
  }

  async createState() {
    this.raw.exec(`create table ${STATE_TABLE} (name text primary key, value text not null)`);
  }

  async writeState(entries: Record<string, string>) {
    this.putState(entries);
  }

  async dropState() {
    this.statements.clear();
    this.raw.exec(`drop table if exists ${STATE_TABLE}`);
  }

  async exec(statement: string) {
    this.statements.clear();
    this.raw.exec(statement);
  }

  /** Rows breaking a foreign key (the check the copy postponed). */
  foreignKeyViolations(): { table: string; parent: string }[] {
    return this.raw.prepare('pragma foreign_key_check').all() as { table: string; parent: string }[];
  }

  /** name and CREATE statement of every trigger. */
  triggers(): { name: string; sql: string }[] {
    return this.raw.prepare(`select name, sql from sqlite_master where type = 'trigger' order by name`).all() as {
      name: string;
      sql: string;
    }[];
  }

  async close() {
    this.statements.clear();
    this.raw.close();
  }
}

/**
 * Rows as `COPY … FROM STDIN` (text format): the server parses no parameters and plans nothing, so a
 * batch costs about what a plain COPY of the same rows does. COPY writes identity columns as given
 * (INSERT needs `overriding system value` for that).
 */
async function copyRows(
  client: pg.PoolClient,
  table: string,
  columns: readonly ColumnInfo[],
  rows: readonly unknown[][],
) {
  const sink = client.query(copyFrom(`copy ${q(table)} (${columns.map((c) => q(c.name)).join(', ')}) from stdin`));
  await pipeline(function* () {
    for (const row of rows) yield `${row.map(copyField).join('\t')}\n`;
  }, sink);
}

/** Rows as one multi-row INSERT: for tables with array columns, which COPY's text form would need array literals for. */
async function insertValues(
  client: pg.PoolClient,
  table: string,
  columns: readonly ColumnInfo[],
  rows: readonly unknown[][],
) {
  const override = columns.some((c) => c.identityAlways) ? ' overriding system value' : '';
  const values = rows.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
  await client.query(
    `insert into ${q(table)} (${columns.map((c) => q(c.name)).join(', ')})${override} values ${values.join(', ')}`,
    rows.flat(),
  );
}

/** PostgreSQL through node-postgres: batches streamed with COPY, progress recorded in the same transaction. */
export class PostgresEndpoint implements Endpoint {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  async tables() {
    return postgresTables(this.pool);
  }

  async count(table: string) {
    const { rows } = await this.pool.query<{ n: string }>(`select count(*) as n from ${q(table)}`);
    return Number(rows[0]!.n);
  }

  async readAfter(table: TableInfo, columns: readonly string[], after: readonly unknown[] | null, limit: number) {
    const where = after
      ? `where ${keyPredicate(
          table.primaryKey,
          table.primaryKey.map((_, i) => `$${i + 1}`),
        )}`
      : '';
    const text = `select ${columns.map(q).join(', ')} from ${q(table.name)} ${where} order by ${table.primaryKey.map(q).join(', ')} limit ${limit}`;
    const { rows } = await this.pool.query<Row>(text, after ? [...after] : []);
    return rows;
  }

  /**
   * The row count and checksum (values.ts `rowDigest`, summed mod 2^64) of a table, computed by
   * the server in one scan instead of sending every row back: each column rendered in SQL as
   * `canonical` renders the value sent for it, joined and hashed (sha256) as `rowDigest` does.
   * Null when a column's type has no such rendering here (the caller reads that table back).
   */
  async checksum(table: TableInfo, columns: readonly ColumnInfo[]): Promise<{ rows: number; sum: bigint } | null> {
    const parts: string[] = [];
    for (const c of columns) {
      const rendered = canonicalSql(q(c.name), c.type);
      if (rendered === null) return null;
      parts.push(`coalesce(${rendered}, '\\x00'::bytea) || '\\x01'::bytea`);
    }
    const digest = `('x' || encode(substr(sha256(${parts.join(' || ')}), 1, 8), 'hex'))::bit(64)::bigint::numeric`;
    const { rows } = await this.pool.query<{ n: string; s: string }>(
      `select count(*)::text as n, coalesce(sum(${digest}), 0)::text as s from ${q(table.name)}`,
    );
    // The server sums signed 64-bit prefixes: the same sum mod 2^64 as the unsigned ones.
    const modulus = 1n << 64n;
    return { rows: Number(rows[0]!.n), sum: ((BigInt(rows[0]!.s) % modulus) + modulus) % modulus };
  }

  async writeBatch(
    table: string,
    columns: readonly ColumnInfo[],
    rows: readonly unknown[][],
    state: Record<string, string>,
  ) {
    const client = await this.pool.connect();
    try {
      // A batch lost with a crash of the server is lost together with its progress row: the resume
      // copies it again. So the copy need not wait for each commit's flush to disk.
      await client.query('begin; set local synchronous_commit = off');
      if (columns.some((c) => c.type.endsWith('[]'))) await insertValues(client, table, columns, rows);
      else await copyRows(client, table, columns, rows);
      await this.putState(client, state);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  private async putState(client: pg.ClientBase | pg.Pool, entries: Record<string, string>) {
    const names = Object.keys(entries);
    if (names.length === 0) return;
    await client.query(
      `insert into ${STATE_TABLE} (name, value) select * from unnest($1::text[], $2::text[]) on conflict (name) do update set value = excluded.value`,
      [names, names.map((n) => entries[n])],
    );
  }

  async readState() {
    const { rows: exists } = await this.pool.query(
      `select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relname = $1`,
      [STATE_TABLE],
    );
    if (exists.length === 0) return null;
    const { rows } = await this.pool.query<{ name: string; value: string }>(`select name, value from ${STATE_TABLE}`);
    return new Map(rows.map((r) => [r.name, r.value]));
  }

  async createState() {
    await this.pool.query(`create table ${STATE_TABLE} (name text primary key, value text not null)`);
  }

  async writeState(entries: Record<string, string>) {
    await this.putState(this.pool, entries);
  }

  async dropState() {
    await this.pool.query(`drop table if exists ${STATE_TABLE}`);
  }

  async exec(statement: string) {
    await this.pool.query(statement);
  }

  async query<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query<T>(text, params)).rows;
  }

  /** Foreign-key constraints of the schema, with the definition that re-creates each. */
  async foreignKeys(): Promise<{ table: string; name: string; definition: string }[]> {
    return this.query(`
      select c.relname as table, k.conname as name, pg_get_constraintdef(k.oid) as definition
        from pg_constraint k
        join pg_class c on c.oid = k.conrelid
        join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
       where k.contype = 'f' order by c.relname, k.conname`);
  }

  async close() {}
}
