import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { DIALECTS, startTestApp, type TestApp } from '../../../support/app.ts';
import { assertError, createTenant, type TestTenant } from '../../../support/fixtures.ts';

// PostgreSQL runs writers side by side: a document committed into a folder after the delete checked
// it was empty must turn the delete into the contract's answer, not a 500. (SQLite runs one writer
// at a time, so the race cannot happen there.)
describe('deleting a folder while a document lands in it [postgres]', { skip: !DIALECTS.includes('postgres') }, () => {
  let t: TestApp;
  let tenant: TestTenant;
  before(async () => {
    t = await startTestApp('postgres');
    tenant = await createTenant(t, { tier: 'enterprise' });
  });
  after(() => t.close());

  async function raceInsert(folderId: string, run: () => Promise<LightMyRequestResponse>) {
    const other = new pg.Client({ connectionString: t.store.url! });
    await other.connect();
    try {
      await other.query('begin');
      const now = Date.now();
      await other.query(
        `insert into documents (id, tenant_id, folder_id, owner_id, collection_id, filename, original_filename, extension, file_type,
           file_size, sha256, storage_key, status, ai_status, enable_ai, created_at, updated_at)
         values ($1, $2, $3, null, null, 'late.txt', 'late.txt', 'txt', 'text/plain', 1, $4, $5, 'completed', 'skipped', 0, $6, $6)`,
        [
          `late-${folderId}`,
          tenant.tenantId,
          folderId,
          '0'.repeat(64),
          `tenants/${tenant.tenantId}/documents/late-${folderId}`,
          now,
        ],
      );
      const pending = run();
      // The delete has checked (and seen no committed document) and now waits on the new row's lock.
      await new Promise((r) => setTimeout(r, 300));
      await other.query('commit');
      return await pending;
    } finally {
      await other.end();
    }
  }

  async function newFolder(name: string): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/folders',
      headers: tenant.headers,
      payload: { name },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().id;
  }

  it('without force: 400 folder_not_empty, and the folder and document stay', async () => {
    const folderId = await newFolder('Racy');
    const res = await raceInsert(folderId, () =>
      t.app.inject({ method: 'DELETE', url: `/api/v1/folders/${folderId}`, headers: tenant.headers }),
    );
    assertError(res, 400, 'folder_not_empty');
    const still = await t.app.inject({ url: `/api/v1/folders/${folderId}`, headers: tenant.headers });
    assert.equal(still.statusCode, 200);
    assert.equal(still.json().document_count, 1);
  });

  it('with force: 409 conflict (try again), nothing half-deleted', async () => {
    const folderId = await newFolder('Racy forced');
    const res = await raceInsert(folderId, () =>
      t.app.inject({ method: 'DELETE', url: `/api/v1/folders/${folderId}?force=true`, headers: tenant.headers }),
    );
    assertError(res, 409, 'conflict');
    assert.equal((await t.app.inject({ url: `/api/v1/folders/${folderId}`, headers: tenant.headers })).statusCode, 200);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/folders/${folderId}?force=true`,
      headers: tenant.headers,
    });
    assert.equal(again.statusCode, 200, again.body);
  });
});
