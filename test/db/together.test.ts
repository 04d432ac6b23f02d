import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/database.ts';
import type { Executor } from '../../src/db/executor.ts';
import { together } from '../../src/db/together.ts';
import { availableDialects, createTestStore, type TestStore } from '../support/databases.ts';

type Tables = {
  tg_parents: { id: string; label: string };
  tg_children: { id: string; parent_id: string };
};

const tables = (db: Executor) => db.withTables<Tables>();

/** A part that yields to the event loop's microtasks `hops` times before it writes (a repository with more awaits). */
async function insertParent(db: Executor, id: string, hops = 0): Promise<string> {
  for (let i = 0; i < hops; i++) await Promise.resolve();
  await tables(db).insertInto('tg_parents').values({ id, label: id }).execute();
  return id;
}

/**
 * Sends on the PostgreSQL clients while `counting`: statements written while the client is not in
 * pipeline mode, plus pipelined sends. Installed before any database opens (client classes keep
 * the `query` they were built on).
 */
let counting = false;
let sends = 0;
const inSend = new WeakSet<pg.Client>();
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (!counting) {
    // not this test's
  } else if (!(this as pg.Client & { pipeline?: boolean }).pipeline) sends++;
  else if (!inSend.has(this)) {
    sends++;
    inSend.add(this);
    queueMicrotask(() => inSend.delete(this));
  }
  return (original as (...a: unknown[]) => unknown).apply(this, args);
} as typeof original;

for (const dialect of await availableDialects()) {
  describe(`together [${dialect}]`, () => {
    let store: TestStore;
    let database: Database;
    before(async () => {
      store = await createTestStore(dialect);
      database = openDatabase({ url: store.url, dataDir: store.dataDir });
      await sql`create table tg_parents (id text primary key, label text not null)`.execute(database.db);
      await sql`create table tg_children (id text primary key, parent_id text not null references tg_parents (id))`.execute(
        database.db,
      );
    });
    beforeEach(async () => {
      await tables(database.db).deleteFrom('tg_children').execute();
      await tables(database.db).deleteFrom('tg_parents').execute();
    });
    after(async () => {
      await database.destroy();
      await store.drop();
    });

    it('answers each part its own result, in the parts order, and commits them with the transaction', async () => {
      const results = await database.db.transaction().execute((trx) =>
        together(trx, [
          (db) => insertParent(db, 'p1'),
          async (db) => (await tables(db).selectFrom('tg_parents').select('id').execute()).length,
          async (db) => {
            const inserted = await tables(db)
              .insertInto('tg_parents')
              .values({ id: 'p2', label: 'b' })
              .returning('label')
              .executeTakeFirstOrThrow();
            const updated = await tables(db)
              .updateTable('tg_parents')
              .set({ label: 'c' })
              .where('id', '=', 'p2')
              .executeTakeFirst();
            return [inserted.label, Number(updated.numUpdatedRows)];
          },
        ]),
      );
      assert.deepEqual(results, ['p1', 1, ['b', 1]]);
      const rows = (await tables(database.db).selectFrom('tg_parents').selectAll().orderBy('id').execute()).map(
        (r) => ({ ...r }),
      );
      assert.deepEqual(rows, [
        { id: 'p1', label: 'p1' },
        { id: 'p2', label: 'c' },
      ]);
    });

    it("runs the parts' statements in the parts order, whatever order they were issued in", async () => {
      // The parent's part yields before it writes; its child's row still finds it (a foreign key).
      await database.db
        .transaction()
        .execute((trx) =>
          together(trx, [
            (db) => insertParent(db, 'late', 5),
            (db) => tables(db).insertInto('tg_children').values({ id: 'c1', parent_id: 'late' }).execute(),
          ]),
        );
      const children = (await tables(database.db).selectFrom('tg_children').selectAll().execute()).map((r) => ({
        ...r,
      }));
      assert.deepEqual(children, [{ id: 'c1', parent_id: 'late' }]);
    });

    it('a failing part fails the call after the others ended, and the transaction writes nothing', async () => {
      await tables(database.db).insertInto('tg_parents').values({ id: 'taken', label: 'x' }).execute();
      let ended = 0;
      const part = (id: string) => async (db: Executor) => {
        try {
          await insertParent(db, id);
        } finally {
          ended++;
        }
      };
      await assert.rejects(
        database.db.transaction().execute((trx) => together(trx, [part('new'), part('taken'), part('later')])),
        /duplicate|unique/i,
      );
      // On PostgreSQL the three were sent together; elsewhere they run in turn and stop at the failure.
      assert.equal(ended, dialect === 'postgres' ? 3 : 2);
      const ids = (await tables(database.db).selectFrom('tg_parents').select('id').execute()).map((r) => r.id);
      assert.deepEqual(ids, ['taken']);
    });

    it('nests: the parts of a part join the same batches', async () => {
      const results = await database.db
        .transaction()
        .execute((trx) =>
          together(trx, [
            (db) => together(db, [(inner) => insertParent(inner, 'a'), (inner) => insertParent(inner, 'b')]),
            (db) => insertParent(db, 'c'),
          ]),
        );
      assert.deepEqual(results, [['a', 'b'], 'c']);
    });

    if (dialect === 'postgres') {
      it("sends a transaction's BEGIN with its first statement, and the parts issued together in one send", async () => {
        counting = true;
        sends = 0;
        try {
          await database.db.transaction().execute(async (trx) => {
            await together(trx, [
              (db) => insertParent(db, 'x'),
              (db) => insertParent(db, 'y'),
              (db) => insertParent(db, 'z'),
            ]);
          });
        } finally {
          counting = false;
        }
        // BEGIN and the three inserts, then COMMIT: two sends instead of five.
        assert.equal(sends, 2);
        assert.equal((await tables(database.db).selectFrom('tg_parents').select('id').execute()).length, 3);
      });

      it('a transaction that fails before its first statement, or has none, still ends cleanly', async () => {
        await assert.rejects(
          database.db.transaction().execute(async () => {
            throw new Error('before any statement');
          }),
          /before any statement/,
        );
        await database.db.transaction().execute(async () => {});
        // The connections went back to the pool usable.
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) => database.db.transaction().execute((trx) => insertParent(trx, `n${i}`))),
        );
        assert.equal(results.length, 12);
      });
    }
  });
}
