import assert from 'node:assert/strict';
import { it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { charges, waitProcessed } from '../search/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { pdf } from '../../fixtures/extraction/pdf.ts';
import { assertError, createTenant, type TestTenant } from '../../support/fixtures.ts';

// Streamed answers and the clients that reconnect: event ids, Idempotency-Key and Last-Event-ID
// replays (no second answer stored, no second charge); the README's question on a PDF contract.

const CONTRACT = pdf([
  { lines: ['SERVICES AGREEMENT', 'Between Brightwave Analytics Ltd and Harbor & Finch Logistics, Inc.'] },
  {
    lines: [
      '1. The term of this Agreement begins on March 1, 2025 and ends on',
      'February 28, 2026, unless terminated earlier under clause 7.',
      '2. The Client shall pay a monthly retainer of USD',
      '4,500.00 within thirty days of each invoice.',
    ],
  },
]);

function parseSse(body: string): { id: string | null; event: string; data: { content?: string; id?: string } }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => ({
      id: /^id: (.*)$/m.exec(block)?.[1] ?? null,
      event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message',
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null'),
    }));
}

describeEachDialect(
  'chat: streams that reconnect',
  (ctx) => {
    let tenant: TestTenant;
    let documentId: string;
    const ask = (sessionId: string, message: string, headers: Record<string, string> = {}) =>
      ctx().app.inject({
        method: 'POST',
        url: `/api/v1/chat/sessions/${sessionId}/ask`,
        headers: { ...tenant.headers, accept: 'text/event-stream', ...headers },
        payload: { message },
      });
    const newSession = async (name: string) =>
      (
        await ctx().app.inject({
          method: 'POST',
          url: '/api/v1/chat/sessions',
          headers: tenant.headers,
          payload: { document_id: documentId, name },
        })
      ).json().id as string;
    const messageCount = async (sessionId: string) =>
      (await ctx().app.inject({ url: `/api/v1/chat/sessions/${sessionId}`, headers: tenant.headers })).json()
        .message_count;

    it('answers the README question "When does it end?" on a PDF contract with the end date, citing page 2', async () => {
      tenant = await createTenant(ctx());
      documentId = await uploadOk(ctx(), tenant.headers, { filename: 'contract.pdf', content: CONTRACT });
      await waitProcessed(ctx(), documentId);
      const session = await newSession('Contract');
      const res = await ctx().app.inject({
        method: 'POST',
        url: `/api/v1/chat/sessions/${session}/ask`,
        headers: tenant.headers,
        payload: { message: 'When does it end?' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json();
      assert.match(answer.content, /February 28, 2026/);
      assert.equal(answer.citations.length, 1);
      assert.equal(answer.citations[0].page, 2);
      assert.match(answer.citations[0].text, /ends on\s+February 28, 2026/);
    });

    it('gives every event an id: <answer id>:<characters sent>, then <answer id>:done', async () => {
      const session = await newSession('Ids');
      const events = parseSse((await ask(session, 'How much is the monthly retainer?')).body);
      const done = events.at(-1)!;
      assert.equal(done.event, 'done');
      assert.equal(done.id, `${done.data.id}:done`);
      let sent = 0;
      for (const delta of events.filter((e) => e.event === 'delta')) {
        sent += delta.data.content!.length;
        assert.equal(delta.id, `${done.data.id}:${sent}`);
      }
    });

    it('a reconnect with the Last-Event-ID of the done event gets 204: nothing new stored or charged', async () => {
      const session = await newSession('Reconnect after done');
      const first = parseSse((await ask(session, 'When does it end?')).body);
      const before = await charges(ctx(), tenant.tenantId, 'chat_ask');
      const again = await ask(session, 'When does it end?', { 'last-event-id': first.at(-1)!.id! });
      assert.equal(again.statusCode, 204);
      assert.equal(await charges(ctx(), tenant.tenantId, 'chat_ask'), before);
      assert.equal(await messageCount(session), 2);
    });

    it('a reconnect in the middle gets the rest of the stored answer and its done event, no new charge', async () => {
      const session = await newSession('Reconnect mid-stream');
      const first = parseSse((await ask(session, 'When does it end?')).body);
      const done = first.at(-1)!;
      const firstDelta = first.find((e) => e.event === 'delta')!;
      const before = await charges(ctx(), tenant.tenantId, 'chat_ask');
      const res = await ask(session, 'When does it end?', { 'last-event-id': firstDelta.id! });
      assert.equal(res.statusCode, 200);
      const rest = parseSse(res.body);
      assert.deepEqual(
        rest.map((e) => e.event),
        ['delta', 'done'],
      );
      assert.equal(firstDelta.data.content! + rest[0]!.data.content!, (done.data as { content: string }).content);
      assert.equal(rest[1]!.id, done.id);
      assert.equal(await charges(ctx(), tenant.tenantId, 'chat_ask'), before);
      assert.equal(await messageCount(session), 2);
    });

    it('a Last-Event-ID of another question, or of nothing stored, is a new question', async () => {
      const session = await newSession('Other question');
      const first = parseSse((await ask(session, 'When does it end?')).body);
      const other = await ask(session, 'How much is the monthly retainer?', { 'last-event-id': first.at(-1)!.id! });
      assert.equal(other.statusCode, 200);
      assert.match(parseSse(other.body).at(-1)!.data.content as string, /4,500\.00/);
      const unknown = await ask(session, 'When does it end?', { 'last-event-id': 'not-an-id' });
      assert.equal(parseSse(unknown.body).at(-1)!.event, 'done');
      assert.equal(await messageCount(session), 6);
    });

    it('a repeat with the same Idempotency-Key replays the stream: one answer stored, one charge', async () => {
      const session = await newSession('Idempotent');
      const before = await charges(ctx(), tenant.tenantId, 'chat_ask');
      const first = await ask(session, 'When does it end?', { 'idempotency-key': `ask-${session}` });
      const second = await ask(session, 'When does it end?', { 'idempotency-key': `ask-${session}` });
      assert.equal(second.statusCode, 200);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.match(String(second.headers['content-type']), /^text\/event-stream/);
      assert.equal(second.body, first.body);
      assert.equal(await charges(ctx(), tenant.tenantId, 'chat_ask'), before + 1);
      assert.equal(await messageCount(session), 2);
      // The same key for another question is refused, not answered.
      assertError(
        await ask(session, 'How much is the retainer?', { 'idempotency-key': `ask-${session}` }),
        422,
        'idempotency_key_reused',
      );
    });

    it('a JSON ask with an Idempotency-Key is replayed as well', async () => {
      const session = await newSession('Idempotent JSON');
      const call = () =>
        ctx().app.inject({
          method: 'POST',
          url: `/api/v1/chat/sessions/${session}/ask`,
          headers: { ...tenant.headers, 'idempotency-key': `json-${session}` },
          payload: { message: 'When does it end?' },
        });
      const first = await call();
      const second = await call();
      assert.equal(second.json().id, first.json().id);
      assert.equal(await messageCount(session), 2);
    });
  },
  { worker: true },
);
