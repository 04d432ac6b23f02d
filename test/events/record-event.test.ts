import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_NAMES, isEventName } from '../../src/events/event-catalogue.ts';
import { recordEvent } from '../../src/events/record-event.ts';
import { DIALECTS } from '../support/app.ts';
import { openTestDatabase } from '../support/databases.ts';

const UPLOADED = {
  document_id: 'd1',
  filename: 'a.txt',
  folder_id: null,
  file_type: 'text/plain',
  file_size: 1,
  status: 'pending',
  ai_status: 'pending',
};

describe('event catalogue', () => {
  it('holds every event name of the spec', () => {
    for (const name of [
      'document.uploaded',
      'document.processed',
      'document.failed',
      'chat.session.created',
      'chat.message.created',
      'dag.execution.started',
      'dag.execution.completed',
      'dag.execution.failed',
      'dag.execution.paused',
      'dag.task.created',
      'dag.task.completed',
      'dag.task.escalated',
    ]) {
      assert.ok(isEventName(name), name);
    }
    assert.equal(EVENT_NAMES.length, 22); // the spec's 12, subscription.tier_changed, document.updated, the two version events, the records module's 5 and tenant.export.completed
    assert.equal(isEventName('document.exploded'), false);
  });
});

for (const dialect of DIALECTS) {
  describe(`recordEvent [${dialect}]`, () => {
    it('writes the event inside the caller transaction, and nothing when it rolls back', async () => {
      const { database, close } = await openTestDatabase(dialect);
      try {
        const now = Date.now();
        await database.db
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
        const committed = await database.db
          .transaction()
          .execute((trx) => recordEvent(trx, { tenantId: 't1', name: 'document.uploaded', data: UPLOADED }));
        assert.match(committed.id, /^evt_[A-Za-z0-9_-]{22}$/);
        await assert.rejects(
          database.db.transaction().execute(async (trx) => {
            await recordEvent(trx, {
              tenantId: 't1',
              name: 'document.failed',
              data: { document_id: 'd2', status: 'failed', ai_status: 'failed', error: null },
            });
            throw new Error('roll back');
          }),
        );
        const rows = await database.db.selectFrom('events').selectAll().execute();
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.id, committed.id);
        assert.equal(rows[0]!.name, 'document.uploaded');
        assert.deepEqual(JSON.parse(rows[0]!.data), UPLOADED);
      } finally {
        await close();
      }
    });
  });
}
