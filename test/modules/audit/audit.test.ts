import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eventually, multipart, upload, uploadOk } from '../documents/helpers.ts';
import { DocuVault } from '../../../packages/sdk/src/index.ts';
import { AuditRepository } from '../../../src/modules/audit/audit.repository.ts';
import { cli, cliHome } from '../../cli/helpers.ts';
import { origin } from '../../sdk/helpers.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/** A clock the test moves forward (the retention purge). */
const offset = { ms: 0 };
const clock = { now: () => Date.now() + offset.ms };

describeEachDialect(
  'audit trail',
  (ctx) => {
    let t: TestApp;
    let tenant: TestTenant;
    let other: TestTenant;
    let alice: LoggedInUser;
    let bob: LoggedInUser;
    let admin: LoggedInUser;
    let doc: string;

    const call = (
      method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: string,
      headers: Record<string, string>,
      payload?: unknown,
    ) =>
      t.app.inject({
        method,
        url,
        headers: { 'user-agent': 'audit-test/1.0', ...headers },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const audit = async (headers: Record<string, string>, query = ''): Promise<Json> => {
      const res = await call('GET', `/api/v1/audit${query}`, headers);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const recordsOf = async (query: string, headers = tenant.headers): Promise<Json[]> =>
      (await audit(headers, `?page_size=100&${query}`)).data;

    before(async () => {
      t = ctx();
      tenant = await createTenant(t, { tier: 'enterprise' });
      other = await createTenant(t, { tier: 'enterprise' });
      alice = await loginAs(t, tenant, 'member', { email: `alice-${tenant.subdomain}@example.com` });
      bob = await loginAs(t, tenant, 'member', { email: `bob-${tenant.subdomain}@example.com` });
      admin = await loginAs(t, tenant, 'admin');
      doc = await uploadOk(
        t,
        { ...alice.headers, 'user-agent': 'audit-test/1.0' },
        { filename: 'contract.txt', content: Buffer.from('The contract of alice.') },
      );
    });

    it('records an upload in its transaction: who, from where, which request, the new document', async () => {
      const [record] = await recordsOf(`action=document.upload&document_id=${doc}`);
      assert.ok(record, 'the upload is recorded');
      assert.equal(record.actor_type, 'user');
      assert.equal(record.actor_id, alice.userId);
      assert.equal(record.target_type, 'document');
      assert.equal(record.target_id, doc);
      assert.equal(record.outcome, 'success');
      assert.equal(record.user_agent, 'audit-test/1.0');
      assert.equal(record.ip, '127.0.0.1');
      assert.match(record.request_id, /.+/);
      assert.ok(Date.parse(record.at) > Date.now() - 60_000);
    });

    it('records every read of content: download and content, with the request id', async () => {
      const res = await call('GET', `/api/v1/documents/${doc}/download`, {
        ...tenant.headers,
        'x-request-id': 'req-download-1',
      });
      assert.equal(res.statusCode, 200);
      assert.equal((await call('GET', `/api/v1/documents/${doc}/content`, alice.headers)).statusCode, 200);
      const downloads = await recordsOf(`action=document.download&document_id=${doc}`);
      assert.equal(downloads.length, 1);
      assert.equal(downloads[0].actor_type, 'api_key');
      assert.equal(downloads[0].request_id, 'req-download-1');
      assert.equal(downloads[0].status, 200);
      const contents = await recordsOf(`action=document.content&document_id=${doc}`);
      assert.equal(contents.length, 1);
      assert.equal(contents[0].actor_id, alice.userId);
    });

    it('records versions: a new version and a restore as changes, a version download as a read', async () => {
      const id = await uploadOk(t, tenant.headers, {
        filename: 'terms.txt',
        content: Buffer.from(`Terms v1 ${Math.random()}`),
      });
      const body = multipart([
        { name: 'file', filename: 'terms.txt', content: Buffer.from(`Terms v2 ${Math.random()}`) },
      ]);
      const made = await t.app.inject({
        method: 'POST',
        url: `/api/v1/documents/${id}/versions`,
        payload: body.payload,
        headers: { ...tenant.headers, ...body.headers },
      });
      assert.equal(made.statusCode, 201, made.body);
      assert.equal((await call('GET', `/api/v1/documents/${id}/versions/1/download`, tenant.headers)).statusCode, 200);
      assert.equal((await call('POST', `/api/v1/documents/${id}/versions/1/restore`, tenant.headers)).statusCode, 200);
      for (const action of ['document.version_create', 'document.version_download', 'document.version_restore']) {
        const [record] = await recordsOf(`action=${action}&document_id=${id}`);
        assert.equal(record?.outcome, 'success', action);
      }
      assert.equal(
        (await recordsOf(`action=document.upload&document_id=${id}`)).length,
        1,
        'a version is not a second upload',
      );
    });

    it('records each change: rename, move, tag, share, unshare, delete (fields named, never their values)', async () => {
      const mine = await uploadOk(t, alice.headers, { filename: 'draft.txt' });
      const folder = (await call('POST', '/api/v1/folders', alice.headers, { name: 'Contracts' })).json().id;
      assert.equal(
        (await call('PUT', `/api/v1/documents/${mine}`, alice.headers, { filename: 'final.txt' })).statusCode,
        200,
      );
      assert.equal(
        (await call('PUT', `/api/v1/documents/${mine}`, alice.headers, { folder_id: folder, tags: ['legal'] }))
          .statusCode,
        200,
      );
      const share = await call('POST', `/api/v1/documents/${mine}/share`, alice.headers, {
        user_id: bob.userId,
        permission: 'view',
      });
      assert.equal(share.statusCode, 201, share.body);
      const shareId = share.json().share_id;
      assert.equal(
        (await call('DELETE', `/api/v1/documents/${mine}/shares/${shareId}`, alice.headers)).statusCode,
        200,
      );
      assert.equal((await call('DELETE', `/api/v1/documents/${mine}`, alice.headers)).statusCode, 200);

      const records = await recordsOf(`document_id=${mine}`);
      const actions = records.map((r: Json) => r.action).reverse();
      assert.deepEqual(actions, [
        'document.upload',
        'document.update',
        'document.update',
        'document.share',
        'document.unshare',
        'document.delete',
      ]);
      const updates = records.filter((r: Json) => r.action === 'document.update').reverse();
      assert.deepEqual(updates[0].details.fields, ['filename']);
      assert.deepEqual(updates[1].details.fields, ['folder_id', 'tags']);
      assert.ok(!JSON.stringify(updates).includes('final.txt'), 'values are not recorded');
      assert.equal(records.find((r: Json) => r.action === 'document.unshare').details.share_id, shareId);
      const [folderCreated] = await recordsOf('action=folder.create');
      assert.equal(folderCreated.target_id, folder);
    });

    it('records administrative acts: API keys, users and roles, webhooks, settings', async () => {
      const key = await call('POST', '/api/v1/api-keys', admin.headers, { name: 'CI key' });
      assert.equal(key.statusCode, 201, key.body);
      const user = await call('POST', '/api/v1/users', tenant.headers, {
        email: `carol-${tenant.subdomain}@example.com`,
        name: 'Carol',
        role: 'member',
        password: 'a long test password',
      });
      assert.equal(user.statusCode, 201, user.body);
      assert.equal(
        (await call('PATCH', `/api/v1/users/${user.json().id}`, admin.headers, { role: 'viewer' })).statusCode,
        200,
      );
      const hook = await call('POST', '/api/v1/webhooks', tenant.headers, {
        url: 'https://127.0.0.1:9/hook',
        events: ['document.uploaded'],
      });
      assert.equal(hook.statusCode, 201, hook.body);
      assert.equal((await call('DELETE', `/api/v1/webhooks/${hook.json().id}`, tenant.headers)).statusCode, 200);
      assert.equal((await call('DELETE', `/api/v1/api-keys/${key.json().id}`, admin.headers)).statusCode, 200);

      const byAction = async (action: string) => (await recordsOf(`action=${action}`))[0];
      assert.equal((await byAction('api_key.create')).target_id, key.json().id);
      assert.equal((await byAction('api_key.create')).actor_id, admin.userId);
      assert.equal((await byAction('api_key.revoke')).target_id, key.json().id);
      assert.equal((await byAction('user.create')).target_id, user.json().id);
      assert.deepEqual((await byAction('user.update')).details.fields, ['role']);
      assert.equal((await byAction('webhook.create')).target_id, hook.json().id);
      assert.equal((await byAction('webhook.delete')).target_id, hook.json().id);
      assert.ok(!JSON.stringify(await recordsOf('action=user.create')).includes('a long test password'));
      // The administrator key's acts on a tenant are recorded in that tenant, as the platform administrator.
      assert.equal(
        (
          await t.admin({
            method: 'PATCH',
            url: `/api/v1/admin/tenants/${tenant.tenantId}`,
            payload: { name: 'Renamed' },
          })
        ).statusCode,
        200,
      );
      const renamed = await byAction('tenant.update');
      assert.equal(renamed.actor_type, 'platform_admin');
      assert.equal(renamed.target_id, tenant.tenantId);
      assert.equal((await byAction('tenant.create')).target_id, tenant.tenantId);
    });

    it('records refusals on existing objects: 404 for a hidden document, 403 for a forbidden act; not a missing object', async () => {
      const hidden = await call('GET', `/api/v1/documents/${doc}/download`, bob.headers);
      assertError(hidden, 404, 'not_found');
      const forbidden = await call(
        'DELETE',
        `/api/v1/tags/${(await call('POST', '/api/v1/tags', tenant.headers, { name: 'kept' })).json().id}`,
        bob.headers,
      );
      assertError(forbidden, 403, 'forbidden');
      assertError(
        await call('GET', '/api/v1/documents/00000000-0000-7000-8000-000000000000', bob.headers),
        404,
        'not_found',
      );
      let denied: Json[] = [];
      await eventually(async () => {
        denied = await recordsOf(`action=access.denied&actor=${bob.userId}`);
        return denied.length >= 2;
      }, 'the refusals recorded');
      const onDoc = denied.find((r: Json) => r.target_id === doc);
      assert.ok(onDoc, 'the hidden document');
      assert.equal(onDoc.outcome, 'denied');
      assert.equal(onDoc.status, 404);
      assert.equal(onDoc.details.route, 'GET /api/v1/documents/:id/download');
      assert.equal(onDoc.details.attempted, 'document.download');
      const onTag = denied.find((r: Json) => r.status === 403);
      assert.equal(onTag.details.attempted, 'tag.delete');
      assert.ok(
        !denied.some((r: Json) => r.target_id === '00000000-0000-7000-8000-000000000000'),
        'a missing document is no refusal',
      );
      // The refused read is not recorded as a read.
      assert.ok(!(await recordsOf(`action=document.download&actor=${bob.userId}`)).length);
    });

    it('members read only their own records; owners, admins and keys read all', async () => {
      assertError(await call('GET', `/api/v1/audit?actor=${bob.userId}`, alice.headers), 403, 'forbidden');
      assertError(await call('GET', `/api/v1/audit/export?actor=${bob.userId}`, alice.headers), 403, 'forbidden');
      const own = await audit(alice.headers, '?page_size=100');
      assert.ok(own.data.length > 0);
      assert.ok(own.data.every((r: Json) => r.actor_id === alice.userId));
      // Asking for someone else's records is itself a refusal on record.
      assert.ok(own.data.some((r: Json) => r.action === 'access.denied' && r.details.route === 'GET /api/v1/audit'));
      assert.equal((await audit(alice.headers, `?actor=${alice.userId}`)).total, own.total);
      const viewer = await loginAs(t, tenant, 'viewer');
      assert.ok((await audit(viewer.headers)).data.every((r: Json) => r.actor_id === viewer.userId));
      for (const headers of [admin.headers, tenant.headers]) {
        const all = await audit(headers, '?page_size=100');
        assert.ok(new Set(all.data.map((r: Json) => r.actor_id)).size > 2);
      }
    });

    it('keeps tenants apart: another tenant sees none of these records, even naming the document', async () => {
      const theirs = await audit(other.headers, '?page_size=100');
      assert.ok(theirs.data.every((r: Json) => r.target_id !== doc && r.actor_id !== alice.userId));
      assert.equal((await audit(other.headers, `?document_id=${doc}`)).total, 0);
      assert.equal((await audit(other.headers, `?actor=${alice.userId}`)).total, 0);
      // Their own upload is theirs only.
      const theirDoc = await uploadOk(t, other.headers);
      assert.equal((await audit(other.headers, `?document_id=${theirDoc}`)).total, 1);
      assert.equal((await audit(tenant.headers, `?document_id=${theirDoc}`)).total, 0);
    });

    it('filters by actor, document, action and time; pages newest first with the contract envelope', async () => {
      for (let i = 0; i < 3; i++) await call('GET', `/api/v1/documents/${doc}/content`, tenant.headers);
      const page1 = await audit(tenant.headers, `?document_id=${doc}&action=document.content&page_size=2`);
      assert.equal(page1.page, 1);
      assert.equal(page1.page_size, 2);
      assert.equal(page1.total, 4);
      assert.equal(page1.total_capped, false);
      assert.equal(page1.data.length, 2);
      const page2 = await audit(tenant.headers, `?document_id=${doc}&action=document.content&page_size=2&page=2`);
      assert.equal(page2.data.length, 2);
      const all = [...page1.data, ...page2.data];
      assert.equal(new Set(all.map((r: Json) => r.id)).size, 4);
      for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].at >= all[i].at, 'newest first');

      const newest = all[0].at;
      assert.equal(
        (await audit(tenant.headers, `?document_id=${doc}&action=document.content&from=${encodeURIComponent(newest)}`))
          .total,
        1,
      );
      assert.equal(
        (await audit(tenant.headers, `?document_id=${doc}&action=document.content&to=${encodeURIComponent(newest)}`))
          .total,
        3,
      );
      assert.equal((await audit(tenant.headers, `?actor=${alice.userId}&action=document.content`)).total, 1);
      assertError(
        await call('GET', '/api/v1/audit?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', tenant.headers),
        400,
        'validation_error',
      );
      assertError(await call('GET', '/api/v1/audit?from=yesterday', tenant.headers), 400, 'validation_error');
      assertError(await call('GET', '/api/v1/audit?page=101&page_size=100', tenant.headers), 400, 'validation_error');
      assertError(await call('GET', '/api/v1/audit?colour=red', tenant.headers), 400, 'validation_error');
      assert.equal((await call('GET', '/api/v1/audit', {})).statusCode, 401);
    });

    it('exports NDJSON and CSV, streamed, under the same filters and rules; the export is itself recorded', async () => {
      const nd = await call('GET', `/api/v1/audit/export?document_id=${doc}`, tenant.headers);
      assert.equal(nd.statusCode, 200, nd.body);
      assert.match(nd.headers['content-type'] as string, /^application\/x-ndjson/);
      assert.match(nd.headers['content-disposition'] as string, /attachment; filename="audit-.*\.ndjson"/);
      const lines = nd.body
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      const listed = await audit(tenant.headers, `?document_id=${doc}&page_size=100`);
      assert.deepEqual(
        lines.map((l: Json) => l.id),
        listed.data.map((r: Json) => r.id),
      );

      const csv = await call(
        'GET',
        `/api/v1/audit/export?format=csv&document_id=${doc}&action=document.download`,
        tenant.headers,
      );
      assert.equal(csv.statusCode, 200);
      assert.match(csv.headers['content-type'] as string, /^text\/csv/);
      const rows = csv.body.trimEnd().split('\r\n');
      assert.equal(
        rows[0],
        'id,at,actor_type,actor_id,action,target_type,target_id,outcome,status,ip,user_agent,request_id,details',
      );
      assert.equal(rows.length, 2);
      assert.ok(rows[1]!.includes('document.download') && rows[1]!.includes(doc));

      // A member's export holds their own records only.
      const mine = (await call('GET', '/api/v1/audit/export', alice.headers)).body
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.ok(mine.length > 0 && mine.every((r: Json) => r.actor_id === alice.userId));
      assert.ok((await recordsOf('action=audit.export')).length >= 3);
      assertError(await call('GET', '/api/v1/audit/export?format=xml', tenant.headers), 400, 'validation_error');
    });

    it('quotes CSV cells and defuses spreadsheet formulas a caller could plant in the user agent', async () => {
      await call('GET', `/api/v1/documents/${doc}/content`, {
        ...tenant.headers,
        'user-agent': '=HYPERLINK("http://evil")',
      });
      const csv = await call(
        'GET',
        `/api/v1/audit/export?format=csv&document_id=${doc}&action=document.content`,
        tenant.headers,
      );
      assert.ok(csv.body.includes(`"'=HYPERLINK(""http://evil"")"`), csv.body);
    });

    it('SDK and CLI: the audit trail of a document, listed and exported', async () => {
      const base = await origin(t);
      const client = new DocuVault({ baseUrl: base, apiKey: tenant.apiKey });
      const page = await client.audit.ofDocument(doc, { action: 'document.download' });
      assert.equal(page.total, 1);
      assert.equal(page.data[0]!.target_id, doc);
      const exported = [];
      for await (const r of client.audit.export({ document_id: doc })) exported.push(r);
      assert.ok(exported.length >= 5 && exported.every((r) => r.target_id === doc));
      const home = await cliHome();
      const env = { ...home.env, DOCUVAULT_URL: base, DOCUVAULT_API_KEY: tenant.apiKey };
      const listed = await cli(['audit', '--document', doc, '--json'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(JSON.parse(listed.stdout).data[0].target_id, doc);
      const csv = await cli(['audit', '--document', doc, '--action', 'document.download', '--export', 'csv'], env);
      assert.equal(csv.code, 0, csv.stderr);
      assert.equal(csv.stdout.trimEnd().split('\r\n').length, 2);
      assert.equal((await cli(['audit', '--export', 'xml'], env)).code, 2);
    });

    it('is append-only: no route changes or deletes a record', async () => {
      const [any] = (await audit(tenant.headers)).data;
      for (const method of ['DELETE', 'PUT', 'PATCH'] as const) {
        assert.equal((await call(method, `/api/v1/audit/${any.id}`, tenant.headers, {})).statusCode, 404);
        assert.equal((await call(method, '/api/v1/audit', tenant.headers, {})).statusCode, 404);
      }
      assert.equal((await call('POST', '/api/v1/audit', tenant.headers, {})).statusCode, 404);
      const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
      for (const [path, ops] of Object.entries<Json>(doc.paths)) {
        if (path.startsWith('/api/v1/audit')) assert.deepEqual(Object.keys(ops), ['get'], path);
      }
      assert.ok((await audit(tenant.headers, `?page_size=1&actor=${alice.userId}`)).total > 0, 'still there');
    });

    it('records reads in batches and writes them on shutdown', async () => {
      const trail = t.container.modules.use('audit');
      await trail.flush();
      await call('GET', `/api/v1/documents/${doc}/content`, { ...tenant.headers, 'x-request-id': 'batched-read' });
      assert.equal(trail.pending(), 1, 'the read waits in the batch');
      await trail.close();
      assert.equal(trail.pending(), 0);
      const row = await t.container.database.db
        .selectFrom('audit_records')
        .select('action')
        .where('request_id', '=', 'batched-read')
        .executeTakeFirst();
      assert.equal(row?.action, 'document.content');
    });

    it('writes a batch of any size whole, each row with its own values (several statement sizes in one flush)', async () => {
      const trail = t.container.modules.use('audit');
      await trail.flush();
      // 300 = 256 + 32 + 8 + 4: four of the insert's sizes in one flush.
      for (let i = 0; i < 300; i++)
        trail.buffer(
          trail.row({
            tenantId: tenant.tenantId,
            actor: { type: 'user', id: alice.userId },
            action: 'document.content',
            targetType: 'document',
            targetId: `batch-${i}`,
            outcome: 'success',
            details: i % 2 ? { n: i } : null,
          }),
        );
      assert.equal(trail.pending(), 300);
      await trail.flush();
      const rows = await t.container.database.db
        .selectFrom('audit_records')
        .select(['target_id', 'details', 'actor_id', 'tenant_id'])
        .where('target_id', 'like', 'batch-%')
        .execute();
      assert.equal(rows.length, 300);
      const byTarget = new Map(rows.map((r) => [r.target_id, r]));
      for (const i of [0, 1, 255, 256, 287, 288, 295, 296, 299]) {
        const row = byTarget.get(`batch-${i}`);
        assert.equal(row?.actor_id, alice.userId);
        assert.equal(row?.tenant_id, tenant.tenantId);
        assert.deepEqual(row?.details ? JSON.parse(row.details) : null, i % 2 ? { n: i } : null);
      }
    });

    it('records a change in its transaction: kept if it commits, gone if it rolls back, moved into the trail once', async () => {
      const trail = t.container.modules.use('audit');
      const db = t.container.database.db;
      await trail.flush();
      const act = (targetId: string) =>
        trail.recordIn(db, { tenantId: tenant.tenantId, action: 'document.delete', targetId });
      await db
        .transaction()
        .execute((trx) =>
          trail.recordIn(trx, { tenantId: tenant.tenantId, action: 'document.delete', targetId: 'kept-change' }),
        );
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await trail.recordIn(trx, {
            tenantId: tenant.tenantId,
            action: 'document.delete',
            targetId: 'undone-change',
          });
          throw new Error('the change fails after its record');
        }),
        /the change fails/,
      );
      await act('second-kept-change');
      const trailed = async (targetId: string) =>
        (await db.selectFrom('audit_records').select('id').where('target_id', '=', targetId).execute()).length;
      // Two movers at once (two processes' flushes, on their own connections): each row lands once.
      const movers = [new AuditRepository(), new AuditRepository()];
      await Promise.all(movers.map((m) => m.movePending(db, t.dialect)));
      await trail.flush();
      assert.equal(await trailed('kept-change'), 1);
      assert.equal(await trailed('second-kept-change'), 1);
      assert.equal(await trailed('undone-change'), 0, 'no record of a change that did not happen');
      assert.equal((await db.selectFrom('audit_pending').select('id').execute()).length, 0, 'nothing left waiting');
      const [record] = await recordsOf('action=document.delete&document_id=kept-change');
      assert.equal(record?.actor_type, 'system');
    });

    it('flushes reads and waiting changes together, and apart when the move fails: reads are not held back', async () => {
      const trail = t.container.modules.use('audit');
      const db = t.container.database.db;
      await trail.flush();
      const count = async (targetId: string) =>
        (await db.selectFrom('audit_records').select('id').where('target_id', '=', targetId).execute()).length;
      const read = (targetId: string) =>
        trail.buffer(
          trail.row({
            tenantId: tenant.tenantId,
            actor: { type: 'user', id: alice.userId },
            action: 'document.content',
            targetType: 'document',
            targetId,
            outcome: 'success',
          }),
        );

      // Together: a batch of reads and a change waiting in audit_pending land in one flush.
      for (let i = 0; i < 3; i++) read('flush-together-read');
      await db.transaction().execute((trx) =>
        trail.recordIn(trx, {
          tenantId: tenant.tenantId,
          action: 'document.delete',
          targetId: 'flush-together-change',
        }),
      );
      await trail.flush();
      assert.equal(await count('flush-together-read'), 3);
      assert.equal(await count('flush-together-change'), 1);

      // A waiting row the trail refuses (its id is taken): the move fails, the reads are still written
      // and the row keeps waiting, untouched.
      const [taken] = await db
        .selectFrom('audit_records')
        .selectAll()
        .where('target_id', '=', 'flush-together-change')
        .execute();
      assert.ok(taken);
      await db
        .insertInto('audit_pending')
        .values({ ...taken, target_id: 'flush-refused-change' })
        .execute();
      read('flush-apart-read');
      read('flush-apart-read');
      await trail.flush();
      assert.equal(await count('flush-apart-read'), 2, 'the reads are written although the move failed');
      assert.equal(await count('flush-refused-change'), 0);
      const waiting = await db.selectFrom('audit_pending').select('target_id').execute();
      assert.deepEqual(
        waiting.map((r) => r.target_id),
        ['flush-refused-change'],
      );
      // The refused row stands for a broken store, not for a case the service meets: removed here so
      // the suite's later flushes move again.
      await db.deleteFrom('audit_pending').execute();
    });

    it("purges a deleted tenant's records after AUDIT_RETENTION_DAYS, never a live tenant's", async () => {
      const trail = t.container.modules.use('audit');
      const log = t.container.modules.use('auditLog');
      const db = t.container.database.db;
      const gone = '00000000-0000-7000-8000-00000000dead';
      const deleted = '00000000-0000-7000-8000-00000000de1e';
      for (const tenantId of [gone, deleted]) {
        await trail.record(db, {
          tenantId,
          actor: { type: 'system', id: null },
          action: 'document.delete',
          outcome: 'success',
        });
      }
      await log.tenantDeleted(deleted);
      const count = async (tenantId: string) =>
        (await db.selectFrom('audit_records').select('id').where('tenant_id', '=', tenantId).execute()).length;
      const live = await count(tenant.tenantId);

      // Day 0: the vanished tenant is noted deleted; nothing is old enough yet.
      assert.equal(await log.purgeExpired(), 0);
      assert.equal(await count(gone), 1);
      assert.equal(await count(deleted), 1);
      // Past the retention (2 days in this suite): both go, the live tenant keeps everything.
      offset.ms = 3 * 86_400_000;
      try {
        assert.equal(await log.purgeExpired(), 2);
      } finally {
        offset.ms = 0;
      }
      assert.equal(await count(gone), 0);
      assert.equal(await count(deleted), 0);
      assert.equal(await count(tenant.tenantId), live);
      assert.equal((await db.selectFrom('audit_tenant_deletions').selectAll().execute()).length, 0);
    });

    it("the purge removes a tenant's records oldest first, a batch at a time, and no other tenant's", async () => {
      const trail = t.container.modules.use('audit');
      const db = t.container.database.db;
      const repository = new AuditRepository();
      const purged = '00000000-0000-7000-8000-0000000ba7c1';
      const neighbour = '00000000-0000-7000-8000-0000000ba7c2';
      // Two records share each `at` (the key is (tenant_id, at, id)); the neighbour has the same times.
      for (const at of [1_000, 2_000, 2_000, 3_000, 4_000])
        for (const tenantId of [purged, neighbour])
          await trail.record(db, {
            tenantId,
            at,
            actor: { type: 'system', id: null },
            action: 'x.y',
            outcome: 'success',
          });
      const left = async (tenantId: string) =>
        (
          await db.selectFrom('audit_records').select('at').where('tenant_id', '=', tenantId).orderBy('at').execute()
        ).map((r) => Number(r.at));
      assert.equal(await repository.purgeTenant(db, purged, 2), 2);
      assert.deepEqual(await left(purged), [2_000, 3_000, 4_000]);
      assert.equal(await repository.purgeTenant(db, purged, 10), 3);
      assert.deepEqual(await left(purged), []);
      assert.equal(await repository.purgeTenant(db, purged, 10), 0);
      assert.deepEqual(await left(neighbour), [1_000, 2_000, 2_000, 3_000, 4_000]);
    });

    it('an upload refused by validation is recorded as failed, and creates nothing to target', async () => {
      const res = await upload(t, tenant.headers, { filename: 'fake.pdf', content: Buffer.from('not a pdf') });
      assert.equal(res.statusCode, 415);
      const [failed] = (await audit(tenant.headers, '?action=document.upload&page_size=1')).data;
      assert.equal(failed.outcome, 'failed');
      assert.equal(failed.status, 415);
      assert.equal(failed.target_id, null);
      assert.equal(failed.details.error, 'invalid_file_type');
    });
  },
  { clock, env: { AUDIT_RETENTION_DAYS: '2', ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);
