import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { uploadProcessed, DOCS } from '../search/helpers.ts';
import type { TestApp } from '../../support/app.ts';
import { createTestStore, postgresAdminUrl, type TestStore } from '../../support/databases.ts';
import { createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { createWebhook } from '../webhooks/helpers.ts';
import { workflowApi } from '../workflows/helpers.ts';
import { reportLines, runTransfer, startService, startTransfer } from './helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/**
 * Issue 35: an instance filled through the API on SQLite moves to PostgreSQL with
 * `npm run db:transfer`, and the service started there answers as before; kill -9 in the middle
 * and run again resumes; refusals; and the way back to a SQLite folder.
 */
describe('npm run db:transfer: a SQLite instance to PostgreSQL and back', async () => {
  const pgUrl = await postgresAdminUrl();
  const skip = !pgUrl && 'PostgreSQL not available';
  let dataDir: string;
  const stores: TestStore[] = [];
  let tenant: TestTenant;
  let member: LoggedInUser;
  let before_: Record<string, Json>;
  let documentId: string;
  let forwardReport: Map<string, string>;

  /** Every answer that must be the same after the move (lists, a download, searches, a login). */
  async function answers(t: TestApp): Promise<Record<string, Json>> {
    const get = async (url: string, headers: Record<string, string> = tenant.headers) => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res.json();
    };
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': tenant.subdomain },
      payload: { email: member.email, password: member.password },
    });
    assert.equal(login.statusCode, 200, login.body);
    const download = await t.app.inject({
      method: 'GET',
      url: `/api/v1/documents/${documentId}/download`,
      headers: tenant.headers,
    });
    const searchIds = async (q: string) =>
      (await get(`/search?q=${encodeURIComponent(q)}&mode=text`)).results.map((r: Json) => r.document.id);
    return {
      documents: await get('/documents?page_size=100'),
      download: [download.statusCode, download.body],
      chocolate: await searchIds('chocolate cake'),
      alps: await searchIds('hiking alps'),
      users: await get('/users'),
      webhooks: await get('/webhooks'),
      workflows: await get('/dag/workflows'),
      tasks: await get('/dag/tasks'),
      login: login.json().user,
      // The fresh session's token works (signing keys moved with the rows).
      member: await get(`/users/${member.userId}`, {
        authorization: `Bearer ${login.json().access_token}`,
        'x-tenant-subdomain': tenant.subdomain,
      }),
    };
  }

  const newPostgres = async () => {
    const store = await createTestStore('postgres');
    stores.push(store);
    return store.url!;
  };

  before(async () => {
    if (skip) return;
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-transfer-'));
    const t = await startService(dataDir, null, { worker: true });
    try {
      tenant = await createTenant(t, { tier: 'team' });
      member = await loginAs(t, tenant, 'member');
      documentId = await uploadProcessed(t, tenant.headers, 'recipe.txt', DOCS.recipe);
      await uploadProcessed(t, tenant.headers, 'hiking.txt', DOCS.hiking);
      await uploadProcessed(t, tenant.headers, 'invoice.txt', DOCS.invoice);
      await createWebhook(t, tenant, 'https://hooks.example.com/transfer', ['subscription.tier_changed']);
      const api = workflowApi(
        () => t,
        () => tenant.headers,
      );
      const flow = await api.create(
        {
          name: 'Approval',
          nodes: [
            {
              id: 'approve',
              type: 'human_approval',
              timeout_hours: 24,
              config: { assignee_type: 'role', assignee_value: 'member', title: 'Approve it' },
            },
          ],
        },
        true,
      );
      const execution = await api.run(flow, {});
      await api.until(execution, ['paused']);
      before_ = await answers(t);
      assert.equal(before_.chocolate[0], documentId);
      assert.equal(before_.tasks.data.length, 1);
    } finally {
      await t.close(); // a clean stop: the process's lease row goes with it
    }
  });

  after(async () => {
    for (const s of stores) await s.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses while a service is running on the source, naming it', { skip }, async () => {
    const running = await startService(dataDir, null);
    try {
      const target = await newPostgres();
      // The lease row is written as the process starts: wait for it.
      for (let i = 0; i < 50; i++) {
        const n = running.container.database.db.selectFrom('service_instances').select('id');
        if ((await n.execute()).length > 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const res = await runTransfer(['--to', target], { DATA_DIR: dataDir });
      assert.equal(res.code, 2, res.stderr);
      assert.match(
        res.stderr,
        /refused: the source database is in use by a running service: serve pid \d+ on .+ \(heartbeat \d+s ago\)\. Stop every API and worker process first/,
      );
    } finally {
      await running.close();
    }
  });

  it('moves everything to PostgreSQL: the service there answers the same lists, downloads, searches and logins', {
    skip,
  }, async () => {
    const target = await newPostgres();
    const res = await runTransfer(['--to', target], { DATA_DIR: dataDir });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /migrating the target/);
    assert.match(res.stderr, /documents: 3\/3 rows; all tables \d+\/\d+ \(\d+ rows\/s, ETA \d+s\)/);
    assert.match(res.stderr, /transfer complete and verified: \d+ rows/);
    forwardReport = reportLines(res.stdout);
    for (const table of [
      'tenants',
      'users',
      'api_keys',
      'documents',
      'document_contents',
      'document_chunks',
      'webhooks',
      'workflows',
      'workflow_tasks',
      'events',
      'jobs',
      'search_state',
    ]) {
      assert.ok(forwardReport.has(table), `${table} in the report:\n${res.stdout}`);
    }
    assert.match(forwardReport.get('documents')!, /^3 [0-9a-f]{16}$/);
    assert.equal(forwardReport.get('search_documents'), '3 rebuilt');
    assert.ok(!forwardReport.has('service_instances') && !forwardReport.has('kysely_migration'));

    const moved = await startService(dataDir, target);
    try {
      assert.deepEqual(await answers(moved), before_);
      // And it goes on working: a new user (triggers, foreign keys and sequences are back).
      const created = await moved.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: tenant.headers,
        payload: {
          email: `late-${tenant.subdomain}@example.com`,
          name: 'Late',
          role: 'member',
          password: 'a long test password',
        },
      });
      assert.equal(created.statusCode, 201, created.body);
    } finally {
      await moved.close();
    }

    const again = await runTransfer(['--to', target], { DATA_DIR: dataDir });
    assert.equal(again.code, 2);
    assert.match(again.stderr, /refused: the target is not empty: table \w+ has \d+ row\(s\)/);
  });

  it('killed with SIGKILL in the middle, run again, resumes and verifies the same checksums', { skip }, async () => {
    const target = await newPostgres();
    const first = startTransfer(['--to', target, '--batch-size', '1'], { DATA_DIR: dataDir });
    let killed = false;
    first.stderrLines((line) => {
      // The first progress line: some tables are copied, others not yet.
      if (!killed && / rows; all tables /.test(line)) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    });
    const cut = await first.done;
    assert.equal(cut.code, null, cut.stderr);
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    try {
      const state = await client.query('select name from dms_transfer_state');
      assert.ok(
        state.rows.some((r) => r.name.startsWith('table:')),
        'the interrupted run left its progress in the target',
      );
    } finally {
      await client.end();
    }
    const resumed = await runTransfer(['--to', target, '--batch-size', '7'], { DATA_DIR: dataDir });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming the transfer from .*service\.db/);
    assert.deepEqual(reportLines(resumed.stdout), forwardReport);
  });

  it('takes a copy home: PostgreSQL to a new SQLite folder, with the same checksums and a working search', {
    skip,
  }, async () => {
    const target = await newPostgres();
    assert.equal((await runTransfer(['--to', target], { DATA_DIR: dataDir })).code, 0);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-transfer-home-'));
    try {
      const back = await runTransfer(['--to', home], { DATA_DIR: path.join(home, 'unused'), DATABASE_URL: target });
      assert.equal(back.code, 0, back.stderr);
      // The copied tables hold the same rows; the derived indexes are the target dialect's own
      // (SQLite has a filename index to rebuild that PostgreSQL keeps as a column index).
      const copied = (report: Map<string, string>) =>
        new Map([...report].filter(([, line]) => !line.endsWith(' rebuilt')));
      assert.deepEqual(copied(reportLines(back.stdout)), copied(forwardReport));
      assert.equal(
        reportLines(back.stdout).get('document_name_rows'),
        `${forwardReport.get('documents')?.split(' ')[0]} rebuilt`,
      );
      // Blobs stay where they are: point DATA_DIR's blobs at the original folder.
      fs.cpSync(path.join(dataDir, 'blobs'), path.join(home, 'blobs'), { recursive: true });
      const served = await startService(home, null);
      try {
        const now = await answers(served);
        assert.deepEqual(now, before_);
      } finally {
        await served.close();
      }
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
