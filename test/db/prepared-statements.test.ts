import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { compiledOnce } from '../../src/db/compiled-once.ts';
import { type Database, openDatabase } from '../../src/db/database.ts';
import type { Executor } from '../../src/db/executor.ts';
import { availableDialects, createTestStore, type TestStore } from '../support/databases.ts';

type Things = {
  prep_things: { id: string; tenant_id: string; label: string; size: number };
};

/** A compiled-once lookup over a table of the test's own, as a repository would declare one (rows as plain objects). */
function thingQuery() {
  const query = compiledOnce((db: Executor, tenantId: string, minSize: number) =>
    db
      .withTables<Things>()
      .selectFrom('prep_things')
      .select(['id', 'label', 'size'])
      .where('tenant_id', '=', tenantId)
      .where('size', '>=', minSize)
      .orderBy('id'),
  );
  return async (db: Executor, tenantId: string, minSize: number) => (await query(db, tenantId, minSize)).map((row) => ({ ...row }));
}

async function createThings(database: Database): Promise<void> {
  await sql`create table prep_things (id text primary key, tenant_id text not null, label text not null, size bigint not null)`.execute(database.db);
  await database.db
    .withTables<Things>()
    .insertInto('prep_things')
    .values([
      { id: 'a', tenant_id: 't1', label: 'small', size: 1 },
      { id: 'b', tenant_id: 't1', label: 'large', size: 10 },
      { id: 'c', tenant_id: 't2', label: 'other', size: 5 },
    ])
    .execute();
}

for (const dialect of await availableDialects()) {
  describe(`compiled-once queries [${dialect}]`, () => {
    let store: TestStore;
    let database: Database;
    before(async () => {
      store = await createTestStore(dialect);
      database = openDatabase({ url: store.url, dataDir: store.dataDir });
      await createThings(database);
    });
    after(async () => {
      await database.destroy();
      await store.drop();
    });

    it('run with the values of each call, outside and inside a transaction', async () => {
      const things = thingQuery();
      assert.deepEqual(await things(database.db, 't1', 0), [
        { id: 'a', label: 'small', size: 1 },
        { id: 'b', label: 'large', size: 10 },
      ]);
      assert.deepEqual(await things(database.db, 't1', 5), [{ id: 'b', label: 'large', size: 10 }]);
      assert.deepEqual(await things(database.db, 't2', 0), [{ id: 'c', label: 'other', size: 5 }]);
      const inside = await database.db.transaction().execute((trx) => things(trx, 't2', 6));
      assert.deepEqual(inside, []);
    });

    it('refuse to select * (a prepared statement must not change its result columns)', async () => {
      const all = compiledOnce((db: Executor, tenantId: string) => db.withTables<Things>().selectFrom('prep_things').selectAll().where('tenant_id', '=', tenantId));
      await assert.rejects(all(database.db, 't1'), /name the columns/);
      const aliased = compiledOnce((db: Executor, id: string) => db.withTables<Things>().selectFrom('prep_things as p').selectAll('p').where('p.id', '=', id));
      await assert.rejects(aliased(database.db, 'a'), /name the columns/);
    });
  });
}

if ((await availableDialects()).includes('postgres')) {
  /** Statements prepared on the connection a one-connection pool hands out, from the protocol (not SQL PREPARE). */
  const preparedTexts = async (database: Database) =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements where not from_sql`.execute(database.db)).rows.map((r) => r.statement);

  describe('prepared statements [postgres]', () => {
    let store: TestStore;
    before(async () => {
      store = await createTestStore('postgres');
    });
    after(async () => {
      await store.drop();
    });

    const withDatabase = async (options: { preparedStatements?: boolean }, body: (database: Database) => Promise<void>) => {
      const database = openDatabase({ url: store.url, dataDir: store.dataDir, poolSize: 1, ...options });
      try {
        await body(database);
      } finally {
        await database.destroy();
      }
    };

    it('runs a compiled-once query as a named statement, parsed once per connection; other queries stay unnamed', async () => {
      await withDatabase({}, async (database) => {
        await createThings(database);
        const things = thingQuery();
        await things(database.db, 't1', 0);
        await things(database.db, 't2', 0);
        await database.db.withTables<Things>().selectFrom('prep_things').select('id').where('label', '=', 'small').execute();
        const texts = await preparedTexts(database);
        assert.equal(texts.filter((t) => t.includes('"prep_things"')).length, 1, texts.join('\n'));
        assert.match(texts.find((t) => t.includes('"prep_things"'))!, /"size" >= \$2/);
        await sql`drop table prep_things`.execute(database.db);
      });
    });

    it('keeps working after a migration adds a column to the table (its columns are named, not *)', async () => {
      await withDatabase({}, async (database) => {
        await createThings(database);
        const things = thingQuery();
        assert.equal((await things(database.db, 't1', 0)).length, 2);
        await sql`alter table prep_things add column added_later text`.execute(database.db);
        assert.deepEqual(await things(database.db, 't1', 5), [{ id: 'b', label: 'large', size: 10 }]);
        await sql`drop table prep_things`.execute(database.db);
      });
    });

    it('prepares nothing when turned off (a pooler that cannot keep statements)', async () => {
      await withDatabase({ preparedStatements: false }, async (database) => {
        await createThings(database);
        const things = thingQuery();
        assert.equal((await things(database.db, 't1', 0)).length, 2);
        assert.deepEqual(await preparedTexts(database), []);
        await sql`drop table prep_things`.execute(database.db);
      });
    });
  });
}
