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
  return async (db: Executor, tenantId: string, minSize: number) =>
    (await query(db, tenantId, minSize)).map((row) => ({ ...row }));
}

async function createThings(database: Database): Promise<void> {
  await sql`create table prep_things (id text primary key, tenant_id text not null, label text not null, size bigint not null)`.execute(
    database.db,
  );
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
      const all = compiledOnce((db: Executor, tenantId: string) =>
        db.withTables<Things>().selectFrom('prep_things').selectAll().where('tenant_id', '=', tenantId),
      );
      await assert.rejects(all(database.db, 't1'), /name the columns/);
      const aliased = compiledOnce((db: Executor, id: string) =>
        db.withTables<Things>().selectFrom('prep_things as p').selectAll('p').where('p.id', '=', id),
      );
      await assert.rejects(aliased(database.db, 'a'), /name the columns/);
    });
  });
}

if ((await availableDialects()).includes('postgres')) {
  /** Statements prepared on a session, from the protocol (not SQL PREPARE). */
  type Catalog = { pg_prepared_statements: { statement: string; from_sql: boolean } };
  const preparedTextsQuery = compiledOnce((db: Executor) =>
    db
      .withTables<Catalog>()
      .selectFrom('pg_prepared_statements')
      .select('statement')
      .where('from_sql', '=', sql<boolean>`false`),
  );
  const poolPreparedTexts = async (database: Database) =>
    (
      await sql<{ statement: string }>`select statement from pg_prepared_statements where not from_sql`.execute(
        database.db,
      )
    ).rows.map((r) => r.statement);

  describe('prepared statements and the hot-read pipeline [postgres]', () => {
    let store: TestStore;
    before(async () => {
      store = await createTestStore('postgres');
    });
    after(async () => {
      await store.drop();
    });

    const withDatabase = async (
      options: { preparedStatements?: boolean; pipelinedConnections?: number },
      body: (database: Database) => Promise<void>,
    ) => {
      const database = openDatabase({
        url: store.url,
        dataDir: store.dataDir,
        poolSize: 1,
        pipelinedConnections: 1,
        ...options,
      });
      try {
        await createThings(database);
        await body(database);
      } finally {
        await sql`drop table if exists prep_things`.execute(database.db);
        await database.destroy();
      }
    };

    it('runs a compiled-once read on the pipelined connection as a named statement, parsed once', async () => {
      await withDatabase({}, async (database) => {
        const things = thingQuery();
        await things(database.db, 't1', 0);
        await things(database.db, 't2', 0);
        await database.db
          .withTables<Things>()
          .selectFrom('prep_things')
          .select('id')
          .where('label', '=', 'small')
          .execute();
        // Read on the one pipelined connection (a compiled-once read outside a transaction goes there).
        const texts = (await preparedTextsQuery(database.db)).map((r) => r.statement);
        assert.equal(texts.filter((t) => t.includes('"prep_things"')).length, 1, texts.join('\n'));
        assert.match(texts.find((t) => t.includes('"prep_things"'))!, /"size" >= \$2/);
        // The pool's connection prepared nothing: the ad-hoc query stayed unnamed.
        assert.deepEqual(await poolPreparedTexts(database), []);
        const sessions = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_stat_activity where application_name = 'dms-hot-reads' and datname = current_database()`.execute(
          database.db,
        );
        assert.equal(sessions.rows[0]!.n, 1);
      });
    });

    it('uses the pool inside a transaction, as a named statement on that connection', async () => {
      await withDatabase({}, async (database) => {
        const things = thingQuery();
        const inside = await database.db.transaction().execute(async (trx) => {
          const rows = await things(trx, 't1', 5);
          return { rows, texts: (await preparedTextsQuery(trx)).map((r) => r.statement) };
        });
        assert.deepEqual(inside.rows, [{ id: 'b', label: 'large', size: 10 }]);
        assert.equal(inside.texts.filter((t) => t.includes('"prep_things"')).length, 1);
      });
    });

    it('answers many concurrent reads each with its own rows, and a failing read fails alone', async () => {
      await withDatabase({ pipelinedConnections: 2 }, async (database) => {
        const things = thingQuery();
        const divide = compiledOnce((db: Executor, by: number) =>
          db.selectNoFrom(sql<number>`(10 / ${by}::int)::int`.as('q')),
        );
        const expected = (tenant: string, min: number) =>
          [
            { id: 'a', tenant_id: 't1', label: 'small', size: 1 },
            { id: 'b', tenant_id: 't1', label: 'large', size: 10 },
            { id: 'c', tenant_id: 't2', label: 'other', size: 5 },
          ]
            .filter((t) => t.tenant_id === tenant && t.size >= min)
            .map(({ id, label, size }) => ({ id, label, size }));
        const calls = Array.from({ length: 300 }, (_, i) => {
          if (i % 50 === 7)
            return divide(database.db, 0).then(
              () => 'no error',
              (error: Error) => error.message,
            );
          const tenant = i % 2 === 0 ? 't1' : 't2';
          const min = i % 11;
          return things(database.db, tenant, min).then((rows) => assert.deepEqual(rows, expected(tenant, min)));
        });
        const outcomes = await Promise.all(calls);
        const failures = outcomes.filter((o) => typeof o === 'string');
        assert.equal(failures.length, 6);
        for (const message of failures) assert.match(message as string, /division by zero/);
        assert.deepEqual(await divide(database.db, 5), [{ q: 2 }]);
      });
    });

    it('replaces a pipelined connection that the server closed', async () => {
      await withDatabase({}, async (database) => {
        const things = thingQuery();
        assert.equal((await things(database.db, 't1', 0)).length, 2);
        await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'dms-hot-reads' and datname = current_database()`.execute(
          database.db,
        );
        // A read caught on the dying connection fails like a pooled one would; the next ones reconnect.
        let failures = 0;
        let rows: unknown[] | null = null;
        for (let attempt = 0; attempt < 5 && !rows; attempt++) {
          rows = await things(database.db, 't1', 5).catch(() => {
            failures++;
            return null;
          });
          if (!rows) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.deepEqual(rows, [{ id: 'b', label: 'large', size: 10 }]);
        assert.ok(failures <= 1, `${failures} reads failed after the server closed the connection`);
      });
    });

    it('does not keep a process alive once its reads are answered (a script that never closes the database exits)', async () => {
      const script = `
        import { openDatabase } from ${JSON.stringify(new URL('../../src/db/database.ts', import.meta.url).href)};
        import { compiledOnce } from ${JSON.stringify(new URL('../../src/db/compiled-once.ts', import.meta.url).href)};
        import { sql } from 'kysely';
        const database = openDatabase({ url: process.env.URL, dataDir: '.', poolSize: 1 });
        const one = compiledOnce((db, n) => db.selectNoFrom(sql\`\${n}::int + 1\`.as('v')));
        const rows = await one(database.db, 41);
        console.log(rows[0].v);
      `;
      const { execFile } = await import('node:child_process');
      const started = performance.now();
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ['--input-type=module', '-e', script],
          { env: { ...process.env, URL: store.url! }, cwd: process.cwd(), timeout: 20_000 },
          (error, stdout) => (error ? reject(error) : resolve(stdout)),
        ),
      );
      assert.equal(out.trim(), '42');
      // The pool's idle client holds the process for its idle timeout (10 s); the pipeline adds nothing to that.
      assert.ok(performance.now() - started < 15_000);
    });

    it('keeps working after a migration adds a column to the table (its columns are named, not *)', async () => {
      await withDatabase({}, async (database) => {
        const things = thingQuery();
        assert.equal((await things(database.db, 't1', 0)).length, 2);
        await sql`alter table prep_things add column added_later text`.execute(database.db);
        assert.deepEqual(await things(database.db, 't1', 5), [{ id: 'b', label: 'large', size: 10 }]);
      });
    });

    it('prepares nothing and opens no pipelined connection when turned off (a pooler that cannot keep statements)', async () => {
      await withDatabase({ preparedStatements: false }, async (database) => {
        const things = thingQuery();
        assert.equal((await things(database.db, 't1', 0)).length, 2);
        assert.deepEqual(await poolPreparedTexts(database), []);
        const sessions = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_stat_activity where application_name = 'dms-hot-reads' and datname = current_database()`.execute(
          database.db,
        );
        assert.equal(sessions.rows[0]!.n, 0);
      });
    });
  });
}
