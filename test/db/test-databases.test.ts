import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { DIALECTS } from '../support/app.ts';
import { createTestStore, postgresAdminUrl } from '../support/databases.ts';
import { dropStaleTestDatabases, localOwner, testDatabaseName } from '../support/test-databases-cleanup.ts';

/** The test support's own promises: stores start migrated from a template, and killed runs are cleaned up. */
for (const dialect of DIALECTS) {
  describe(`test stores [${dialect}]`, () => {
    it('a migrated store holds every migration (nothing left to run), an empty one none', async () => {
      for (const migrated of [true, false]) {
        const store = await createTestStore(dialect, { migrated });
        const database = openDatabase({ url: store.url, dataDir: store.dataDir });
        try {
          const ran = await migrateToLatest(database.db);
          if (migrated) assert.deepEqual(ran, []);
          else assert.ok(ran.length > 10, `an empty store runs every migration (ran ${ran.length})`);
        } finally {
          await database.destroy();
          await store.drop();
        }
      }
    });

    it('two migrated stores are separate databases', async () => {
      const [a, b] = [
        await createTestStore(dialect, { migrated: true }),
        await createTestStore(dialect, { migrated: true }),
      ];
      const [da, db] = [
        openDatabase({ url: a.url, dataDir: a.dataDir }),
        openDatabase({ url: b.url, dataDir: b.dataDir }),
      ];
      try {
        const now = Date.now();
        await da.db
          .insertInto('tenants')
          .values({
            id: 't1',
            name: 'T',
            subdomain: 't1',
            tier: 'free',
            status: 'active',
            cors_origins: '[]',
            sandbox_of: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
        assert.equal((await db.db.selectFrom('tenants').select('id').execute()).length, 0);
      } finally {
        await da.destroy();
        await db.destroy();
        await a.drop();
        await b.drop();
      }
    });
  });
}

describe('test database names', () => {
  it('name their machine and owner process; other names and other machines are not ours', () => {
    assert.equal(localOwner(testDatabaseName('abc', 4242)), 4242);
    assert.equal(localOwner('dms_test_4242_k3j2h1g0'), 4242, 'the names of earlier versions');
    const otherMachine = testDatabaseName('abc', 4242).replace(
      /_h([0-9a-f]{6})_/,
      (_, host: string) => `_h${host === 'ffffff' ? '000000' : 'ffffff'}_`,
    );
    assert.equal(localOwner(otherMachine), null, 'a server shared with another machine: its databases are left alone');
    assert.equal(localOwner('dms_template_0123456789ab'), null);
    assert.equal(localOwner('production'), null);
  });
});

const adminUrl = await postgresAdminUrl();

describe('stale test databases', { skip: adminUrl ? false : 'PostgreSQL is not available' }, () => {
  it('drops those of exited processes nobody uses; keeps those of live processes and those in use', async () => {
    const admin = new pg.Client({ connectionString: adminUrl! });
    await admin.connect();
    const exited = spawn(process.execPath, ['-e', '0']);
    await once(exited, 'exit');
    const gone = testDatabaseName(`stale_${Date.now()}`, exited.pid!);
    const inUse = testDatabaseName(`used_${Date.now()}`, exited.pid!);
    const live = testDatabaseName(`live_${Date.now()}`, process.pid);
    for (const name of [gone, inUse, live]) await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl!);
    url.pathname = `/${inUse}`;
    const user = new pg.Client({ connectionString: url.toString() });
    await user.connect();
    try {
      const dropped = await dropStaleTestDatabases(adminUrl!);
      assert.ok(dropped.includes(gone), `dropped ${dropped}`);
      assert.ok(!dropped.includes(inUse) && !dropped.includes(live));
      const { rows } = await admin.query<{ datname: string }>(
        'select datname from pg_database where datname = any($1)',
        [[gone, inUse, live]],
      );
      assert.deepEqual(rows.map((r) => r.datname).sort(), [inUse, live].sort());
    } finally {
      await user.end();
      for (const name of [gone, inUse, live]) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
