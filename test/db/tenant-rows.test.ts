import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { sqliteTenantFilter, tenantRows } from '../../src/db/tenant-archive/rows.ts';
import { availableDialects, createTestStore, type TestStore } from '../support/databases.ts';

const BATCH = 10;
const RESOURCE = { table: 'archive_things', key: ['id'] } as const;

/** Ids interleave the tenants, so a walk along the key passes the other tenant's rows. */
const ROWS = [
  ...Array.from({ length: 120 }, (_, i) => ({
    id: `k${String(i * 2).padStart(4, '0')}`,
    tenant_id: 'big',
    rank: 120 - i,
  })),
  ...Array.from({ length: 7 }, (_, i) => ({
    id: `k${String(i * 2 + 1).padStart(4, '0')}`,
    tenant_id: 'small',
    rank: i,
  })),
];

const idsOf = (tenantId: string) =>
  ROWS.filter((r) => r.tenant_id === tenantId)
    .map((r) => r.id)
    .sort();

for (const dialect of await availableDialects()) {
  describe(`a tenant's rows for its archive [${dialect}]`, () => {
    let store: TestStore;
    let database: Database;
    before(async () => {
      store = await createTestStore(dialect);
      database = openDatabase({ url: store.url, dataDir: store.dataDir });
      await sql`create table archive_things (id text primary key, tenant_id text not null, rank integer not null)`.execute(
        database.db,
      );
      // A tenant index whose order is not the key's, as the service's tables have.
      await sql`create index archive_things_tenant on archive_things (tenant_id, rank)`.execute(database.db);
      for (const r of ROWS)
        await sql`insert into archive_things (id, tenant_id, rank) values (${r.id}, ${r.tenant_id}, ${r.rank})`.execute(
          database.db,
        );
    });
    after(async () => {
      await database.destroy();
      await store.drop();
    });

    for (const tenantId of ['big', 'small', 'none']) {
      it(`gives every row of tenant "${tenantId}" once, in key order, in batches`, async () => {
        const batches: string[][] = [];
        for await (const batch of tenantRows(database.db, dialect, RESOURCE, tenantId, BATCH))
          batches.push(batch.map((r) => String(r.id)));
        assert.deepEqual(batches.flat(), idsOf(tenantId));
        assert.ok(batches.every((b) => b.length <= BATCH));
      });
    }

    if (dialect === 'sqlite') {
      it('walks the key for a large tenant and uses the tenant index for a small one', async () => {
        const compiled = async (tenantId: string) =>
          sql`${await sqliteTenantFilter(database.db, RESOURCE.table, tenantId, BATCH)}`.compile(database.db).sql;
        // 120² / 10 = 1,440 > 127 rows: re-sorting per page costs more than the walk.
        assert.equal(await compiled('big'), '+tenant_id');
        // 7² / 10 < 127: the tenant index.
        assert.equal(await compiled('small'), 'tenant_id');
      });
    }
  });
}
