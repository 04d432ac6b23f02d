import { sql } from 'kysely';
import type { DialectName } from '../../src/db/database.ts';
import { DIALECTS, startTestApp, type TestApp } from '../../test/support/app.ts';
import { documentRow } from '../../test/support/document-rows.ts';
import { percentile } from '../support.ts';

// GET /documents on 100,000 documents of one tenant (rows bulk-inserted with Kysely): page 1 and
// page 500 with a folder filter, for every sort and both orders, through the whole HTTP stack
// (app.inject: routing, auth, validation, queries, serialisation). Target: p99 < 30 ms on SQLite
// and on PostgreSQL.
//   DOC_BENCH_ROWS=100000 DOC_BENCH_REPEATS=30 node bench/documents/list.bench.ts

const SORTS = ['created_at', 'updated_at', 'name', 'size'] as const;
const FOLDERS = 10;
/** Share of the documents in the folder that is listed (the rest spread over the others and the top level). */
const HOT_FOLDER_SHARE = 0.6;

export interface ListBenchCase {
  sort: string;
  order: string;
  page: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ListBenchResult {
  dialect: DialectName;
  rows: number;
  hotFolderRows: number;
  insertSeconds: number;
  worstP99Ms: number;
  unfilteredPage1P99Ms: number;
  cases: ListBenchCase[];
}

export async function seed(
  t: TestApp,
  tenantId: string,
  rows: number,
): Promise<{ hotFolder: string; hotRows: number }> {
  const db = t.container.database.db;
  const now = Date.now();
  const folderIds = Array.from({ length: FOLDERS }, (_, i) => `bench-folder-${i}`);
  await db
    .insertInto('folders')
    .values(
      folderIds.map((id, i) => ({
        id,
        tenant_id: tenantId,
        parent_id: null,
        name: `Folder ${i}`,
        name_key: `folder ${i}`,
        color: '#6B7280',
        icon: 'folder',
        created_by: null,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  let hotRows = 0;
  const batch = 500;
  let seedValue = 42;
  const random = () => {
    seedValue = (seedValue * 1103515245 + 12345) & 0x7fffffff;
    return seedValue / 0x7fffffff;
  };
  for (let start = 0; start < rows; start += batch) {
    const values = [];
    for (let i = start; i < Math.min(rows, start + batch); i++) {
      const r = random();
      const folder =
        r < HOT_FOLDER_SHARE ? folderIds[0]! : r < 0.95 ? folderIds[1 + Math.floor(random() * (FOLDERS - 1))]! : null;
      if (folder === folderIds[0]) hotRows++;
      const created = now - (rows - i) * 60_000;
      const id = `doc-${String(i).padStart(7, '0')}`;
      values.push(
        documentRow(tenantId, id, {
          folder_id: folder,
          filename: `${Math.floor(random() * 1e9).toString(36)}-report-${i}.pdf`,
          original_filename: `report-${i}.pdf`,
          extension: 'pdf',
          file_type: 'application/pdf',
          file_size: Math.floor(random() * 50_000_000),
          ai_status: 'completed',
          enable_ai: 1,
          ai_summary:
            'A summary of moderate length, as the AI pipeline would write it for a typical business document.',
          ai_tags: '["finance","report"]',
          entities: '{"people":["Ada Lovelace"],"organizations":["Acme Ltd"],"dates":["2025-01-31"]}',
          metadata: '{"pages":3}',
          created_at: created,
          updated_at: created + Math.floor(random() * 86_400_000),
        }),
      );
    }
    await db.insertInto('documents').values(values).execute();
  }
  return { hotFolder: folderIds[0]!, hotRows };
}

export async function timeRequests(
  t: TestApp,
  url: string,
  headers: Record<string, string>,
  repeats: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < repeats + 3; i++) {
    const started = performance.now();
    const res = await t.app.inject({ url, headers });
    const ms = performance.now() - started;
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    if (i >= 3) times.push(ms); // the first few warm caches and compile the statements
  }
  return times;
}

async function runDialect(dialect: DialectName, rows: number, repeats: number): Promise<ListBenchResult> {
  const t = await startTestApp(dialect);
  try {
    const created = await t.admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: {
        name: 'Bench',
        subdomain: `list-bench-${dialect}`,
        tier: 'enterprise',
        owner: { email: 'b@example.com', password: 'bench password 1', name: 'B' },
      },
    });
    const { tenant, api_key } = created.json() as { tenant: { id: string }; api_key: string };
    const started = performance.now();
    const { hotFolder, hotRows } = await seed(t, tenant.id, rows);
    const insertSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
    if (dialect === 'postgres') await t.container.database.pgPool!.query('VACUUM ANALYZE documents');
    else await sql`ANALYZE`.execute(t.container.database.db);
    const headers = { 'x-api-key': api_key };
    const cases: ListBenchCase[] = [];
    for (const sort of SORTS) {
      for (const order of ['desc', 'asc']) {
        for (const page of [1, 500]) {
          const times = await timeRequests(
            t,
            `/api/v1/documents?folder_id=${hotFolder}&sort=${sort}&order=${order}&page=${page}&limit=20`,
            headers,
            repeats,
          );
          cases.push({
            sort,
            order,
            page,
            p50Ms: Number(percentile(times, 50).toFixed(2)),
            p99Ms: Number(percentile(times, 99).toFixed(2)),
          });
        }
      }
    }
    const unfiltered = await timeRequests(t, '/api/v1/documents?page=1&limit=20', headers, repeats);
    return {
      dialect,
      rows,
      hotFolderRows: hotRows,
      insertSeconds,
      worstP99Ms: Math.max(...cases.map((c) => c.p99Ms)),
      unfilteredPage1P99Ms: Number(percentile(unfiltered, 99).toFixed(2)),
      cases,
    };
  } finally {
    await t.close();
  }
}

export async function run(options: { rows?: number; repeats?: number } = {}): Promise<ListBenchResult[]> {
  const rows = options.rows ?? Number(process.env['DOC_BENCH_ROWS'] ?? 100_000);
  const repeats = options.repeats ?? Number(process.env['DOC_BENCH_REPEATS'] ?? 30);
  const results: ListBenchResult[] = [];
  for (const dialect of DIALECTS) results.push(await runDialect(dialect, rows, repeats));
  return results;
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
