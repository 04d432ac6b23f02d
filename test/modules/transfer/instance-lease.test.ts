import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/lib/logger.ts';
import { keepInstanceLease, LEASE_MS, liveInstances } from '../../../src/modules/transfer/instance-lease.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { availableDialects, openTestDatabase } from '../../support/databases.ts';

for (const dialect of await availableDialects()) {
  describe(`service instance lease (what db:transfer reads) [${dialect}]`, () => {
    it('a running process is live until it stops; a silent one stops counting after the lease', async () => {
      const { database, close } = await openTestDatabase(dialect);
      try {
        let now = 1_000_000;
        const clock = { now: () => now };
        const lease = keepInstanceLease(database.db, clock, createLogger({ level: 'silent' }), 'worker');
        await waitFor(async () => (await liveInstances(database.db, now)).length === 1, 'the lease row', 5_000);
        const [live] = await liveInstances(database.db, now);
        assert.deepEqual([live!.pid, live!.role, live!.heartbeatAgoMs], [process.pid, 'worker', 0]);
        // No heartbeat for longer than the lease (a kill -9): no longer live.
        assert.equal((await liveInstances(database.db, now + LEASE_MS + 1)).length, 0);
        now += 1;
        await lease.stop();
        assert.equal(
          (await database.db.selectFrom('service_instances').selectAll().execute()).length,
          0,
          'a clean stop removes the row',
        );
      } finally {
        await close();
      }
    });
  });
}
