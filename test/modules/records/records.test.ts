import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { multipart, uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';

/*
 * Retention rules and legal holds (issue 32 item 3, docs/records.md), through HTTP on both
 * dialects: a hold refuses every deletion path with 409 `legal_hold` naming it (document delete,
 * folder delete with and without force, a retention rule, a review's approval); a folder hold covers
 * subfolders and documents added after it; release unblocks; retention deletes or asks for review
 * once the (controllable) clock passes `keep_days`; members are refused; tenants are isolated.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

const DAY_MS = 86_400_000;
/** The service's clock: real time plus an offset the tests move forward. */
let offset = 0;
const clock = { now: () => Date.now() + offset };

describeEachDialect(
  'records: legal holds and retention rules',
  (ctx) => {
    let tenant: TestTenant;
    let other: TestTenant;
    let member: LoggedInUser;
    let admin: LoggedInUser;
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
      ctx().app.inject({
        method,
        url: `/api/v1${url}`,
        headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const made = async (
      method: 'GET' | 'POST' | 'DELETE',
      url: string,
      payload?: unknown,
      headers = tenant.headers,
    ): Promise<Json> => {
      const res = await call(method, url, headers, payload);
      assert.ok(res.statusCode < 300, `${method} ${url} → ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const folder = async (name: string, parentId: string | null = null, who = tenant) =>
      (await made('POST', '/folders', { name: `${name} ${Math.random()}`, parent_id: parentId }, who.headers))
        .id as string;
    const doc = (folderId: string | null, who = tenant) =>
      uploadOk(ctx(), who.headers, {
        filename: `doc-${Math.random()}.txt`,
        content: Buffer.from(`Contract text ${Math.random()}`),
        fields: folderId ? { folder_id: folderId } : {},
      });
    const exists = async (id: string) => (await call('GET', `/documents/${id}`, tenant.headers)).statusCode === 200;
    const hold = (body: object, headers = tenant.headers) => call('POST', '/legal-holds', headers, body);
    const assertHeld = (res: Awaited<ReturnType<typeof call>>, holdId: string, name: string) => {
      assertError(res, 409, 'legal_hold');
      const body = res.json();
      assert.equal(body.code, 'LEGAL_HOLD');
      assert.equal(body.details.hold_id, holdId);
      assert.equal(body.details.hold_name, name);
    };

    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'enterprise' });
      other = await createTenant(ctx(), { tier: 'enterprise' });
      member = await loginAs(ctx(), tenant, 'member');
      admin = await loginAs(ctx(), tenant, 'admin');
    });

    it('validates holds: a name by the name rule, at least one id, ids of the tenant', async () => {
      const f = await folder('Valid');
      assertError(await hold({ name: '', folder_ids: [f] }), 400, 'validation_error');
      assertError(await hold({ name: 'bad\u0007name', folder_ids: [f] }), 400, 'validation_error');
      assertError(await hold({ name: 'Nothing' }), 400, 'validation_error');
      assertError(
        await hold({ name: 'Unknown', document_ids: ['0190f0a0-0000-7000-8000-000000000000'] }),
        404,
        'not_found',
      );
      assertError(await hold({ name: 'Extra', folder_ids: [f], extra: 1 }), 400, 'validation_error');
      // Another tenant's folder and document are not found.
      const foreignFolder = await folder('Foreign', null, other);
      const foreignDoc = await doc(null, other);
      assertError(await hold({ name: 'Cross', folder_ids: [foreignFolder] }), 404, 'not_found');
      assertError(await hold({ name: 'Cross', document_ids: [foreignDoc] }), 404, 'not_found');
      // A rule: keep_days a positive whole number, basis and action from their lists, a folder of the tenant.
      for (const body of [
        { folder_id: f, keep_days: 0, basis: 'created', action: 'delete' },
        { folder_id: f, keep_days: 1.5, basis: 'created', action: 'delete' },
        { folder_id: f, keep_days: 10, basis: 'modified', action: 'delete' },
        { folder_id: f, keep_days: 10, basis: 'created', action: 'archive' },
      ]) {
        assertError(await call('POST', '/retention-rules', tenant.headers, body), 400, 'validation_error');
      }
      assertError(
        await call('POST', '/retention-rules', tenant.headers, {
          folder_id: foreignFolder,
          keep_days: 1,
          basis: 'created',
          action: 'delete',
        }),
        404,
        'not_found',
      );
    });

    it('refuses members and viewers; admins and owners manage holds and rules', async () => {
      const f = await folder('Roles');
      const viewer = await loginAs(ctx(), tenant, 'viewer');
      for (const who of [member, viewer]) {
        assertError(await hold({ name: 'By a member', folder_ids: [f] }, who.headers), 403, 'forbidden');
        assertError(await call('GET', '/legal-holds', who.headers), 403, 'forbidden');
        assertError(
          await call('POST', '/retention-rules', who.headers, {
            folder_id: f,
            keep_days: 5,
            basis: 'created',
            action: 'review',
          }),
          403,
          'forbidden',
        );
        assertError(await call('GET', '/retention-rules', who.headers), 403, 'forbidden');
      }
      const created = (await hold({ name: 'By an admin', folder_ids: [f] }, admin.headers)).json();
      assert.equal(created.status, 'active');
      assert.equal(created.created_by, admin.userId);
      assertError(await call('DELETE', `/legal-holds/${created.id}`, member.headers), 403, 'forbidden');
      const released = await made('DELETE', `/legal-holds/${created.id}`, undefined, admin.headers);
      assert.equal(released.status, 'released');
      assert.ok(released.released_at);
      assertError(await call('DELETE', `/legal-holds/${created.id}`, tenant.headers), 409, 'conflict');
    });

    it('a document hold refuses the document delete, naming the hold; release unblocks', async () => {
      const d = await doc(null);
      const h = (await hold({ name: 'Dispute A', document_ids: [d] })).json();
      assertHeld(await call('DELETE', `/documents/${d}`, tenant.headers), h.id, 'Dispute A');
      assert.ok(await exists(d));
      const fetched = await made('GET', `/legal-holds/${h.id}`);
      assert.deepEqual(fetched.document_ids, [d]);
      const listed = await made('GET', '/legal-holds?status=active');
      assert.ok(listed.data.some((x: Json) => x.id === h.id));
      await made('DELETE', `/legal-holds/${h.id}`);
      assert.ok(
        (await made('GET', '/legal-holds?status=released')).data.some((x: Json) => x.id === h.id),
        'the released hold stays listed',
      );
      assert.equal((await call('DELETE', `/documents/${d}`, tenant.headers)).statusCode, 200);
    });

    it('a folder hold covers subfolders and documents added later, against every folder and document delete', async () => {
      const top = await folder('Held');
      const sub = await folder('Sub', top);
      const h = (await hold({ name: 'Dispute B', folder_ids: [top] })).json();
      // Added after the hold, one level down.
      const later = await doc(sub);
      const empty = await folder('Empty', sub);
      assertHeld(await call('DELETE', `/documents/${later}`, tenant.headers), h.id, 'Dispute B');
      assertHeld(await call('DELETE', `/folders/${empty}`, tenant.headers), h.id, 'Dispute B');
      assertHeld(await call('DELETE', `/folders/${top}?force=true`, tenant.headers), h.id, 'Dispute B');
      assertHeld(await call('DELETE', `/folders/${sub}?force=true`, tenant.headers), h.id, 'Dispute B');
      assert.ok(await exists(later));
      // Moving out from under the held folder would escape the hold: refused; moving within the tree is not.
      const patch = (url: string, payload: object) =>
        ctx().app.inject({ method: 'PUT', url: `/api/v1${url}`, headers: tenant.headers, payload });
      assertHeld(await patch(`/documents/${later}`, { folder_id: null }), h.id, 'Dispute B');
      assertHeld(await patch(`/folders/${sub}`, { parent_id: null }), h.id, 'Dispute B');
      assert.equal((await patch(`/documents/${later}`, { folder_id: top })).statusCode, 200);
      assert.equal((await patch(`/documents/${later}`, { folder_id: sub })).statusCode, 200);
      // A hold on something inside the tree refuses the force delete of a folder above it.
      const outer = await folder('Outer');
      const inner = await doc(outer);
      const h2 = (await hold({ name: 'Inner', document_ids: [inner] })).json();
      assertHeld(await call('DELETE', `/folders/${outer}?force=true`, tenant.headers), h2.id, 'Inner');
      // Released: everything goes.
      await made('DELETE', `/legal-holds/${h.id}`);
      await made('DELETE', `/legal-holds/${h2.id}`);
      assert.equal((await call('DELETE', `/folders/${top}?force=true`, tenant.headers)).statusCode, 200);
      assert.equal((await call('DELETE', `/folders/${outer}?force=true`, tenant.headers)).statusCode, 200);
      assert.equal(await exists(later), false);
    });

    it('keeps holds and rules apart between tenants', async () => {
      const f = await folder('Mine');
      const h = (await hold({ name: 'Private', folder_ids: [f] })).json();
      const rule = await made('POST', '/retention-rules', {
        folder_id: f,
        keep_days: 30,
        basis: 'created',
        action: 'review',
      });
      for (const [method, url] of [
        ['GET', `/legal-holds/${h.id}`],
        ['DELETE', `/legal-holds/${h.id}`],
        ['GET', `/retention-rules/${rule.id}`],
        ['POST', `/retention-rules/${rule.id}/run`],
        ['DELETE', `/retention-rules/${rule.id}`],
      ] as const) {
        assertError(await call(method, url, other.headers), 404, 'not_found');
      }
      assert.ok(
        !(await made('GET', '/legal-holds?page_size=100', undefined, other.headers)).data.some(
          (x: Json) => x.id === h.id,
        ),
      );
      assert.ok(
        !(await made('GET', '/retention-rules?page_size=100', undefined, other.headers)).data.some(
          (x: Json) => x.id === rule.id,
        ),
      );
      // The other tenant's deletions are not held by this tenant's hold.
      const theirs = await doc(null, other);
      assert.equal((await call('DELETE', `/documents/${theirs}`, other.headers)).statusCode, 200);
      assert.equal((await made('GET', `/legal-holds/${h.id}`)).status, 'active');
      await made('DELETE', `/retention-rules/${rule.id}`);
      assertError(await call('GET', `/retention-rules/${rule.id}`, tenant.headers), 404, 'not_found');
      await made('DELETE', `/legal-holds/${h.id}`);
    });

    it('a delete rule deletes what is due when the clock passes keep_days, and leaves held documents', async () => {
      const f = await folder('Retained');
      const sub = await folder('Below', f);
      const old = await doc(f);
      const oldBelow = await doc(sub);
      const held = await doc(sub);
      const outside = await doc(null);
      const h = (await hold({ name: 'Keep one', document_ids: [held] })).json();
      const rule = await made('POST', '/retention-rules', {
        folder_id: f,
        keep_days: 10,
        basis: 'created',
        action: 'delete',
      });
      assert.equal(rule.last_run.status, 'idle');
      // Not due yet: nothing happens.
      await made('POST', `/retention-rules/${rule.id}/run`);
      const first = await waitFor(
        async () => {
          const r = await made('GET', `/retention-rules/${rule.id}`);
          return r.last_run.status === 'completed' ? r : undefined;
        },
        'the first run',
        30_000,
      );
      assert.equal(first.last_run.examined, 0);
      assert.ok(await exists(old));
      offset += 11 * DAY_MS;
      const fresh = await doc(f);
      await made('POST', `/retention-rules/${rule.id}/run`);
      const second = await waitFor(
        async () => {
          const r = await made('GET', `/retention-rules/${rule.id}`);
          return r.last_run.status === 'completed' &&
            Date.parse(r.last_run.started_at) > Date.parse(first.last_run.started_at)
            ? r
            : undefined;
        },
        'the second run',
        30_000,
      );
      assert.deepEqual([second.last_run.examined, second.last_run.deleted, second.last_run.held], [3, 2, 1]);
      assert.equal(await exists(old), false);
      assert.equal(await exists(oldBelow), false);
      assert.ok(await exists(held), 'a held document is left');
      assert.ok(await exists(outside), 'a document outside the folder is not the rule’s');
      assert.ok(await exists(fresh), 'a document not yet due stays');
      const events = await ctx()
        .container.database.db.selectFrom('events')
        .select(['name', 'data'])
        .where('tenant_id', '=', tenant.tenantId)
        .where('name', 'like', 'retention.%')
        .execute();
      assert.equal(events.filter((e) => e.name === 'retention.document_deleted').length, 2);
      assert.ok(events.some((e) => e.name === 'retention.run_completed'));
      await made('DELETE', `/legal-holds/${h.id}`);
      await made('DELETE', `/retention-rules/${rule.id}`);
    });

    it('a last_version rule counts from the newest version: a document given a new version is not due', async () => {
      const f = await folder('Versioned');
      const stale = await doc(f);
      const revised = await doc(f);
      const rule = await made('POST', '/retention-rules', {
        folder_id: f,
        keep_days: 10,
        basis: 'last_version',
        action: 'delete',
      });
      offset += 11 * DAY_MS;
      const body = multipart([
        { name: 'file', filename: 'revised.txt', content: Buffer.from(`Revised contract ${Math.random()}`) },
      ]);
      const version = await ctx().app.inject({
        method: 'POST',
        url: `/api/v1/documents/${revised}/versions`,
        payload: body.payload,
        headers: { ...tenant.headers, ...body.headers },
      });
      assert.equal(version.statusCode, 201, version.body);
      await made('POST', `/retention-rules/${rule.id}/run`);
      const run = await waitFor(
        async () => {
          const r = await made('GET', `/retention-rules/${rule.id}`);
          return r.last_run.status === 'completed' ? r : undefined;
        },
        'the run',
        30_000,
      );
      assert.deepEqual([run.last_run.examined, run.last_run.deleted], [1, 1]);
      assert.equal(await exists(stale), false);
      assert.ok(await exists(revised), 'the new version restarted its time');
      await made('DELETE', `/retention-rules/${rule.id}`);
    });

    it('a review rule sends one task per due document; approval deletes, refused under a hold; rejection keeps', async () => {
      const f = await folder('Reviewed');
      const a = await doc(f);
      const b = await doc(f);
      const rule = await made('POST', '/retention-rules', {
        folder_id: f,
        keep_days: 5,
        basis: 'last_version',
        action: 'review',
      });
      offset += 6 * DAY_MS;
      const runOnce = async (after: number) => {
        await made('POST', `/retention-rules/${rule.id}/run`);
        return waitFor(
          async () => {
            const r = await made('GET', `/retention-rules/${rule.id}`);
            return r.last_run.status === 'completed' && Date.parse(r.last_run.started_at) > after ? r : undefined;
          },
          'a review run',
          30_000,
        );
      };
      const run = await runOnce(0);
      assert.equal(run.last_run.review_requested, 2);
      // A second run asks nothing again.
      assert.equal((await runOnce(Date.parse(run.last_run.started_at))).last_run.review_requested, 0);
      const tasks = (await made('GET', '/dag/tasks?status=pending&page_size=100')).data.filter(
        (t: Json) => t.context?.rule_id === rule.id,
      );
      assert.equal(tasks.length, 2);
      const taskOf = (id: string) => tasks.find((t: Json) => t.context.document_id === id);
      // Members do not see them (a fresh sign-in: the clock moved past the first one's tokens).
      const laterMember = await loginAs(ctx(), tenant, 'member', { email: `later-${tenant.subdomain}@example.com` });
      assert.ok(
        !(await made('GET', '/dag/tasks?page_size=100', undefined, laterMember.headers)).data.some(
          (t: Json) => t.context?.rule_id === rule.id,
        ),
      );
      // Approval under a hold is refused, and the task stays pending.
      const h = (await hold({ name: 'Review hold', folder_ids: [f] })).json();
      assertHeld(
        await call('POST', `/dag/tasks/${taskOf(a).id}/complete`, tenant.headers, { decision: 'approved' }),
        h.id,
        'Review hold',
      );
      assert.ok(await exists(a));
      await made('DELETE', `/legal-holds/${h.id}`);
      assert.equal(
        (await call('POST', `/dag/tasks/${taskOf(a).id}/complete`, tenant.headers, { decision: 'approved' }))
          .statusCode,
        200,
      );
      assert.equal(await exists(a), false);
      assert.equal(
        (await call('POST', `/dag/tasks/${taskOf(b).id}/complete`, tenant.headers, { decision: 'rejected' }))
          .statusCode,
        200,
      );
      assert.ok(await exists(b));
      await made('DELETE', `/retention-rules/${rule.id}`);
    });
  },
  { worker: true, clock },
);
