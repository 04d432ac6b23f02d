import { sql } from 'kysely';
import type { DialectName } from '../../src/db/database.ts';
import { DIALECTS, startTestApp } from '../../test/support/app.ts';
import { createTenant, loginAs } from '../../test/support/fixtures.ts';
import { percentile } from '../support.ts';
import { seed, timeRequests } from './list.bench.ts';

// GET /documents as a `member` on 100,000 documents of one tenant, of which the member sees few
// (some uploaded by them, some shared with them, some with their workspace): the visibility filter
// is the cost here, not the sort. Same target as the admin lists: p99 < 30 ms.
//   DOC_BENCH_ROWS=100000 DOC_BENCH_REPEATS=30 node bench/documents/member-list.bench.ts

const OWNED = 40;
const SHARED = 40;
const WORKSPACE_SHARED = 40;

/** `narrow`: the member sees 120 documents; `wide`: also every document of the largest folder (~60%). */
type Scenario = 'narrow' | 'wide';

async function runDialect(dialect: DialectName, rows: number, repeats: number, scenario: Scenario) {
  const t = await startTestApp(dialect);
  try {
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const { hotFolder } = await seed(t, tenant.tenantId, rows);
    const member = await loginAs(t, tenant, 'member');
    const db = t.container.database.db;
    const pick = (n: number, offset: number) => Array.from({ length: n }, (_, i) => `doc-${String((offset + i * 997) % rows).padStart(7, '0')}`);
    await db.updateTable('documents').set({ owner_id: member.userId }).where('id', 'in', pick(OWNED, 11)).execute();
    const ws = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: tenant.headers, payload: { name: 'Bench team' } });
    const workspaceId = ws.json().id as string;
    await t.app.inject({ method: 'POST', url: `/api/v1/workspaces/${workspaceId}/members`, headers: tenant.headers, payload: { user_id: member.userId } });
    const now = Date.now();
    const shares = [
      ...pick(SHARED, 23).map((id, i) => ({ id: `share-u-${i}`, document_id: id, user_id: member.userId, workspace_id: null })),
      ...pick(WORKSPACE_SHARED, 37).map((id, i) => ({ id: `share-w-${i}`, document_id: id, user_id: null, workspace_id: workspaceId })),
    ];
    await db
      .insertInto('document_shares')
      .values(shares.map((s) => ({ ...s, tenant_id: tenant.tenantId, permission: 'view', created_by: null, created_at: now })))
      .execute();
    if (scenario === 'wide') {
      await sql`insert into document_shares (id, tenant_id, document_id, user_id, workspace_id, permission, created_by, created_at)
        select 'wide-' || id, tenant_id, id, null, ${workspaceId}, 'view', null, ${now} from documents
        where tenant_id = ${tenant.tenantId} and folder_id = ${hotFolder}
        and id not in (select document_id from document_shares where workspace_id = ${workspaceId})`.execute(db);
    }
    if (dialect === 'postgres') await t.container.database.pgPool!.query('VACUUM ANALYZE');
    else await sql`ANALYZE`.execute(db);

    const cases: { url: string; total: number; p50Ms: number; p99Ms: number }[] = [];
    for (const url of [
      '/api/v1/documents?page=1&limit=20',
      '/api/v1/documents?page=2&limit=20&sort=name&order=asc',
      `/api/v1/documents?folder_id=${hotFolder}&page=1&limit=20`,
    ]) {
      const check = await t.app.inject({ url, headers: member.headers });
      const times = await timeRequests(t, url, member.headers, repeats);
      cases.push({ url, total: check.json().total, p50Ms: Number(percentile(times, 50).toFixed(2)), p99Ms: Number(percentile(times, 99).toFixed(2)) });
    }
    return { dialect, scenario, rows, worstP99Ms: Math.max(...cases.map((c) => c.p99Ms)), cases };
  } finally {
    await t.close();
  }
}

export async function run(options: { rows?: number; repeats?: number } = {}) {
  const rows = options.rows ?? Number(process.env['DOC_BENCH_ROWS'] ?? 100_000);
  const repeats = options.repeats ?? Number(process.env['DOC_BENCH_REPEATS'] ?? 30);
  const results = [];
  for (const dialect of DIALECTS) {
    for (const scenario of ['narrow', 'wide'] as const) results.push(await runDialect(dialect, rows, repeats, scenario));
  }
  return results;
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
