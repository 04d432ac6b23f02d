import type { DialectName } from '../database.ts';
import { type ColumnInfo, dependencyOrder, NOT_DATA, quoteIdent as q, type TableInfo } from './catalog.ts';
import { DERIVED_TABLES } from './derived.ts';
import { type Endpoint, PostgresEndpoint, SqliteEndpoint } from './endpoints.ts';
import { addDigest, rowDigest, toPostgres, toSqlite } from './values.ts';

/** The transfer will not start or go on (non-empty target, schema mismatch, another transfer's state). */
export class TransferRefused extends Error {}

export interface TransferOptions {
  /** What identifies the source (a file path, a URL without password): a resume must name the same one. */
  sourceName: string;
  batchSize?: number;
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string) => void;
  now?: () => number;
  /** Called before every batch: the CLI's kill -9 tests and a stop request hook in here. */
  /** Tables copied (and verified) at the same time, each on its own connection (default 2). */
  parallel?: number;
  beforeBatch?: (table: string, copied: number) => void | Promise<void>;
}

export interface TableReport {
  table: string;
  rows: number;
  /** Sum of row digests, 16 hex digits; `rebuilt` for derived indexes. */
  checksum: string;
  ok: boolean;
}

interface TableState {
  lastKey: unknown[] | null;
  rows: number;
  sum: string;
  done: boolean;
}

interface Meta {
  source: string;
  /** PostgreSQL target: foreign keys dropped for the copy, re-added (and so validated) at the end. */
  foreignKeys?: { table: string; name: string; definition: string }[];
  /** SQLite target: triggers dropped for the copy, re-created at the end. */
  triggers?: { name: string; sql: string }[];
  /** PostgreSQL target: tables whose user triggers are disabled for the copy. */
  disabledTriggers?: string[];
}

interface PlannedTable {
  source: TableInfo;
  target: TableInfo;
  /** Target columns in the order the source is read. */
  columns: ColumnInfo[];
}

const hex = (n: bigint) => n.toString(16).padStart(16, '0');

function duration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  const s = Math.round(ms / 1000);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${s % 60}s`
      : `${s}s`;
}

/** Runs `work` over the items, at most `limit` at a time, in the items' order. */
/** The first failure stops every lane at its next item (or batch: `stopped()`), and is thrown once all have stopped. */
async function inParallel<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, stopped: () => boolean) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const stopped = () => failed;
  const lane = async () => {
    while (next < items.length && !failed) {
      try {
        await work(items[next++]!, stopped);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Which tables are copied, and the target column of each source column; refuses what cannot be copied. */
function plan(sourceTables: TableInfo[], targetTables: TableInfo[]): PlannedTable[] {
  const targets = new Map(targetTables.map((t) => [t.name, t]));
  const planned: PlannedTable[] = [];
  for (const source of dependencyOrder(sourceTables)) {
    if (NOT_DATA.has(source.name) || DERIVED_TABLES[source.name]) continue;
    const target = targets.get(source.name);
    if (!target)
      throw new TransferRefused(
        `table ${source.name} is in the source but not in the migrated target: are both on the same version of the service?`,
      );
    const names = new Set(target.columns.map((c) => c.name));
    const missing = source.columns.filter((c) => !names.has(c.name)).map((c) => c.name);
    const extra = target.columns.filter((c) => !source.columns.some((s) => s.name === c.name)).map((c) => c.name);
    if (missing.length > 0 || extra.length > 0) {
      throw new TransferRefused(
        `table ${source.name} differs between source and target (only in source: ${missing.join(', ') || '-'}; only in target: ${extra.join(', ') || '-'})`,
      );
    }
    if (source.primaryKey.length === 0)
      throw new TransferRefused(`table ${source.name} has no primary key: it cannot be copied in resumable batches`);
    planned.push({
      source,
      target,
      columns: source.columns.map((c) => target.columns.find((t) => t.name === c.name)!),
    });
  }
  return planned;
}

/** Makes the target accept rows in any order without firing the service's triggers (idempotent: re-run on resume). */
async function relaxTarget(
  target: Endpoint,
  tables: PlannedTable[],
  meta: Meta,
  save: () => Promise<void>,
): Promise<void> {
  if (target instanceof PostgresEndpoint) {
    meta.foreignKeys ??= await target.foreignKeys();
    await save(); // saved before anything is dropped: a crash in between must not lose a definition
    // One transaction (one commit, not one per statement): all dropped and disabled, or none.
    await target.exec(
      [
        'begin',
        ...meta.foreignKeys.map((fk) => `alter table ${q(fk.table)} drop constraint if exists ${q(fk.name)}`),
        ...tables.map((t) => `alter table ${q(t.target.name)} disable trigger user`),
        'commit',
      ].join(';\n'),
    );
  } else if (target instanceof SqliteEndpoint) {
    meta.triggers ??= target.triggers();
    await save();
    for (const t of meta.triggers) await target.exec(`drop trigger if exists ${q(t.name)}`);
  }
}

/** Puts back what relaxTarget took away; re-adding foreign keys validates every reference. */
async function restoreTarget(target: Endpoint, tables: PlannedTable[], meta: Meta): Promise<void> {
  if (target instanceof PostgresEndpoint) {
    const present = new Set((await target.foreignKeys()).map((f) => `${f.table}.${f.name}`));
    // One transaction: one commit for every trigger and key instead of one each (each key is still
    // validated); a failure leaves the target relaxed as it was, and a rerun puts everything back.
    await target.exec(
      [
        'begin',
        ...tables.map((t) => `alter table ${q(t.target.name)} enable trigger user`),
        ...(meta.foreignKeys ?? [])
          .filter((fk) => !present.has(`${fk.table}.${fk.name}`))
          .map((fk) => `alter table ${q(fk.table)} add constraint ${q(fk.name)} ${fk.definition}`),
        'commit',
      ].join(';\n'),
    );
  } else if (target instanceof SqliteEndpoint) {
    const present = new Set(target.triggers().map((t) => t.name));
    for (const t of meta.triggers ?? []) if (!present.has(t.name)) await target.exec(t.sql);
    const broken = target.foreignKeyViolations();
    if (broken.length > 0)
      throw new TransferRefused(
        `the copy breaks ${broken.length} foreign key(s), first in ${broken[0]!.table} -> ${broken[0]!.parent}`,
      );
  }
}

/** Sequences (identity/serial columns) continue after the highest copied value. */
async function resetSequences(target: Endpoint, tables: PlannedTable[]): Promise<void> {
  if (!(target instanceof PostgresEndpoint)) return; // SQLite's AUTOINCREMENT counter follows explicit inserts by itself.
  for (const t of tables) {
    for (const c of t.target.columns.filter((col) => col.sequenced)) {
      await target.exec(
        `select setval(pg_get_serial_sequence('${q(t.target.name).replaceAll("'", "''")}', '${c.name.replaceAll("'", "''")}'), coalesce((select max(${q(c.name)}) from ${q(t.target.name)}), 0) + 1, false)`,
      );
    }
  }
}

/** The row count and checksum of a table as the target holds it (a full read, in key order). */
async function targetChecksum(
  target: Endpoint,
  t: PlannedTable,
  batchSize: number,
): Promise<{ rows: number; sum: bigint }> {
  const names = t.columns.map((c) => c.name);
  const keyIndex = t.target.primaryKey.map((k) => names.indexOf(k));
  let after: unknown[] | null = null;
  let rows = 0;
  let sum = 0n;
  for (;;) {
    const batch = await target.readAfter(t.target, names, after, batchSize);
    for (const row of batch)
      sum = addDigest(
        sum,
        rowDigest(
          names.map((n) => row[n]),
          t.columns,
        ),
      );
    rows += batch.length;
    if (batch.length < batchSize) return { rows, sum };
    const last = batch[batch.length - 1]!;
    after = keyIndex.map((i) => last[names[i]!]);
  }
}

/**
 * Copies every table of `source` into `target` (already migrated to the same version): in
 * foreign-key order, in batches each committed with its progress, so a run interrupted at any
 * point resumes where it stopped; then verifies counts and checksums, restores the target's
 * triggers and foreign keys, rebuilds the dialect's derived indexes and resets sequences.
 */
export async function transferTables(
  source: Endpoint,
  target: Endpoint,
  options: TransferOptions,
): Promise<TableReport[]> {
  const batchSize = options.batchSize ?? 2_000;
  const progress = options.progress ?? (() => {});
  const now = options.now ?? Date.now;
  const tables = plan(await source.tables(), await target.tables());

  let stateRows = await target.readState();
  let meta: Meta;
  if (stateRows === null) {
    for (const t of tables) {
      const n = await target.count(t.target.name);
      if (n > 0)
        throw new TransferRefused(
          `the target is not empty: table ${t.target.name} has ${n} row(s); transfer into a new, empty database`,
        );
    }
    await target.createState();
    meta = { source: options.sourceName };
    await target.writeState({ meta: JSON.stringify(meta) });
    stateRows = new Map();
  } else if (!stateRows.has('meta')) {
    // Stopped between creating the state table and its first row: nothing was copied yet.
    meta = { source: options.sourceName };
  } else {
    meta = JSON.parse(stateRows.get('meta')!) as Meta;
    if (meta.source !== options.sourceName) {
      throw new TransferRefused(
        `the target holds an unfinished transfer from another source (${meta.source ?? 'unknown'}); use a new, empty database`,
      );
    }
    progress(`resuming the transfer from ${meta.source}`);
  }
  await relaxTarget(target, tables, meta, () => target.writeState({ meta: JSON.stringify(meta) }));

  const totals = new Map<string, number>();
  for (const t of tables) totals.set(t.source.name, await source.count(t.source.name));
  const grandTotal = [...totals.values()].reduce((a, b) => a + b, 0);
  const states = new Map<string, TableState>();
  for (const t of tables) {
    const saved = stateRows.get(`table:${t.source.name}`);
    states.set(
      t.source.name,
      saved ? (JSON.parse(saved) as TableState) : { lastKey: null, rows: 0, sum: '0', done: false },
    );
  }
  const copiedBefore = [...states.values()].reduce((a, s) => a + s.rows, 0);
  progress(
    `copying ${tables.length} tables, ${grandTotal} rows${copiedBefore > 0 ? ` (${copiedBefore} already copied)` : ''}`,
  );
  let copiedNow = 0;
  const started = now();
  let lastReport = 0;
  const convert = target.dialect === 'postgres' ? toPostgres : toSqlite;

  const report = (table: string, state: TableState) => {
    const at = now();
    if (!state.done && at - lastReport < 1_000) return;
    lastReport = at;
    const rate = copiedNow / Math.max(1, at - started);
    const left = grandTotal - copiedBefore - copiedNow;
    progress(
      `${table}: ${state.rows}/${totals.get(table)} rows; all tables ${copiedBefore + copiedNow}/${grandTotal} (${Math.round(rate * 1000)} rows/s, ETA ${duration(left > 0 ? left / rate : 0)})`,
    );
  };

  /**
   * One table, batch after batch. The next batch is read, converted and hashed while the target
   * writes the previous one; each batch commits with the state that follows it, so the state in
   * the target never runs ahead of the rows there.
   */
  const copyTable = async (t: PlannedTable, stopped: () => boolean) => {
    const state = states.get(t.source.name)!;
    const names = t.columns.map((c) => c.name);
    let sum = BigInt(state.sum);
    let writing: Promise<void> | null = null;
    try {
      while (!state.done && !stopped()) {
        await options.beforeBatch?.(t.source.name, state.rows);
        const batch = await source.readAfter(t.source, names, state.lastKey, batchSize);
        const rows: unknown[][] = new Array(batch.length);
        for (let r = 0; r < batch.length; r++) {
          const row = batch[r]!;
          const values = t.columns.map((c) => convert(row[c.name], c.type));
          rows[r] = values;
          sum = addDigest(sum, rowDigest(values, t.columns));
        }
        const last = batch[batch.length - 1];
        if (writing) await writing;
        state.rows += batch.length;
        state.sum = sum.toString();
        state.done = batch.length < batchSize;
        if (last) state.lastKey = t.source.primaryKey.map((k) => last[k]);
        const snapshot = { ...state };
        writing = target
          .writeBatch(t.target.name, t.columns, rows, { [`table:${t.source.name}`]: JSON.stringify(snapshot) })
          .then(() => {
            copiedNow += rows.length;
            report(t.source.name, snapshot);
          });
      }
      await writing;
    } finally {
      // Stopped by a failure (here or in another lane): the batch in flight ends before we return.
      await writing?.catch(() => {});
    }
  };
  await inParallel(
    tables.filter((t) => !states.get(t.source.name)!.done),
    options.parallel ?? 2,
    copyTable,
  );

  // Verification: the target, read back, must hold exactly what was read from the source.
  progress('verifying: reading every table of the target back');
  const reports: TableReport[] = new Array(tables.length);
  await inParallel(tables, options.parallel ?? 2, async (t) => {
    const state = states.get(t.source.name)!;
    const expectedRows = totals.get(t.source.name)!;
    // On PostgreSQL the server computes it in one scan (PostgresEndpoint.checksum); otherwise, and
    // for a column type it cannot render, every row is read back and hashed here.
    const held =
      (target instanceof PostgresEndpoint ? await target.checksum(t.target, t.columns) : null) ??
      (await targetChecksum(target, t, batchSize * 2));
    const ok = held.rows === expectedRows && held.rows === state.rows && held.sum === BigInt(state.sum);
    reports[tables.indexOf(t)] = { table: t.source.name, rows: held.rows, checksum: hex(held.sum), ok };
    if (!ok)
      progress(
        `${t.source.name}: the target holds ${held.rows} rows (checksum ${hex(held.sum)}), the source ${expectedRows} (copied ${state.rows}, checksum ${hex(BigInt(state.sum))})`,
      );
  });
  const bad = reports.filter((r) => !r.ok);
  if (bad.length > 0) {
    throw new TransferRefused(
      `verification failed for ${bad.map((r) => r.table).join(', ')}: the target does not hold what the source does (was the source written during the transfer?)`,
    );
  }

  progress('restoring triggers and foreign keys (validating every reference)');
  await restoreTarget(target, tables, meta);
  for (const [name, statements] of Object.entries(DERIVED_TABLES)) {
    if (!(await target.tables()).some((t) => t.name === name)) continue;
    progress(`rebuilding ${name} from the copied rows`);
    for (const statement of statements[target.dialect as DialectName]) await target.exec(statement);
    reports.push({ table: name, rows: await target.count(name), checksum: 'rebuilt', ok: true });
  }
  await resetSequences(target, tables);
  await target.dropState();
  return reports;
}
