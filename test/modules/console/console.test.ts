import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { describeEachDialect } from '../../support/app.ts';

const SCRIPTS = readdirSync(new URL('../../../src/modules/console/public/', import.meta.url)).filter((name) =>
  name.endsWith('.ts'),
);

describeEachDialect('web console', (ctx) => {
  it('/ sends people to the console, which is served without credentials', async () => {
    const root = await ctx().app.inject({ url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/console/');
    const page = await ctx().app.inject({ url: '/console/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<script type="module" src="\/console\/app.ts">/);
    assert.match(page.body, /<html lang="en">/);
    assert.equal((await ctx().app.inject({ url: '/console/console.css' })).statusCode, 200);
    assert.equal((await ctx().app.inject({ url: '/console/../config/config.ts' })).statusCode, 404);
    assert.equal((await ctx().app.inject({ url: '/console/secrets.ts' })).statusCode, 404);
  });

  it('serves its TypeScript as JavaScript modules a browser can parse, small enough to load fast', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'console-'));
    let gzipped = 0;
    for (const name of SCRIPTS) {
      const res = await ctx().app.inject({ url: `/console/${name}` });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/javascript/);
      assert.doesNotMatch(res.body, /import type/);
      const file = join(dir, name.replace(/\.ts$/, '.mjs'));
      await writeFile(file, res.body);
      execFileSync(process.execPath, ['--check', file]);
      gzipped += gzipSync(res.body).length;
    }
    // The budget for the shell is 200 KB of compressed JavaScript.
    assert.ok(gzipped < 200 * 1024, `${gzipped} bytes`);
  });

  it('compresses what the browser accepts and revalidates by ETag', async () => {
    const plain = await ctx().app.inject({ url: '/console/api.ts' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'accept-encoding');
    const etag = String(plain.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);

    const br = await ctx().app.inject({ url: '/console/api.ts', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body);
    assert.ok(br.rawPayload.length < plain.rawPayload.length / 2);

    const gzip = await ctx().app.inject({ url: '/console/api.ts', headers: { 'accept-encoding': 'gzip, br;q=0' } });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzip.rawPayload).toString(), plain.body);
    assert.equal(gzip.headers.etag, etag);

    const identity = await ctx().app.inject({ url: '/console/api.ts', headers: { 'accept-encoding': 'identity' } });
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.equal(identity.body, plain.body);

    const unchanged = await ctx().app.inject({ url: '/console/api.ts', headers: { 'if-none-match': etag } });
    assert.equal(unchanged.statusCode, 304);
    assert.equal(unchanged.rawPayload.length, 0);
    const other = await ctx().app.inject({ url: '/console/app.ts', headers: { 'if-none-match': etag } });
    assert.equal(other.statusCode, 200);
    assert.notEqual(other.headers.etag, etag);
  });

  it('is not part of the OpenAPI document', async () => {
    const doc = (await ctx().app.inject({ url: '/api/v1/openapi.json' })).json();
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/console') || p === '/'));
  });
});
