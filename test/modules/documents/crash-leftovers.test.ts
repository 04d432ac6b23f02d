import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { it } from 'node:test';
import type { RunningJob } from '../../../src/jobs/job-types.ts';
import { documentBlobKey } from '../../../src/modules/documents/document-job-kinds.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant } from '../../support/fixtures.ts';
import { uploadOk } from './helpers.ts';

function job<P>(kind: string, payload: P): RunningJob<P> {
  return {
    id: 'j',
    kind,
    payload,
    attempt: 1,
    maxAttempts: 3,
    tenantId: null,
    priority: 0,
    signal: new AbortController().signal,
    completeIn: async () => {},
  };
}

describeEachDialect('what a crash mid-upload leaves behind', (ctx) => {
  const definition = (kind: string) => {
    const found = ctx()
      .container.jobDefinitions()
      .find((d) => d.kind === kind);
    assert.ok(found, `${kind} is in the job catalogue`);
    return found;
  };

  it('every upload commits an orphan guard, due an hour later, before storing bytes', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const before = Date.now();
    const id = await uploadOk(t, tenant.headers);
    const guards = await t.container.database.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'documents.collect_orphan')
      .execute();
    const guard = guards.find((g) => JSON.parse(g.payload).documentId === id);
    assert.ok(guard, 'a guard exists for the uploaded document');
    assert.ok(guard.run_at >= before + 60 * 60 * 1000 - 1_000);
    // The upload committed, so the guard keeps its bytes.
    await definition('documents.collect_orphan').handler(job('documents.collect_orphan', JSON.parse(guard.payload)));
    assert.ok(await t.container.blobs.head(documentBlobKey(tenant.tenantId, id)));
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/documents/${id}/download`, headers: tenant.headers });
    assert.equal(res.statusCode, 200);
  });

  it('the guard removes bytes whose row never committed (the process died in between)', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const documentId = '01a1f000-0000-7000-8000-00000000dead';
    const key = documentBlobKey(tenant.tenantId, documentId);
    await t.container.blobs.put(key, Readable.from([Buffer.from('stored, never committed')]));
    await definition('documents.collect_orphan').handler(
      job('documents.collect_orphan', { tenantId: tenant.tenantId, documentId }),
    );
    assert.equal(await t.container.blobs.head(key), null);
  });

  it('an hourly sweep removes temp files abandoned by a crash, and keeps fresh ones', async () => {
    const t = ctx();
    const tmp = path.join(t.store.dataDir, 'blobs', '.tmp');
    fs.mkdirSync(tmp, { recursive: true });
    const old = path.join(tmp, 'abandoned');
    const fresh = path.join(tmp, 'in-progress');
    fs.writeFileSync(old, 'half a file');
    fs.writeFileSync(fresh, 'being written');
    const longAgo = new Date(Date.now() - 7 * 60 * 60 * 1000);
    fs.utimesSync(old, longAgo, longAgo);
    await definition('blobs.sweep_temp').handler(job('blobs.sweep_temp', { tick: 1 }));
    assert.equal(fs.existsSync(old), false);
    assert.equal(fs.existsSync(fresh), true);
  });
});
