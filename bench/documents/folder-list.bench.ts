import { sql } from 'kysely';
import type { DialectName } from '../../src/db/database.ts';
import { DIALECTS, startTestApp } from '../../test/support/app.ts';
import { documentRow } from '../../test/support/document-rows.ts';
import { createTenant } from '../../test/support/fixtures.ts';
import { percentile } from '../support.ts';
import { timeRequests } from './list.bench.ts';

// GET /folders with document counts on a deep tree and many documents: 1,000 folders (20 chains
// 50 deep) holding 100,000 documents. Issue 4: "counts must stay fast with deep trees and many
// documents". Same bar as the document lists: p99 < 30 ms.
//   DOC_BENCH_ROWS=100000 DOC_BENCH_REPEATS=30 node bench/documents/folder-list.bench.ts

const CHAINS = 20;
const DEPTH = 50;

async function runDialect(dialect: DialectName, rows: number, repeats: number) {
  const t = await startTestApp(dialect);
  try {
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const db = t.container.database.db;
    const now = Date.now();
    const folderIds: string[] = [];
    for (let chain = 0; chain < CHAINS; chain++) {
      const values = [];
      for (let level = 0; level < DEPTH; level++) {
        const id = `f-${chain}-${level}`;
        values.push({
          id,
          tenant_id: tenant.tenantId,
          parent_id: level === 0 ? null : `f-${chain}-${level - 1}`,
          name: `Folder ${chain}.${level}`,
          name_key: `folder ${chain}.${level}`,
          color: '#6B7280',
          icon: 'folder',
          created_by: null,
          created_at: now,
          updated_at: now,
        });
        folderIds.push(id);
      }
      await db.insertInto('folders').values(values).execute();
    }
    for (let start = 0; start < rows; start += 500) {
      const values = [];
      for (let i = start; i < Math.min(rows, start + 500); i++) {
        values.push(
          documentRow(tenant.tenantId, `doc-${i}`, {
            folder_id: folderIds[(i * 7919) % folderIds.length]!,
            file_size: 100,
            created_at: now + i,
            updated_at: now + i,
          }),
        );
      }
      await db.insertInto('documents').values(values).execute();
    }
    if (dialect === 'postgres') await t.container.database.pgPool!.query('VACUUM ANALYZE');
    else await sql`ANALYZE`.execute(db);

    const deep = `f-7-${DEPTH - 2}`;
    const cases = [];
    for (const url of [
      '/api/v1/folders',
      '/api/v1/folders?include_document_count=false',
      '/api/v1/folders?parent_id=root',
      `/api/v1/folders?parent_id=${deep}`,
      `/api/v1/folders/${deep}`,
    ]) {
      const times = await timeRequests(t, url, tenant.headers, repeats);
      cases.push({
        url,
        p50Ms: Number(percentile(times, 50).toFixed(2)),
        p99Ms: Number(percentile(times, 99).toFixed(2)),
      });
    }
    return {
      dialect,
      folders: folderIds.length,
      documents: rows,
      worstP99Ms: Math.max(...cases.map((c) => c.p99Ms)),
      cases,
    };
  } finally {
    await t.close();
  }
}

export async function run(options: { rows?: number; repeats?: number } = {}) {
  const rows = options.rows ?? Number(process.env['DOC_BENCH_ROWS'] ?? 100_000);
  const repeats = options.repeats ?? Number(process.env['DOC_BENCH_REPEATS'] ?? 30);
  const results = [];
  for (const dialect of DIALECTS) results.push(await runDialect(dialect, rows, repeats));
  return results;
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
