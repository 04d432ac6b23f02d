import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../../db/database.ts';
import { migrateToLatest } from '../../db/migrator.ts';
import { PostgresEndpoint, SqliteEndpoint, type Endpoint } from '../../db/transfer/endpoints.ts';
import { type TableReport, TransferRefused, transferTables } from '../../db/transfer/transfer.ts';
import { liveInstances } from './instance-lease.ts';

/** A database as the configuration names it: a PostgreSQL URL, or the SQLite file of a DATA_DIR. */
export type Location = { url: string } | { dataDir: string };

const describe = (l: Location) => ('url' in l ? redactUrl(l.url) : path.join(path.resolve(l.dataDir), 'service.db'));

function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

function open(l: Location): Database {
  return 'url' in l
    ? openDatabase({ url: l.url, dataDir: '.', poolSize: 4, pipelinedConnections: 0, preparedStatements: false })
    : openDatabase({ url: null, dataDir: l.dataDir });
}

async function migrationNames(database: Database): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`
    .execute(database.db)
    .catch(() => ({ rows: [] as { name: string }[] }));
  return rows.map((r) => r.name);
}

/** Refuses a database a service process is using (its lease row is fresh: instance-lease.ts). */
async function refuseIfServed(database: Database, role: 'source' | 'target', now: number): Promise<void> {
  const live = await liveInstances(database.db, now);
  if (live.length === 0) return;
  const who = live
    .map((i) => `${i.role} pid ${i.pid} on ${i.host} (heartbeat ${Math.round(i.heartbeatAgoMs / 1000)}s ago)`)
    .join(', ');
  throw new TransferRefused(
    `the ${role} database is in use by a running service: ${who}. Stop every API and worker process first (a process killed without a clean stop is forgotten 30 s after its last heartbeat).`,
  );
}

export interface InstanceTransferOptions {
  from: Location;
  to: Location;
  batchSize?: number;
  progress?: (line: string) => void;
}

/**
 * `npm run db:transfer`: copies the configured database into another one, of either dialect.
 * The target is migrated first (it must then be empty, or hold this same transfer's state); the
 * source must be on the same schema version and not in use by a running service.
 */
export async function transferInstance(options: InstanceTransferOptions): Promise<TableReport[]> {
  const progress = options.progress ?? (() => {});
  if (describe(options.from) === describe(options.to))
    throw new TransferRefused('the source and the target are the same database');
  if ('dataDir' in options.from && !fs.existsSync(describe(options.from)))
    throw new TransferRefused(`there is no database at ${describe(options.from)} (DATA_DIR)`);
  const source = open(options.from);
  let target: Database | null = null;
  const ends: Endpoint[] = [];
  try {
    const sourceVersion = await migrationNames(source);
    if (sourceVersion.length === 0)
      throw new TransferRefused(`the source ${describe(options.from)} holds no service database`);
    await refuseIfServed(source, 'source', Date.now());

    target = open(options.to);
    progress(`migrating the target ${describe(options.to)}`);
    await migrateToLatest(target.db);
    const targetVersion = await migrationNames(target);
    if (sourceVersion.join() !== targetVersion.join()) {
      const behind = targetVersion.filter((m) => !sourceVersion.includes(m));
      throw new TransferRefused(
        behind.length > 0
          ? `the source is on an older schema (missing ${behind[0]}${behind.length > 1 ? ` and ${behind.length - 1} more` : ''}): run \`npm run migrate\` with the source's configuration first`
          : 'the source is on a newer schema than this version of the service: transfer with the version that wrote it',
      );
    }
    await refuseIfServed(target, 'target', Date.now());

    const endpoint = (database: Database, l: Location, readOnly: boolean): Endpoint =>
      database.pgPool ? new PostgresEndpoint(database.pgPool) : new SqliteEndpoint(describe(l), { readOnly });
    const from = endpoint(source, options.from, true);
    const to = endpoint(target, options.to, false);
    ends.push(from, to);
    let checkedAt = Date.now();
    const reports = await transferTables(from, to, {
      sourceName: describe(options.from),
      ...(options.batchSize ? { batchSize: options.batchSize } : {}),
      progress,
      // A service started on the source during the copy would make it stale: look again every few seconds.
      beforeBatch: async () => {
        if (Date.now() - checkedAt < 5_000) return;
        checkedAt = Date.now();
        await refuseIfServed(source, 'source', checkedAt);
      },
    });
    await refuseIfServed(source, 'source', Date.now());
    return reports;
  } finally {
    for (const e of ends) await e.close();
    await source.destroy();
    await target?.destroy();
  }
}

/** The report as printed at the end: a line per table, its rows and checksum. */
export function formatReport(reports: readonly TableReport[]): string {
  const width = Math.max(5, ...reports.map((r) => r.table.length));
  const lines = reports.map(
    (r) => `${r.table.padEnd(width)}  ${String(r.rows).padStart(10)}  ${r.checksum}  ${r.ok ? 'ok' : 'MISMATCH'}`,
  );
  return [`${'table'.padEnd(width)}  ${'rows'.padStart(10)}  checksum`, ...lines].join('\n');
}
