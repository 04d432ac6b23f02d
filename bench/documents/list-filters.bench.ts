import { sql } from 'kysely';
import { DIALECTS, startTestApp } from '../../test/support/app.ts';
import { documentRow } from '../../test/support/document-rows.ts';
import { createTenant, loginAs } from '../../test/support/fixtures.ts';

// GET /documents with the filters of docs/api-decisions.md §18 on a tenant of N documents (rows
// bulk-inserted; the entity rows made by the triggers), against the unfiltered first page in the
// same run: the median of R requests each, as ratios, for an administrator and for a member who
// sees a tenth of the library. A loaded machine shifts every figure alike; the ratios are the claim.
//   FILTER_BENCH_ROWS=50000 FILTER_BENCH_REPEATS=15 node bench/documents/list-filters.bench.ts

const ROWS = Number(process.env['FILTER_BENCH_ROWS'] ?? 50_000);
const REPEATS = Number(process.env['FILTER_BENCH_REPEATS'] ?? 15);
const ORGS = 5_000;
const TAGS = 20;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

for (const dialect of DIALECTS) {
  const t = await startTestApp(dialect);
  try {
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const member = await loginAs(t, tenant, 'member');
    const db = t.container.database.db;
    const now = Date.now();
    await db
      .insertInto('tags')
      .values(
        Array.from({ length: TAGS }, (_, i) => ({
          id: `tag-${i}`,
          tenant_id: tenant.tenantId,
          name: `tag ${i}`,
          name_key: `tag ${i}`,
          color: '#000000',
          created_at: now,
        })),
      )
      .execute();
    const started = performance.now();
    for (let from = 0; from < ROWS; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, ROWS - from) }, (_, k) => from + k);
      await db
        .insertInto('documents')
        .values(
          batch.map((i) =>
            documentRow(tenant.tenantId, `doc-${String(i).padStart(7, '0')}`, {
              // Every tenth document is the member's.
              owner_id: i % 10 === 0 ? member.userId : null,
              status: i % 100 === 1 ? 'processing' : i % 100 === 2 ? 'failed' : 'completed',
              ai_status: i % 50 === 3 ? 'failed' : 'completed',
              entities: JSON.stringify({
                people: [`Person ${i % 997}`],
                organizations: [`Org ${(i * 7) % ORGS}`, `Org ${(i * 13) % ORGS}`],
                dates: [`2025-${String((i % 12) + 1).padStart(2, '0')}-01`],
              }),
              created_at: now - i * 1000,
            }),
          ),
        )
        .execute();
      await db
        .insertInto('document_tags')
        .values(
          batch.flatMap((i) =>
            [i % TAGS, (i * 3) % TAGS]
              .filter((v, k, a) => a.indexOf(v) === k)
              .map((tag) => ({
                tenant_id: tenant.tenantId,
                document_id: `doc-${String(i).padStart(7, '0')}`,
                tag_id: `tag-${tag}`,
                created_at: now,
              })),
          ),
        )
        .execute();
    }
    const seedSeconds = (performance.now() - started) / 1000;
    // Statistics as a running service would have them (PostgreSQL's autovacuum, SQLite's optimize).
    await sql`analyze`.execute(db);
    const entityRows = Number(
      (
        await db
          .selectFrom('document_entities')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

    const time = async (query: string, headers: Record<string, string>) => {
      const ms: number[] = [];
      let total = 0;
      for (let r = 0; r < REPEATS; r++) {
        const at = performance.now();
        const res = await t.app.inject({ url: `/api/v1/documents?${query}`, headers });
        ms.push(performance.now() - at);
        if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`);
        total = res.json().total;
      }
      return { median: median(ms), total };
    };
    const cases = [
      '',
      'entity=org%2042',
      'entity=org%204&entity_type=organization',
      'entity=2025-03',
      'tag_ids=tag-3,tag-9',
      'tag_ids=tag-3,tag-9&tag_match=any',
      'status=processing',
      'status=failed,processing',
      'ai_status=failed',
      'status=completed&entity=person%2012&tag_ids=tag-2',
      'entity=org%2042&page=3&sort=name&order=asc',
    ];
    for (const [who, headers] of [
      ['administrator', tenant.headers],
      ['member', member.headers],
    ] as const) {
      const base = await time('', headers);
      for (const query of cases) {
        const r = query === '' ? base : await time(query, headers);
        console.log(
          `${dialect} ${who} ${query || '(unfiltered)'}: total ${r.total}, median ${r.median.toFixed(1)} ms, ${(r.median / base.median).toFixed(2)}x unfiltered`,
        );
      }
    }
    console.log(`${dialect}: ${ROWS} documents (${entityRows} entity rows) seeded in ${seedSeconds.toFixed(1)} s`);
  } finally {
    await t.close();
  }
}
