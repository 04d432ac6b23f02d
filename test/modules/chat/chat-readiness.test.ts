import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { charges, waitProcessed } from '../search/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant } from '../../support/fixtures.ts';
import { startOpenAiServer } from '../../support/openai-server.ts';

const LEASE =
  'Office lease between Harrow Estates Ltd and Quillfeather Studio. The lease begins on 1 April 2025 and ends on 31 March 2028. The rent is GBP 4,250.00 per month.';

// No worker at first: an uploaded document stays `processing` until the test starts one.
describeEachDialect('chat: a document that is not completed', (ctx) => {
  it('409 document_not_ready while processing (JSON and streamed), nothing stored or charged; answers once completed', async () => {
    const tenant = await createTenant(ctx());
    const documentId = await uploadOk(ctx(), tenant.headers, { filename: 'lease.txt', content: Buffer.from(LEASE) });
    // A session may be opened at once; the question waits for the document.
    const created = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/chat/sessions',
      headers: tenant.headers,
      payload: { document_id: documentId, name: 'Early' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const session = created.json().id;
    const ask = (headers: Record<string, string> = {}) =>
      ctx().app.inject({
        method: 'POST',
        url: `/api/v1/chat/sessions/${session}/ask`,
        headers: { ...tenant.headers, ...headers },
        payload: { message: 'When does the lease end?' },
      });

    const body = assertError(await ask(), 409, 'document_not_ready');
    assert.deepEqual(body.details, { document_id: documentId, status: 'processing' });
    assert.match(body.message, /still being processed/);
    assertError(await ask({ accept: 'text/event-stream' }), 409, 'document_not_ready');
    assert.equal(await charges(ctx(), tenant.tenantId, 'chat_ask'), 0);
    assert.equal(
      (await ctx().app.inject({ url: `/api/v1/chat/sessions/${session}`, headers: tenant.headers })).json()
        .message_count,
      0,
    );

    const worker = ctx().container.createWorker();
    worker.start();
    after(() => worker.stop(2_000));
    await waitProcessed(ctx(), documentId);
    const res = await ask();
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.json().content, /31 March 2028/);
    assert.equal(await charges(ctx(), tenant.tenantId, 'chat_ask'), 1);
  });

  it('409 for a document whose processing failed', async () => {
    const tenant = await createTenant(ctx());
    const documentId = await uploadOk(ctx(), tenant.headers, { filename: 'lease.txt', content: Buffer.from(LEASE) });
    // As the pipeline leaves a file it could not read (no worker runs now, so nothing overwrites it).
    await ctx()
      .container.database.db.updateTable('documents')
      .set({ status: 'failed' })
      .where('id', '=', documentId)
      .execute();
    const session = (
      await ctx().app.inject({
        method: 'POST',
        url: '/api/v1/chat/sessions',
        headers: tenant.headers,
        payload: { document_id: documentId, name: 'Failed' },
      })
    ).json().id;
    const res = await ctx().app.inject({
      method: 'POST',
      url: `/api/v1/chat/sessions/${session}/ask`,
      headers: tenant.headers,
      payload: { message: 'When does it end?' },
    });
    const body = assertError(res, 409, 'document_not_ready');
    assert.equal(body.details.status, 'failed');
    assert.equal(await charges(ctx(), tenant.tenantId, 'chat_ask'), 0);
  });
});

const openai = await startOpenAiServer();
after(() => openai.close());

describeEachDialect(
  'chat: the OpenAI-compatible provider answers from the retrieved passages',
  (ctx) => {
    it('sends the best passages of the document, numbered, and cites the one the model used', async () => {
      const tenant = await createTenant(ctx());
      const filler = Array.from(
        { length: 30 },
        (_, i) => `Clause ${i + 10} covers general housekeeping matter number ${i} in plain words.`,
      ).join(' ');
      const documentId = await uploadOk(ctx(), tenant.headers, {
        filename: 'lease.txt',
        content: Buffer.from(`${filler}\n\n${LEASE}`),
      });
      await waitProcessed(ctx(), documentId);
      const session = (
        await ctx().app.inject({
          method: 'POST',
          url: '/api/v1/chat/sessions',
          headers: tenant.headers,
          payload: { document_id: documentId, name: 'Model' },
        })
      ).json().id;
      const before = openai.requests.length;
      const res = await ctx().app.inject({
        method: 'POST',
        url: `/api/v1/chat/sessions/${session}/ask`,
        headers: tenant.headers,
        payload: { message: 'When does the lease end?' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const chats = openai.requests.slice(before).filter((r) => r.path === '/v1/chat/completions');
      assert.equal(chats.length, 1);
      const messages = (chats[0]!.body as { messages: { role: string; content: string }[] }).messages;
      const prompt = messages.at(-1)!.content;
      // The retrieved passage holding the answer is passage [1], and the question closes the prompt.
      const first = prompt.split(/\n\n\[2\] \(document /)[0]!;
      assert.match(first, /^Passages:\n\n\[1\] \(document [^)]+\)\n/);
      assert.match(first, /ends on 31 March 2028/);
      assert.match(prompt, /Question: When does the lease end\?$/);
      const answer = res.json();
      assert.match(answer.content, /^According to the document, .*\[1\]$/);
      assert.equal(answer.citations.length, 1);
      assert.match(answer.citations[0].text, /31 March 2028/);
      assert.equal(await charges(ctx(), tenant.tenantId, 'chat_ask'), 1);
    });
  },
  {
    worker: true,
    env: {
      AI_PROVIDER: 'openai',
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_EMBEDDING_DIMENSIONS: '64',
      OPENAI_MAX_RETRIES: '0',
    },
  },
);
