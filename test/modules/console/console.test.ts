import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { buildConsoleIfStale } from '../../../scripts/build-console.ts';
import { describeEachDialect } from '../../support/app.ts';

describeEachDialect('web console', (ctx) => {
  before(async () => {
    await buildConsoleIfStale();
  });

  /** The page's module and stylesheet, as it names them. */
  const assets = async () => {
    const page = await ctx().app.inject({ url: '/console/' });
    const main = /<script type="module" src="\/console\/(main-[\w]+\.js)">/.exec(page.body)?.[1];
    const style = /<link rel="stylesheet" href="\/console\/(style-[\w]+\.css)">/.exec(page.body)?.[1];
    assert.ok(main && style, page.body);
    return { main, style };
  };

  it('/ sends people to the console, which is served without credentials', async () => {
    const root = await ctx().app.inject({ url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/console/');
    assert.equal((await ctx().app.inject({ url: '/console' })).headers.location, '/console/');
    const page = await ctx().app.inject({ url: '/console/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<html lang="en">/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    const { main, style } = await assets();
    for (const name of [main, style, 'pdf.worker.min.mjs'])
      assert.equal((await ctx().app.inject({ url: `/console/${name}` })).statusCode, 200, name);
    assert.equal((await ctx().app.inject({ url: '/console/../config/config.ts' })).statusCode, 404);
    assert.equal((await ctx().app.inject({ url: '/console/app.ts' })).statusCode, 404, 'the classic console is gone');
    assert.equal((await ctx().app.inject({ url: '/console/manifest.json' })).statusCode, 404);
  });

  it('answers the old /console/next/ address with a redirect to /console/ (bookmarks keep working)', async () => {
    for (const url of [
      '/console/next',
      '/console/next/',
      '/console/next/index.html',
      '/console/next/main-ABCDEFGH.js',
    ]) {
      const res = await ctx().app.inject({ url });
      assert.equal(res.statusCode, 302, url);
      assert.equal(res.headers.location, '/console/', url);
    }
  });

  it('compresses what the browser accepts, revalidates by ETag, and caches hashed files for a year', async () => {
    const { main } = await assets();
    const url = `/console/${main}`;
    const plain = await ctx().app.inject({ url });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'accept-encoding');
    assert.match(String(plain.headers['content-type']), /^text\/javascript/);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    const etag = String(plain.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);

    const br = await ctx().app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body);
    assert.ok(br.rawPayload.length < plain.rawPayload.length / 2);

    const gzip = await ctx().app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzip.rawPayload).toString(), plain.body);
    assert.equal(gzip.headers.etag, etag);

    const unchanged = await ctx().app.inject({ url, headers: { 'if-none-match': etag } });
    assert.equal(unchanged.statusCode, 304);
    assert.equal(unchanged.rawPayload.length, 0);
    const other = await ctx().app.inject({ url: '/console/', headers: { 'if-none-match': etag } });
    assert.equal(other.statusCode, 200);
  });

  it('is not part of the OpenAPI document', async () => {
    const doc = (await ctx().app.inject({ url: '/api/v1/openapi.json' })).json();
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/console') || p === '/'));
  });
});
