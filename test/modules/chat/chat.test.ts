import assert from 'node:assert/strict';
import { it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { waitProcessed } from '../search/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';

const POLICY = [
  'Travel and Expense Policy.',
  'Employees may book economy class flights for trips shorter than six hours.',
  'Hotel stays are reimbursed up to 180 euros per night in Paris and 150 euros elsewhere.',
  'Meal receipts must be submitted within thirty days through the finance portal.',
  'The policy is owned by Maria Keller, head of finance at Lumen Analytics GmbH.',
].join(' ');

/** Parses a server-sent event stream into its events. */
function parseSse(body: string): { event: string; data: unknown }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null');
      return { event, data };
    });
}

describeEachDialect(
  'chat',
  (ctx) => {
    let tenant: TestTenant;
    let documentId: string;
    const call = (
      method: 'GET' | 'POST' | 'DELETE',
      url: string,
      payload?: unknown,
      headers: Record<string, string> = tenant.headers,
    ) =>
      ctx().app.inject({
        method,
        url: `/api/v1${url}`,
        headers,
        ...(payload !== undefined ? { payload: payload as object } : {}),
      });

    it('opens a session on a readable document only', async () => {
      tenant = await createTenant(ctx());
      documentId = await uploadOk(ctx(), tenant.headers, { filename: 'policy.txt', content: Buffer.from(POLICY) });
      await waitFor(
        async () => (await call('GET', `/documents/${documentId}`)).json().status === 'completed',
        'processing',
        30_000,
      );

      const res = await call('POST', '/chat/sessions', { document_id: documentId, name: 'Travel questions' });
      assert.equal(res.statusCode, 201, res.body);
      const session = res.json();
      assert.equal(session.document_id, documentId);
      assert.equal(session.name, 'Travel questions');
      assert.equal(session.message_count, 0);
      assert.ok(session.id && session.created_at && session.updated_at);

      assertError(await call('POST', '/chat/sessions', { document_id: 'doc_missing', name: 'x' }), 404, 'not_found');
      assertError(await call('POST', '/chat/sessions', { document_id: documentId }), 400, 'validation_error');
      const other = await createTenant(ctx());
      assertError(
        await call('POST', '/chat/sessions', { document_id: documentId, name: 'x' }, other.headers),
        404,
        'not_found',
      );
      const viewer = await loginAs(ctx(), tenant, 'viewer');
      assertError(
        await call('POST', '/chat/sessions', { document_id: documentId, name: 'x' }, viewer.headers),
        404,
        'not_found',
      );
    });

    it('answers from the document with citations, stores both messages, charges one credit', async () => {
      const session = (await call('POST', '/chat/sessions', { document_id: documentId, name: 'Hotels' })).json();
      const res = await call('POST', `/chat/sessions/${session.id}/ask`, {
        message: 'How much is a hotel night in Paris reimbursed?',
      });
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json();
      assert.equal(answer.role, 'assistant');
      assert.equal(answer.session_id, session.id);
      assert.match(answer.content, /180 euros/);
      assert.ok(answer.citations.length >= 1);
      assert.equal(answer.citations[0].document_id, documentId);
      assert.match(answer.citations[0].text, /Paris/);
      assert.ok(answer.citations[0].score > 0 && answer.citations[0].score <= 1);

      const messages = (await call('GET', `/chat/sessions/${session.id}/messages`)).json();
      assert.equal(messages.total, 2);
      assert.deepEqual(
        messages.data.map((m: { role: string }) => m.role),
        ['user', 'assistant'],
      );
      assert.equal(messages.data[0].citations, undefined);
      assert.equal(messages.data[1].id, answer.id);
      assert.equal((await call('GET', `/chat/sessions/${session.id}`)).json().message_count, 2);

      const charges = await ctx()
        .container.database.db.selectFrom('ai_credit_charges')
        .selectAll()
        .where('tenant_id', '=', tenant.tenantId)
        .where('reason', '=', 'chat_ask')
        .execute();
      assert.equal(charges.length, 1);
      assert.equal(Number(charges[0]!.millicredits), 1000);
      assert.equal(charges[0]!.reference, answer.id);

      const events = await ctx()
        .container.database.db.selectFrom('events')
        .select(['name', 'data'])
        .where('tenant_id', '=', tenant.tenantId)
        .execute();
      assert.ok(events.some((e) => e.name === 'chat.session.created' && JSON.parse(e.data).session_id === session.id));
      assert.equal(
        events.filter((e) => e.name === 'chat.message.created' && JSON.parse(e.data).session_id === session.id).length,
        2,
      );
    });

    it('says plainly when the document holds no answer, with no citations', async () => {
      const session = (await call('POST', '/chat/sessions', { document_id: documentId, name: 'Off topic' })).json();
      const answer = (
        await call('POST', `/chat/sessions/${session.id}/ask`, { message: 'What is the boiling point of mercury?' })
      ).json();
      assert.deepEqual(answer.citations, []);
      assert.match(answer.content, /could not find|not find|no answer|doesn.t say/i);
    });

    it('streams the answer as server-sent events: deltas, then done with the full message', async () => {
      const session = (await call('POST', '/chat/sessions', { document_id: documentId, name: 'Stream' })).json();
      const res = await ctx().app.inject({
        method: 'POST',
        url: `/api/v1/chat/sessions/${session.id}/ask`,
        headers: { ...tenant.headers, accept: 'text/event-stream' },
        payload: { message: 'When must meal receipts be submitted?' },
      });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/event-stream/);
      const events = parseSse(res.body);
      const deltas = events.filter((e) => e.event === 'delta');
      const done = events.filter((e) => e.event === 'done');
      assert.ok(deltas.length >= 1);
      assert.equal(done.length, 1);
      assert.equal(events.at(-1)!.event, 'done');
      const message = done[0]!.data as { content: string; citations: unknown[]; role: string };
      assert.equal(deltas.map((d) => (d.data as { content: string }).content).join(''), message.content);
      assert.match(message.content, /thirty days/);
      assert.equal(message.role, 'assistant');
    });

    it('refuses before streaming: an unknown session is a JSON 404 even with Accept: text/event-stream', async () => {
      const res = await ctx().app.inject({
        method: 'POST',
        url: '/api/v1/chat/sessions/nope/ask',
        headers: { ...tenant.headers, accept: 'text/event-stream' },
        payload: { message: 'hello?' },
      });
      assertError(res, 404, 'not_found');
    });

    it('402 when the month is spent: nothing is stored or charged', async () => {
      const poor = await createTenant(ctx(), { tier: 'free' });
      const doc = await uploadOk(ctx(), poor.headers, { filename: 'p.txt', content: Buffer.from(POLICY) });
      await waitProcessed(ctx(), doc);
      const session = (await call('POST', '/chat/sessions', { document_id: doc, name: 'x' }, poor.headers)).json();
      const period = new Date().toISOString().slice(0, 7);
      await ctx()
        .container.database.db.insertInto('ai_credit_charges')
        .values({
          id: `crd_fill_${poor.tenantId}`,
          tenant_id: poor.tenantId,
          period,
          millicredits: 99_500,
          reason: 'semantic_search',
          reference: null,
          created_at: Date.now(),
        })
        .execute();
      const res = await call('POST', `/chat/sessions/${session.id}/ask`, { message: 'Hotel in Paris?' }, poor.headers);
      const body = assertError(res, 402, 'insufficient_credits');
      assert.deepEqual(body.details, { needed: 1, remaining: 0.5 });
      assert.equal(
        (await call('GET', `/chat/sessions/${session.id}`, undefined, poor.headers)).json().message_count,
        0,
      );
    });

    it('sessions are listed, read and deleted by their owner only; other tenants see nothing', async () => {
      const member = await loginAs(ctx(), tenant, 'member');
      const mine = await uploadOk(ctx(), member.headers, { filename: 'mine.txt', content: Buffer.from(POLICY) });
      const s = (
        await call('POST', '/chat/sessions', { document_id: mine, name: 'Member chat' }, member.headers)
      ).json();
      const listed = (await call('GET', '/chat/sessions', undefined, member.headers)).json();
      assert.deepEqual(
        listed.data.map((x: { id: string }) => x.id),
        [s.id],
      );
      assert.equal(listed.total, 1);
      const admin = await loginAs(ctx(), tenant, 'admin');
      assertError(await call('GET', `/chat/sessions/${s.id}`, undefined, admin.headers), 404, 'not_found');
      // The API key acts for the tenant and sees every session.
      assert.ok((await call('GET', '/chat/sessions')).json().data.some((x: { id: string }) => x.id === s.id));
      const other = await createTenant(ctx());
      assertError(await call('GET', `/chat/sessions/${s.id}`, undefined, other.headers), 404, 'not_found');
      assertError(await call('GET', `/chat/sessions/${s.id}/messages`, undefined, other.headers), 404, 'not_found');
      assertError(
        await call('POST', `/chat/sessions/${s.id}/ask`, { message: 'hi there' }, other.headers),
        404,
        'not_found',
      );
      assertError(await call('DELETE', `/chat/sessions/${s.id}`, undefined, other.headers), 404, 'not_found');
      assert.equal((await call('GET', '/chat/sessions', undefined, other.headers)).json().total, 0);
      const del = await call('DELETE', `/chat/sessions/${s.id}`, undefined, member.headers);
      assert.equal(del.statusCode, 200);
      assertError(await call('GET', `/chat/sessions/${s.id}`, undefined, member.headers), 404, 'not_found');
    });

    it('deleting the document ends its sessions', async () => {
      const doc = await uploadOk(ctx(), tenant.headers, { filename: 'gone.txt', content: Buffer.from(POLICY) });
      const s = (await call('POST', '/chat/sessions', { document_id: doc, name: 'Soon gone' })).json();
      assert.equal((await call('DELETE', `/documents/${doc}`)).statusCode, 200);
      assertError(await call('GET', `/chat/sessions/${s.id}`), 404, 'not_found');
    });
  },
  { worker: true },
);
