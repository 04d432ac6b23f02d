import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../../src/db/schema.ts';
import { uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';

/**
 * Issue 32: a legal hold and a delete of what it covers, committed side by side (PostgreSQL runs
 * them concurrently), never both succeed: the delete that checked before the hold committed makes
 * the hold wait and then find the document gone (404); the hold that was committing makes the
 * delete wait and then refuse it (409 `legal_hold`). Each order is forced by holding the other
 * transaction between its check and its commit with a lock the test keeps; then both are raced
 * freely, many times, on both dialects.
 */
describeEachDialect('legal holds and deletes racing', (ctx, dialect) => {
  let tenant: TestTenant;
  const doc = () =>
    uploadOk(ctx(), tenant.headers, {
      filename: `race-${Math.random()}.txt`,
      content: Buffer.from(`Contract ${Math.random()}`),
    });
  const call = (method: 'POST' | 'DELETE' | 'GET', url: string, payload?: object) =>
    ctx().app.inject({
      method,
      url: `/api/v1${url}`,
      headers: tenant.headers,
      ...(payload ? { payload } : {}),
    });
  /** Backends of this test's database waiting for a lock. */
  const waiting = async (t: TestApp) =>
    Number(
      (
        await sql<{ n: string }>`select count(*) as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(t.container.database.db)
      ).rows[0]!.n,
    );
  /** Runs `hold` in its own transaction; `release()` lets it commit. */
  const holding = (t: TestApp, work: (trx: Transaction<DB>) => Promise<unknown>) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let ready!: () => void;
    const taken = new Promise<void>((resolve) => (ready = resolve));
    const done = t.container.database.db.transaction().execute(async (trx) => {
      await work(trx);
      ready();
      await gate;
    });
    return { taken, release, done };
  };

  before(async () => {
    tenant = await createTenant(ctx(), { tier: 'enterprise' });
  });

  it('PostgreSQL: a hold committing while a delete arrives: the delete waits, then 409 legal_hold', async (s) => {
    if (dialect !== 'postgres') return s.skip('SQLite runs one writer at a time');
    const t = ctx();
    const id = await doc();
    // Holds every insert into the event log: the hold stops there, after its checks and its rows, before its commit.
    const lock = holding(t, (trx) => sql`lock table events in share row exclusive mode`.execute(trx));
    await lock.taken;
    const hold = call('POST', '/legal-holds', { name: 'Race A', document_ids: [id] });
    await waitFor(async () => (await waiting(t)) >= 1 || undefined, 'the hold to wait at its event').catch((e) => {
      lock.release();
      throw e;
    });
    let deleteAnswered = false;
    const del = call('DELETE', `/documents/${id}`).then((r) => {
      deleteAnswered = true;
      return r;
    });
    try {
      await waitFor(async () => (await waiting(t)) >= 2 || deleteAnswered || undefined, 'the delete to wait');
      assert.equal(deleteAnswered, false, 'the delete did not wait for the hold');
    } finally {
      lock.release();
    }
    await lock.done;
    const held = await hold;
    assert.equal(held.statusCode, 201, held.body);
    const refused = await del;
    assertError(refused, 409, 'legal_hold');
    assert.equal(refused.json().details.hold_id, held.json().id);
    assert.equal((await call('GET', `/documents/${id}`)).statusCode, 200);
  });

  it('PostgreSQL: a delete committing while a hold arrives: the hold waits, then 404', async (s) => {
    if (dialect !== 'postgres') return s.skip('SQLite runs one writer at a time');
    const t = ctx();
    const id = await doc();
    // Holds the document row: the delete stops at its removal, after its hold check, before its commit.
    const lock = holding(t, (trx) => sql`select id from documents where id = ${id} for update`.execute(trx));
    await lock.taken;
    const del = call('DELETE', `/documents/${id}`);
    await waitFor(async () => (await waiting(t)) >= 1 || undefined, 'the delete to wait at its removal').catch((e) => {
      lock.release();
      throw e;
    });
    let holdAnswered = false;
    const hold = call('POST', '/legal-holds', { name: 'Race B', document_ids: [id] }).then((r) => {
      holdAnswered = true;
      return r;
    });
    try {
      await waitFor(async () => (await waiting(t)) >= 2 || holdAnswered || undefined, 'the hold to wait');
      assert.equal(holdAnswered, false, 'the hold did not wait for the delete');
    } finally {
      lock.release();
    }
    await lock.done;
    const deleted = await del;
    assert.ok(deleted.statusCode < 300, deleted.body);
    assertError(await hold, 404, 'not_found');
    assert.equal((await call('GET', `/documents/${id}`)).statusCode, 404);
  });

  it('raced freely 20 times: never a hold and a delete of the same document both succeed', async () => {
    for (let round = 0; round < 20; round++) {
      const id = await doc();
      const [hold, del] = await Promise.all([
        call('POST', '/legal-holds', { name: `Free race ${round}`, document_ids: [id] }),
        call('DELETE', `/documents/${id}`),
      ]);
      const holdOk = hold.statusCode === 201;
      const deleteOk = del.statusCode < 300;
      assert.ok(holdOk !== deleteOk, `round ${round}: hold ${hold.statusCode} ${hold.body}, delete ${del.statusCode}`);
      if (holdOk) assertError(del, 409, 'legal_hold');
      else assertError(hold, 404, 'not_found');
      assert.equal((await call('GET', `/documents/${id}`)).statusCode, holdOk ? 200 : 404);
    }
  });
});
