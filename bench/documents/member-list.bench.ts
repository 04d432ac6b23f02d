import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { DialectName } from '../../src/db/database.ts';
import type { DB } from '../../src/db/schema.ts';
import { DIALECTS, startTestApp } from '../../test/support/app.ts';
import { createTenant, loginAs } from '../../test/support/fixtures.ts';
import { percentile } from '../support.ts';
import { seed, timeRequests } from './list.bench.ts';

// GET /documents as a `member` on 100,000 documents of one tenant, of which the member sees few
// (some uploaded by them, some shared with them, some with their workspace): the visibility filter
// is the cost here, not the sort. `wide` also shares every document of the largest folder (~60%,
// 62,000 documents) with the member's workspace. Target (issue 10 item 4): p99 < 50 ms.
//
// Each case is timed through HTTP (the visibility rows of migration 20261123_1600), and, in the same
// run on the same data, the queries the service ran before (list + count filtered by
// `id IN (owned ∪ shared ∪ workspace-shared)`, straight on the database, no HTTP): `legacy*Ms`.
//   DOC_BENCH_ROWS=100000 DOC_BENCH_REPEATS=30 node bench/documents/member-list.bench.ts

const OWNED = 40;
const SHARED = 40;
const WORKSPACE_SHARED = 40;

/** `narrow`: the member sees 120 documents; `wide`: also every document of the largest folder (~60%). */
type Scenario = 'narrow' | 'wide';

interface LegacyCase {
  folderId?: string;
  sort: 'created_at' | 'filename';
  order: 'asc' | 'desc';
  offset: number;
}

/** The list + count of the previous visibility filter (src/modules/documents/access/access.repository.ts before 20261123_1600). */
async function legacyListAndCount(db: Kysely<DB>, tenantId: string, userId: string, c: LegacyCase): Promise<number> {
  const visible = (eb: ExpressionBuilder<DB, 'documents'>) => {
    const sharedWithUser = eb
      .selectFrom('document_shares')
      .select('document_shares.document_id as id')
      .where('document_shares.tenant_id', '=', tenantId)
      .where('document_shares.user_id', '=', userId);
    const sharedWithWorkspaces = eb
      .selectFrom('document_shares')
      .select('document_shares.document_id as id')
      .where('document_shares.tenant_id', '=', tenantId)
      .where(
        'document_shares.workspace_id',
        'in',
        eb
          .selectFrom('workspace_members')
          .select('workspace_members.workspace_id')
          .where('workspace_members.tenant_id', '=', tenantId)
          .where('workspace_members.user_id', '=', userId),
      );
    const owned = eb
      .selectFrom('documents as owned')
      .select('owned.id as id')
      .where('owned.tenant_id', '=', tenantId)
      .where('owned.owner_id', '=', userId);
    return eb('documents.id', 'in', owned.unionAll(sharedWithUser).unionAll(sharedWithWorkspaces));
  };
  let q = db.selectFrom('documents').where('documents.tenant_id', '=', tenantId);
  if (c.folderId !== undefined) q = q.where('documents.folder_id', '=', c.folderId);
  q = q.where(visible);
  const sortKey = c.sort === 'filename' ? sql`lower(documents.filename)` : sql.ref('documents.created_at');
  const [rows, count] = await Promise.all([
    q
      .selectAll('documents')
      .orderBy(sortKey, c.order)
      .orderBy('documents.id', c.order)
      .limit(20)
      .offset(c.offset)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return rows.length + Number(count.n);
}

async function timeLegacy(
  db: Kysely<DB>,
  tenantId: string,
  userId: string,
  c: LegacyCase,
  repeats: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < repeats + 3; i++) {
    const started = performance.now();
    await legacyListAndCount(db, tenantId, userId, c);
    if (i >= 3) times.push(performance.now() - started);
  }
  return times;
}

const ms = (n: number) => Number(n.toFixed(2));

async function runDialect(dialect: DialectName, rows: number, repeats: number, scenario: Scenario) {
  const t = await startTestApp(dialect);
  try {
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const { hotFolder } = await seed(t, tenant.tenantId, rows);
    const member = await loginAs(t, tenant, 'member');
    const viewer = await loginAs(t, tenant, 'viewer');
    const db = t.container.database.db;
    const pick = (n: number, offset: number) =>
      Array.from({ length: n }, (_, i) => `doc-${String((offset + i * 997) % rows).padStart(7, '0')}`);
    await db.updateTable('documents').set({ owner_id: member.userId }).where('id', 'in', pick(OWNED, 11)).execute();
    const ws = await t.app.inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: tenant.headers,
      payload: { name: 'Bench team' },
    });
    const workspaceId = ws.json().id as string;
    for (const u of [member, viewer]) {
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/workspaces/${workspaceId}/members`,
        headers: tenant.headers,
        payload: { user_id: u.userId },
      });
    }
    const now = Date.now();
    const shares = [
      ...pick(SHARED, 23).map((id, i) => ({
        id: `share-u-${i}`,
        document_id: id,
        user_id: member.userId,
        workspace_id: null,
      })),
      ...pick(WORKSPACE_SHARED, 37).map((id, i) => ({
        id: `share-w-${i}`,
        document_id: id,
        user_id: null,
        workspace_id: workspaceId,
      })),
    ];
    await db
      .insertInto('document_shares')
      .values(
        shares.map((s) => ({
          ...s,
          tenant_id: tenant.tenantId,
          permission: 'view',
          created_by: null,
          created_at: now,
        })),
      )
      .execute();
    let wideShareSeconds: number | undefined;
    if (scenario === 'wide') {
      const started = performance.now();
      await sql`insert into document_shares (id, tenant_id, document_id, user_id, workspace_id, permission, created_by, created_at)
        select 'wide-' || id, tenant_id, id, null, ${workspaceId}, 'view', null, ${now} from documents
        where tenant_id = ${tenant.tenantId} and folder_id = ${hotFolder}
        and id not in (select document_id from document_shares where workspace_id = ${workspaceId})`.execute(db);
      wideShareSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
    }
    if (dialect === 'postgres') await t.container.database.pgPool!.query('VACUUM ANALYZE');
    else await sql`ANALYZE`.execute(db);

    const cases: {
      who: string;
      url: string;
      total: number;
      p50Ms: number;
      p99Ms: number;
      legacyP50Ms?: number;
      legacyP99Ms?: number;
    }[] = [];
    const urls: [string, LegacyCase | null][] = [
      ['/api/v1/documents?page=1&limit=20', { sort: 'created_at', order: 'desc', offset: 0 }],
      ['/api/v1/documents?page=2&limit=20&sort=name&order=asc', { sort: 'filename', order: 'asc', offset: 20 }],
      [
        `/api/v1/documents?folder_id=${hotFolder}&page=1&limit=20`,
        { folderId: hotFolder, sort: 'created_at', order: 'desc', offset: 0 },
      ],
      [`/api/v1/documents?folder_id=${hotFolder}&page=3&limit=20&sort=name&order=desc`, null],
      ['/api/v1/documents?page=1&limit=20&sort=updated_at&order=desc', null],
      ['/api/v1/documents?page=1&limit=20&sort=size&order=asc', null],
      ['/api/v1/documents?page=500&limit=20', null],
      ['/api/v1/documents?page=1&limit=20&search=report-1', null],
    ];
    for (const [url, legacy] of urls) {
      const check = await t.app.inject({ url, headers: member.headers });
      const times = await timeRequests(t, url, member.headers, repeats);
      const row: (typeof cases)[number] = {
        who: 'member',
        url,
        total: check.json().total,
        p50Ms: ms(percentile(times, 50)),
        p99Ms: ms(percentile(times, 99)),
      };
      if (legacy) {
        const before = await timeLegacy(db, tenant.tenantId, member.userId, legacy, repeats);
        row.legacyP50Ms = ms(percentile(before, 50));
        row.legacyP99Ms = ms(percentile(before, 99));
      }
      cases.push(row);
    }
    // A viewer in the same workspace: same shares, but never their own documents (shares > 0 on each row).
    for (const url of ['/api/v1/documents?page=1&limit=20', '/api/v1/documents?page=2&limit=20&sort=name&order=asc']) {
      const check = await t.app.inject({ url, headers: viewer.headers });
      const times = await timeRequests(t, url, viewer.headers, repeats);
      cases.push({
        who: 'viewer',
        url,
        total: check.json().total,
        p50Ms: ms(percentile(times, 50)),
        p99Ms: ms(percentile(times, 99)),
      });
    }
    // The write side: adding a member to the workspace copies one visibility row per document shared with it.
    const third = await loginAs(t, tenant, 'member', { email: 'third@example.com' });
    const started = performance.now();
    const added = await t.app.inject({
      method: 'POST',
      url: `/api/v1/workspaces/${workspaceId}/members`,
      headers: tenant.headers,
      payload: { user_id: third.userId },
    });
    const addMemberMs = ms(performance.now() - started);
    if (added.statusCode !== 201) throw new Error(`add member: ${added.statusCode} ${added.body}`);
    return {
      dialect,
      scenario,
      rows,
      wideShareSeconds,
      addMemberMs,
      worstP99Ms: Math.max(...cases.map((c) => c.p99Ms)),
      worstLegacyP99Ms: Math.max(...cases.map((c) => c.legacyP99Ms ?? 0)),
      cases,
    };
  } finally {
    await t.close();
  }
}

export async function run(options: { rows?: number; repeats?: number } = {}) {
  const rows = options.rows ?? Number(process.env['DOC_BENCH_ROWS'] ?? 100_000);
  const repeats = options.repeats ?? Number(process.env['DOC_BENCH_REPEATS'] ?? 30);
  const scenarios = (process.env['DOC_BENCH_SCENARIOS'] ?? 'narrow,wide').split(',') as Scenario[];
  const results = [];
  for (const dialect of DIALECTS) {
    for (const scenario of scenarios) results.push(await runDialect(dialect, rows, repeats, scenario));
  }
  return results;
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
