import { CompiledQuery, Kysely, SqliteDialect, sql } from 'kysely';
import { openSqlite } from '../../src/db/node-sqlite-adapter.ts';
import type { DB } from '../../src/db/schema.ts';
import { DocumentsRepository, type DocumentSort } from '../../src/modules/documents/documents.repository.ts';
import { visibilityScope } from '../../src/modules/documents/access/access.repository.ts';
import { startTestApp } from '../../test/support/app.ts';
import { documentRow } from '../../test/support/document-rows.ts';
import { createTenant, loginAs } from '../../test/support/fixtures.ts';
import { percentile } from '../support.ts';
import { timeRequests } from './list.bench.ts';

// GET /documents on one tenant of 1,000,000 documents, SQLite (issue 10 item 4: p99 < 50 ms for the
// owner, whose list has no visibility filter, `total` included). The corpus is built with 500-row
// inserts, 20,000 rows per transaction. A member of the same tenant sees 62,000 of the documents
// through a workspace share, to check the visibility rows at this size too. Prints each case's p50
// and p99 through HTTP, and the query plans (EXPLAIN QUERY PLAN) of the list and count queries as
// the repository compiles them.
//   DOC_BENCH_ROWS=1000000 DOC_BENCH_REPEATS=30 node bench/documents/owner-list-1m.bench.ts

const FOLDERS = 10;
const WIDE = 62_000;
const ms = (n: number) => Number(n.toFixed(2));

export async function run(options: { rows?: number; repeats?: number } = {}) {
  const rows = options.rows ?? Number(process.env['DOC_BENCH_1M_ROWS'] ?? 1_000_000);
  const repeats = options.repeats ?? Number(process.env['DOC_BENCH_REPEATS'] ?? 30);
  const t = await startTestApp('sqlite');
  try {
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const tenantId = tenant.tenantId;
    const db = t.container.database.db;
    const now = Date.now();
    const folderIds = Array.from({ length: FOLDERS }, (_, i) => `f-${i}`);
    await db
      .insertInto('folders')
      .values(
        folderIds.map((id, i) => ({
          id,
          tenant_id: tenantId,
          parent_id: null,
          name: `F${i}`,
          name_key: `f${i}`,
          color: '#6B7280',
          icon: 'folder',
          created_by: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();

    const started = performance.now();
    let seedValue = 7;
    const random = () => {
      seedValue = (seedValue * 1103515245 + 12345) & 0x7fffffff;
      return seedValue / 0x7fffffff;
    };
    for (let start = 0; start < rows; start += 20_000) {
      await db.transaction().execute(async (trx) => {
        for (let b = start; b < Math.min(rows, start + 20_000); b += 500) {
          const values = [];
          for (let i = b; i < Math.min(rows, b + 500); i++) {
            const created = now - (rows - i) * 1000;
            values.push(
              documentRow(tenantId, `doc-${String(i).padStart(7, '0')}`, {
                folder_id: random() < 0.95 ? folderIds[i % FOLDERS]! : null,
                filename: `${Math.floor(random() * 1e9).toString(36)}-report-${i}.pdf`,
                extension: 'pdf',
                file_type: 'application/pdf',
                file_size: Math.floor(random() * 50_000_000),
                created_at: created,
                updated_at: created + Math.floor(random() * 86_400_000),
              }),
            );
          }
          await trx.insertInto('documents').values(values).execute();
        }
      });
    }
    const insertSeconds = Number(((performance.now() - started) / 1000).toFixed(1));

    // A member who sees 62,000 of them through one workspace share each.
    const member = await loginAs(t, tenant, 'member');
    const ws = await t.app.inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: tenant.headers,
      payload: { name: 'Wide' },
    });
    const workspaceId = ws.json().id as string;
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/workspaces/${workspaceId}/members`,
      headers: tenant.headers,
      payload: { user_id: member.userId },
    });
    const shareStarted = performance.now();
    await sql`insert into document_shares (id, tenant_id, document_id, user_id, workspace_id, permission, created_by, created_at)
      select 'wide-' || id, tenant_id, id, null, ${workspaceId}, 'view', null, ${now} from documents
      where tenant_id = ${tenantId} and id like 'doc-%' and cast(substr(id, 5) as integer) % ${Math.max(1, Math.floor(rows / WIDE))} = 0
      limit ${WIDE}`.execute(db);
    const shareSeconds = Number(((performance.now() - shareStarted) / 1000).toFixed(1));
    const analyzeStarted = performance.now();
    await sql`ANALYZE`.execute(db);
    const analyzeSeconds = Number(((performance.now() - analyzeStarted) / 1000).toFixed(1));

    const hot = folderIds[4]!; // holds some of the member's documents (the wide share takes every 16th id)
    const urls = [
      '/api/v1/documents?page=1&limit=20',
      '/api/v1/documents?page=1&limit=20&sort=name&order=asc',
      '/api/v1/documents?page=1&limit=20&sort=updated_at&order=desc',
      '/api/v1/documents?page=1&limit=20&sort=size&order=desc',
      '/api/v1/documents?page=500&limit=20',
      `/api/v1/documents?folder_id=${hot}&page=1&limit=20`,
      `/api/v1/documents?folder_id=${hot}&page=2&limit=20&sort=name&order=desc`,
      '/api/v1/documents?folder_id=root&page=1&limit=20',
      '/api/v1/documents?page=1&limit=20&search=report-1',
    ];
    const cases = [];
    for (const [who, headers] of [
      ['owner', tenant.headers],
      ['member', member.headers],
    ] as const) {
      for (const url of urls) {
        const check = await t.app.inject({ url, headers });
        const times = await timeRequests(t, url, headers, repeats);
        cases.push({
          who,
          url,
          total: check.json().total,
          p50Ms: ms(percentile(times, 50)),
          p99Ms: ms(percentile(times, 99)),
        });
      }
    }

    // The plans, from the SQL the repository compiles (captured on a second connection to the same file).
    const captured: CompiledQuery[] = [];
    const logged = new Kysely<DB>({
      dialect: new SqliteDialect({ database: openSqlite(t.container.database.file!) }),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query);
      },
    });
    const repository = new DocumentsRepository();
    const plans: Record<string, string[]> = {};
    const auth = { tenant: { id: tenantId }, userId: member.userId, role: 'member' } as Parameters<
      typeof visibilityScope
    >[0];
    for (const [name, scope, sort, folderId] of [
      ['owner created_at', null, 'created_at', undefined],
      ['owner name', null, 'name', undefined],
      ['owner folder created_at', null, 'created_at', hot],
      ['member created_at', visibilityScope(auth), 'created_at', undefined],
      ['member name', visibilityScope(auth), 'name', undefined],
      ['member folder created_at', visibilityScope(auth), 'created_at', hot],
      ['member folder name', visibilityScope(auth), 'name', hot],
      ['owner top level', null, 'created_at', null],
      ['viewer created_at', { userId: member.userId, sharedOnly: true }, 'created_at', undefined],
      ['member search', visibilityScope(auth), 'created_at', 'search'],
    ] as const) {
      const filter =
        folderId === 'search'
          ? { scope, search: 'report-1' }
          : { scope, ...(folderId !== undefined ? { folderId } : {}) };
      captured.length = 0;
      await repository.list(logged, tenantId, filter, {
        sort: sort as DocumentSort,
        order: 'desc',
        limit: 20,
        offset: 0,
      });
      await repository.count(logged, tenantId, filter);
      for (const [i, q] of [...captured].entries()) {
        const plan = await logged.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]),
        );
        plans[`${name} ${i === 0 ? 'list' : 'count'}`] = plan.rows.map((r) => r.detail);
      }
    }
    await logged.destroy();

    return {
      dialect: 'sqlite',
      rows,
      insertSeconds,
      wideShares: WIDE,
      shareSeconds,
      analyzeSeconds,
      worstOwnerP99Ms: Math.max(...cases.filter((c) => c.who === 'owner').map((c) => c.p99Ms)),
      worstMemberP99Ms: Math.max(...cases.filter((c) => c.who === 'member').map((c) => c.p99Ms)),
      cases,
      plans,
    };
  } finally {
    await t.close();
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
