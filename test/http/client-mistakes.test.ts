import assert from 'node:assert/strict';
import { it } from 'node:test';
import { uploadOk } from '../modules/documents/helpers.ts';
import { describeEachDialect } from '../support/app.ts';
import { assertError, createTenant } from '../support/fixtures.ts';

/** The slips a new user makes in their first hour get an answer that says what to do instead. */
describeEachDialect('answers to common client mistakes', (ctx) => {
  it('an API key sent as a bearer token is told to use X-API-Key', async () => {
    const t = await createTenant(ctx());
    const res = await ctx().app.inject({
      method: 'GET',
      url: '/api/v1/documents',
      headers: { authorization: `Bearer ${t.apiKey}` },
    });
    const body = assertError(res, 401, 'unauthorized');
    assert.match(body.message, /X-API-Key/);
  });

  it('JSON sent as text/plain is 415, not a validation error', async () => {
    const t = await createTenant(ctx());
    const res = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/folders',
      headers: { ...t.headers, 'content-type': 'text/plain' },
      payload: JSON.stringify({ name: 'Plain' }),
    });
    assertError(res, 415, 'unsupported_media_type');
  });

  it('text downloads say their charset', async () => {
    const t = await createTenant(ctx());
    const id = await uploadOk(ctx(), t.headers, { filename: 'café.md', content: Buffer.from('# Crème brûlée\n') });
    const res = await ctx().app.inject({ method: 'GET', url: `/api/v1/documents/${id}/download`, headers: t.headers });
    assert.equal(res.headers['content-type'], 'text/markdown; charset=utf-8');
    assert.equal(res.body, '# Crème brûlée\n');
  });

  it('an upload named with 300 characters keeps 255 and its extension', async () => {
    const t = await createTenant(ctx());
    const id = await uploadOk(ctx(), t.headers, { filename: `${'n'.repeat(296)}.txt` });
    const doc = (await ctx().app.inject({ method: 'GET', url: `/api/v1/documents/${id}`, headers: t.headers })).json();
    assert.equal(doc.filename.length, 255);
    assert.ok(doc.filename.endsWith('.txt'));
  });
});
