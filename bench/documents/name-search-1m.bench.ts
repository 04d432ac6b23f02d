import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, type SqlBool, sql } from 'kysely';
import { openDatabase, type Database, type DialectName } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import type { DB } from '../../src/db/schema.ts';
import { DocumentsRepository } from '../../src/modules/documents/documents.repository.ts';
import { likePattern } from '../../src/modules/documents/name-filter.ts';
import { documentRow } from '../../test/support/document-rows.ts';
import { postgresAdminUrl } from '../../test/support/databases.ts';
import { percentile } from '../support.ts';

// The document list's filename filter (`search`) for the owner of 1,000,000 documents (issue 31
// item 4: p99 < 50 ms), with the trigram index, against the scan it replaces (the previous
// repository's `lower(filename) LIKE '%…%'` list + count), both on the same database in the same
// run. Page 1 of 20, newest first, with `total`, as GET /documents answers it, through the
// repository (no HTTP). The corpus is the one of owner-list-1m.bench.ts (`<base36>-report-<i>.pdf`)
// beside a second tenant of 100,000 documents with the same names (the index is shared by
// tenants). Built once and kept for later runs: SQLite in $TMPDIR/docuvault-bench-names/, PostgreSQL
// in the database `docuvault_bench_names` of the local server.
//   NAME_BENCH_ROWS=1000000 NAME_BENCH_REPEATS=30 NAME_BENCH_DIALECTS=sqlite,postgres node bench/documents/name-search-1m.bench.ts

const TENANT = 'bench-names-owner';
const NEIGHBOUR = 'bench-names-neighbour';
const ms = (n: number) => Number(n.toFixed(1));

/** The searches: how selective each is on this corpus is printed with its timings. */
const SEARCHES = [
  'report-1', // the case of docs/benchmarks.md: 111,111 matches
  'report-4711', // 111 matches
  '-123456.', // one match
  'zk', // 2 characters: no trigram, a scan as before
  'k3x', // a base36 fragment: a few thousand
  'q7vv', // a rarer one
  'no such name', // none
];

async function seed(database: Database, rows: number): Promise<number> {
  const db = database.db;
  const now = Date.now();
  const started = performance.now();
  for (const [tenantId, count] of [
    [TENANT, rows],
    [NEIGHBOUR, Math.floor(rows / 10)],
  ] as const) {
    await db
      .insertInto('tenants')
      .values({
        id: tenantId,
        name: tenantId,
        subdomain: tenantId,
        tier: 'enterprise',
        status: 'active',
        cors_origins: '[]',
        sandbox_of: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    let seedValue = 7;
    const random = () => {
      seedValue = (seedValue * 1103515245 + 12345) & 0x7fffffff;
      return seedValue / 0x7fffffff;
    };
    for (let start = 0; start < count; start += 20_000) {
      await db.transaction().execute(async (trx) => {
        for (let b = start; b < Math.min(count, start + 20_000); b += 500) {
          const values = [];
          for (let i = b; i < Math.min(count, b + 500); i++) {
            const created = now - (count - i) * 1000;
            values.push(
              documentRow(tenantId, `${tenantId}-${String(i).padStart(7, '0')}`, {
                filename: `${Math.floor(random() * 1e9).toString(36)}-report-${i}.pdf`,
                extension: 'pdf',
                file_type: 'application/pdf',
                created_at: created,
                updated_at: created,
              }),
            );
          }
          await trx.insertInto('documents').values(values).execute();
        }
      });
    }
  }
  await sql`analyze`.execute(db);
  return Number(((performance.now() - started) / 1000).toFixed(1));
}

/** The list and count of the repository before the index (the same statements, inlined). */
async function scanListAndCount(db: Kysely<DB>, dialect: DialectName, search: string): Promise<number> {
  const pattern = likePattern(search);
  const where = sql<SqlBool>`lower(documents.filename) like ${pattern} escape '\\'`;
  // On PostgreSQL `lower(filename) || ''` keeps the planner off the new index, as before it existed.
  const scanWhere =
    dialect === 'postgres' ? sql<SqlBool>`(lower(documents.filename) || '') like ${pattern} escape '\\'` : where;
  await db
    .selectFrom('documents')
    .selectAll()
    .where('tenant_id', '=', TENANT)
    .where(scanWhere)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(20)
    .execute();
  const row = await db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', TENANT)
    .where(scanWhere)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** `repeats` timed runs after a warm one; a case slower than half a second gets 3, so the run ends. */
async function time(repeats: number, run: () => Promise<unknown>): Promise<number[]> {
  const warm = performance.now();
  await run();
  const runs = performance.now() - warm > 500 ? Math.min(3, repeats) : repeats;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times;
}

async function open(dialect: DialectName): Promise<Database> {
  if (dialect === 'sqlite') {
    const dataDir = join(tmpdir(), 'docuvault-bench-names');
    mkdirSync(dataDir, { recursive: true });
    return openDatabase({ url: null, dataDir });
  }
  const server = await postgresAdminUrl();
  if (!server) throw new Error('no PostgreSQL server answers');
  const admin = openDatabase({ url: server, dataDir: tmpdir(), pipelinedConnections: 0 });
  const exists = await sql<{
    n: number;
  }>`select count(*)::int as n from pg_database where datname = 'docuvault_bench_names'`.execute(admin.db);
  if (exists.rows[0]!.n === 0) await sql`create database docuvault_bench_names`.execute(admin.db);
  await admin.destroy();
  const url = new URL(server);
  url.pathname = '/docuvault_bench_names';
  return openDatabase({ url: url.toString(), dataDir: tmpdir(), pipelinedConnections: 0 });
}

async function runDialect(dialect: DialectName, rows: number, repeats: number) {
  const database = await open(dialect);
  try {
    await migrateToLatest(database.db);
    const have = await database.db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', TENANT)
      .executeTakeFirstOrThrow();
    const seedSeconds = Number(have.n) === rows ? 'cached' : Number(have.n) === 0 ? await seed(database, rows) : null;
    if (seedSeconds === null)
      throw new Error(
        `the cached ${dialect} corpus has ${have.n} documents, not ${rows}: drop it (${dialect === 'sqlite' ? join(tmpdir(), 'docuvault-bench-names') : 'database docuvault_bench_names'})`,
      );
    const repository = new DocumentsRepository();
    const cases = [];
    for (const search of SEARCHES) {
      const filter = { scope: null, search };
      const indexed = await time(repeats, async () => {
        await repository.list(database.db, TENANT, filter, { sort: 'created_at', order: 'desc', limit: 20, offset: 0 });
        return repository.count(database.db, TENANT, filter);
      });
      const matches = await repository.count(database.db, TENANT, filter);
      const scanMatches = await scanListAndCount(database.db, dialect, search);
      if (scanMatches !== matches)
        throw new Error(`${dialect} '${search}': ${matches} matches with the index, ${scanMatches} by the scan`);
      const scan = await time(repeats, () => scanListAndCount(database.db, dialect, search));
      cases.push({
        search,
        matches,
        indexedP50Ms: ms(percentile(indexed, 50)),
        indexedP99Ms: ms(percentile(indexed, 99)),
        scanP50Ms: ms(percentile(scan, 50)),
        scanP99Ms: ms(percentile(scan, 99)),
      });
    }
    return { dialect, rows, seedSeconds, cases };
  } finally {
    await database.destroy();
  }
}

export async function run(options: { rows?: number; repeats?: number; dialects?: DialectName[] } = {}) {
  const rows = options.rows ?? Number(process.env['NAME_BENCH_ROWS'] ?? 1_000_000);
  const repeats = options.repeats ?? Number(process.env['NAME_BENCH_REPEATS'] ?? 30);
  const dialects =
    options.dialects ?? ((process.env['NAME_BENCH_DIALECTS'] ?? 'sqlite,postgres').split(',') as DialectName[]);
  const out = [];
  for (const dialect of dialects) out.push(await runDialect(dialect, rows, repeats));
  return out;
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
