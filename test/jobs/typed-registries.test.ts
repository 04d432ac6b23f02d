import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { createContainer } from '../../src/container.ts';
import type { Executor } from '../../src/db/executor.ts';
import { EVENT_NAMES } from '../../src/events/event-catalogue.ts';
import type { EventLog } from '../../src/events/event-log.ts';
import type { JobQueue } from '../../src/jobs/job-queue.ts';
import { defineJob } from '../../src/jobs/job-types.ts';
import { createTestStore } from '../support/databases.ts';

/**
 * The compiler checks these (`npm run typecheck`): each `@ts-expect-error` fails the typecheck
 * the day its line compiles, i.e. the day a kind, payload, event name or data goes unchecked.
 * Never called: only their types matter.
 */
export async function typeChecks(jobs: JobQueue, events: EventLog, trx: Executor): Promise<void> {
  await jobs.enqueue(trx, 'documents.thumbnail', { tenantId: 't', documentId: 'd' });
  // @ts-expect-error an undeclared kind
  await jobs.enqueue(trx, 'documents.explode', { tenantId: 't', documentId: 'd' });
  // @ts-expect-error a payload of another kind
  await jobs.enqueue(trx, 'documents.thumbnail', { keys: ['k'] });
  // @ts-expect-error a payload of another kind, in a batch
  await jobs.enqueueMany(trx, [{ kind: 'webhooks.deliver', payload: { migrationId: 'm' } }]);
  defineJob({ kind: 'documents.delete_blob', handler: async (job) => void job.payload.keys.map((k) => k.length) });
  // @ts-expect-error the handler's payload is the kind's: a delete job has no documentId
  defineJob({ kind: 'documents.delete_blob', handler: async (job) => void job.payload.documentId });
  await events.record(trx, {
    tenantId: 't',
    name: 'document.updated',
    data: { document_id: 'd', fields: ['tags'], filename: 'a', folder_id: null },
  });
  // @ts-expect-error an undeclared event
  await events.record(trx, { tenantId: 't', name: 'document.exploded', data: {} });
  await events.record(trx, {
    tenantId: 't',
    name: 'document.updated',
    // @ts-expect-error data of another event
    data: { session_id: 's', document_id: 'd', name: null, user_id: null },
  });
}

describe('typed registries', () => {
  it('every module job kind is defined once, and every catalogued event is listed once', async () => {
    const store = await createTestStore('sqlite');
    const container = await createContainer(
      loadConfig({ DATA_DIR: store.dataDir, ADMIN_API_KEY: 'typed-registries-admin-key', LOG_LEVEL: 'silent' }),
    );
    try {
      const kinds = container.jobDefinitions().map((d) => d.kind);
      assert.equal(new Set(kinds).size, kinds.length, `a kind defined twice: ${kinds.join(', ')}`);
      for (const kind of kinds) assert.match(kind, /^[a-z]+\.[a-z_-]+$/, `<module>.<verb>: ${kind}`);
      assert.equal(new Set(EVENT_NAMES).size, EVENT_NAMES.length);
    } finally {
      await container.close();
      await store.drop();
    }
  });
});
