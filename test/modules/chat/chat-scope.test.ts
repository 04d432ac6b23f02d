import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { tinyPdf, uploadOk } from '../documents/helpers.ts';
import { charges, type Json, post, uploadProcessed, waitProcessed } from '../search/helpers.ts';

/*
 * Chat across a folder (and everything below it) or the whole tenant (docs/api-decisions.md "Chat
 * across a folder or the tenant"): passages come only from completed documents in scope that the
 * caller may read at the moment of asking, and each citation names its document (and page).
 */

const LEASE =
  'Office lease between Harrow Estates Ltd and Quillfeather Studio. The office lease begins on 1 April 2025 and ends on 31 March 2028. The rent is GBP 4,250.00 per month.';
const NDA =
  'Mutual non-disclosure agreement between Quillfeather Studio and Brightwater Labs. The confidentiality obligations last five years after signature.';
const BUDGET =
  'Office budget 2026 of Quillfeather Studio. The office lease rent is budgeted at GBP 60,000 for the year; a new office lease would end on 30 June 2031.';
const PERMIT = 'Parking permit 7731 for bay 12';

describeEachDialect(
  'chat across a folder or the tenant',
  (ctx) => {
    let tenant: TestTenant;
    let legal: string;
    let leases: string;
    let finance: string;
    const docs: Record<string, string> = {};
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, headers = tenant.headers) =>
      ctx().app.inject({ method, url: `/api/v1${url}`, headers, ...(payload ? { payload } : {}) });
    const folder = async (name: string, parentId?: string) => {
      const res = await post(ctx(), tenant.headers, '/folders', { name, ...(parentId ? { parent_id: parentId } : {}) });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().id as string;
    };
    const open = async (body: object, headers = tenant.headers): Promise<Json> => {
      const res = await call('POST', '/chat/sessions', { name: 'Across', ...body }, headers);
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    };
    const ask = async (session: string, message: string, headers = tenant.headers): Promise<Json> => {
      const res = await call('POST', `/chat/sessions/${session}/ask`, { message }, headers);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const cited = (answer: Json): string[] => answer.citations.map((c: { document_id: string }) => c.document_id);

    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'pro' });
      legal = await folder('Legal');
      leases = await folder('Leases', legal);
      finance = await folder('Finance');
      docs.lease = await uploadProcessed(ctx(), tenant.headers, 'lease.txt', LEASE, { folder_id: leases });
      docs.nda = await uploadProcessed(ctx(), tenant.headers, 'nda.txt', NDA, { folder_id: legal });
      docs.budget = await uploadProcessed(ctx(), tenant.headers, 'budget.txt', BUDGET, { folder_id: finance });
    });

    it('a folder session reads that folder and the folders below it only, and cites document and page', async () => {
      const session = await open({ folder_id: legal });
      assert.equal(session.scope, 'folder');
      assert.equal(session.folder_id, legal);
      assert.equal(session.document_id, null);

      const answer = await ask(session.id, 'When does the office lease end?');
      assert.match(answer.content, /31 March 2028/);
      assert.ok(cited(answer).includes(docs.lease!), JSON.stringify(answer.citations));
      assert.ok(!cited(answer).includes(docs.budget!), 'the Finance folder is out of scope');
      assert.equal(answer.citations[0].version, 1);

      // A question only the other folder answers finds nothing outside the scope.
      const budget = await ask(session.id, 'What is the office rent budgeted at for the year?');
      assert.ok(!cited(budget).includes(docs.budget!), JSON.stringify(budget.citations));

      const messages = (await call('GET', `/chat/sessions/${session.id}/messages`)).json();
      assert.equal(messages.total, 4);
      assert.deepEqual(
        messages.data.map((m: Json) => m.role),
        ['user', 'assistant', 'user', 'assistant'],
      );
      assert.ok(messages.data[1].citations.some((c: Json) => c.document_id === docs.lease));
      assert.equal(await charges(ctx(), tenant.tenantId, 'chat_ask'), 2);
    });

    it('a tenant session reads every readable document', async () => {
      const session = await open({ scope: 'tenant' });
      assert.equal(session.scope, 'tenant');
      assert.equal(session.folder_id, null);
      assert.equal(session.document_id, null);
      const answer = await ask(session.id, 'What is the office rent budgeted at for the year?');
      assert.match(answer.content, /60,000/);
      assert.ok(cited(answer).includes(docs.budget!), JSON.stringify(answer.citations));
      const nda = await ask(session.id, 'How long do the confidentiality obligations last?');
      assert.deepEqual([...new Set(cited(nda))], [docs.nda]);
      const listed = (await call('GET', '/chat/sessions')).json().data.find((s: Json) => s.id === session.id);
      assert.equal(listed.scope, 'tenant');
    });

    it('a member is answered from the documents they may read, checked at each question', async () => {
      const member = await loginAs(ctx(), tenant, 'member');
      const session = await open({ scope: 'tenant' }, member.headers);
      const before = await ask(session.id, 'When does the office lease end?', member.headers);
      assert.deepEqual(before.citations, [], "the owner's documents are not the member's");
      assert.doesNotMatch(before.content, /2028/);

      const share = await post(ctx(), tenant.headers, `/documents/${docs.lease}/share`, {
        user_id: member.userId,
        permission: 'view',
      });
      assert.ok(share.statusCode < 300, share.body);
      const shared = await ask(session.id, 'When does the office lease end?', member.headers);
      assert.deepEqual([...new Set(cited(shared))], [docs.lease]);
      assert.match(shared.content, /31 March 2028/);

      // Folder sessions too, and a share revoked after the session started is not cited again.
      const inFolder = await open({ folder_id: legal }, member.headers);
      assert.deepEqual(
        [...new Set(cited(await ask(inFolder.id, 'When does the office lease end?', member.headers)))],
        [docs.lease],
      );
      const shares = (await call('GET', `/documents/${docs.lease}/shares`)).json();
      const shareId = shares.shares[0].share_id ?? shares.shares[0].id;
      const revoked = await call('DELETE', `/documents/${docs.lease}/shares/${shareId}`);
      assert.ok(revoked.statusCode < 300, revoked.body);
      for (const id of [session.id, inFolder.id]) {
        const after = await ask(id, 'When does the office lease end?', member.headers);
        assert.deepEqual(after.citations, [], id);
      }
    });

    it('keeps tenants apart', async () => {
      const other = await createTenant(ctx(), { tier: 'pro' });
      // Another tenant's folder is unknown here; its sessions are not reachable.
      assertError(
        await call('POST', '/chat/sessions', { folder_id: legal, name: 'x' }, other.headers),
        404,
        'not_found',
      );
      const mine = await open({ scope: 'tenant' });
      assertError(
        await call('POST', `/chat/sessions/${mine.id}/ask`, { message: 'When does the lease end?' }, other.headers),
        404,
        'not_found',
      );
      await uploadProcessed(ctx(), other.headers, 'other.txt', 'A recipe for lemon cake with sugar and eggs.');
      const theirs = await open({ scope: 'tenant' }, other.headers);
      const answer = await ask(theirs.id, 'When does the office lease end?', other.headers);
      assert.deepEqual(answer.citations, []);
      assert.doesNotMatch(answer.content, /2028/);
    });

    it('refuses a session that names no scope, two scopes, or an unknown folder', async () => {
      const body = (extra: object) => ({ name: 'x', ...extra });
      const bad = [
        body({}),
        body({ document_id: docs.lease, folder_id: legal }),
        body({ folder_id: legal, scope: 'tenant' }),
        body({ document_id: docs.lease, scope: 'tenant' }),
        body({ scope: 'document' }),
        body({ scope: 'folder', folder_id: legal }),
      ];
      for (const payload of bad) assertError(await call('POST', '/chat/sessions', payload), 400, 'validation_error');
      assertError(await call('POST', '/chat/sessions', body({ folder_id: 'no-such-folder' })), 404, 'not_found');
      // A document session is as before.
      const session = await open({ document_id: docs.nda });
      assert.equal(session.scope, 'document');
      assert.equal(session.document_id, docs.nda);
      assert.equal(session.folder_id, null);
    });

    it('the not-completed rule is for document sessions: folder and tenant sessions skip such documents', async () => {
      const db = ctx().container.database.db;
      await db.updateTable('documents').set({ status: 'processing' }).where('id', '=', docs.lease!).execute();
      try {
        const document = await open({ document_id: docs.lease });
        assertError(
          await call('POST', `/chat/sessions/${document.id}/ask`, { message: 'When does the office lease end?' }),
          409,
          'document_not_ready',
        );
        for (const scope of [{ folder_id: leases }, { scope: 'tenant' }]) {
          const session = await open(scope);
          const answer = await ask(session.id, 'When does the office lease end?');
          assert.ok(!cited(answer).includes(docs.lease!), JSON.stringify(scope));
        }
      } finally {
        await db.updateTable('documents').set({ status: 'completed' }).where('id', '=', docs.lease!).execute();
      }
    });

    it('cites the page of a document that has pages', async () => {
      const pdf = await uploadOk(ctx(), tenant.headers, {
        filename: 'permit.pdf',
        content: tinyPdf(PERMIT),
        fields: { folder_id: finance },
      });
      await waitProcessed(ctx(), pdf);
      const session = await open({ folder_id: finance });
      const answer = await ask(session.id, 'Which bay is parking permit 7731 for?');
      const citation = answer.citations.find((c: Json) => c.document_id === pdf);
      assert.ok(citation, JSON.stringify(answer.citations));
      assert.equal(citation.page, 1);
    });
  },
  { worker: true },
);
