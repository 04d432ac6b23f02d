import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, listen, NO_CHROMIUM } from '../modules/console/browser.ts';
import { uploadOk } from '../modules/documents/helpers.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant, type TestTenant } from '../support/fixtures.ts';

// A page on a second origin (localhost vs the API's 127.0.0.1), in a real Chromium: what a browser
// lets a script send and read across origins is the browser's decision, not a test's assumption.

const CONTENT = 'Range requests from a browser page: the first ten bytes, then the rest.\n';

describeEachDialect('CORS from a page on another origin, in Chromium', (ctx) => {
  let browser: Browser;
  let page: Page;
  let api: string;
  let pageOrigin: string;
  let site: http.Server;
  let tenant: TestTenant;
  let documentId: string;

  before(async () => {
    if (NO_CHROMIUM) return;
    api = await listen(ctx());
    site = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>agent page</title>'),
    );
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
    tenant = await createTenant(ctx());
    documentId = await uploadOk(ctx(), tenant.headers, { filename: 'ranges.txt', content: Buffer.from(CONTENT) });
    const patched = await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${tenant.tenantId}`,
      payload: { cors_origins: [pageOrigin] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
  });
  after(async () => {
    await browser?.close();
    site?.close();
  });

  it('uses the MCP endpoint with the transport’s headers', { skip: NO_CHROMIUM }, async () => {
    const answer = await page.evaluate(
      async ({ api, key }) => {
        const rpc = (id: number, method: string, params: unknown) =>
          fetch(`${api}/mcp`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-06-18',
              'x-api-key': key,
            },
            body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
          });
        const init = await rpc(1, 'initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'page', version: '1' },
        });
        const tools = await rpc(2, 'tools/list', {});
        const body = (await tools.json()) as { result: { tools: { name: string }[] } };
        return {
          init: init.status,
          status: tools.status,
          names: body.result.tools.map((t) => t.name),
          requestId: tools.headers.get('x-request-id'),
        };
      },
      { api, key: tenant.apiKey },
    );
    assert.equal(answer.init, 200);
    assert.equal(answer.status, 200);
    assert.ok(answer.names.includes('list_documents'));
    assert.ok(answer.requestId, 'X-Request-Id is readable');
  });

  it('downloads a byte range and revalidates it, reading the range and validator headers', {
    skip: NO_CHROMIUM,
  }, async () => {
    const answer = await page.evaluate(
      async ({ api, key, id }) => {
        const url = `${api}/api/v1/documents/${id}/download`;
        const part = await fetch(url, { headers: { 'x-api-key': key, range: 'bytes=0-9' }, cache: 'no-store' });
        const etag = part.headers.get('etag');
        const rest = await fetch(url, {
          headers: { 'x-api-key': key, range: 'bytes=10-', 'if-range': etag ?? '' },
          cache: 'no-store',
        });
        const same = await fetch(url, {
          headers: { 'x-api-key': key, 'if-none-match': etag ?? '' },
          cache: 'no-store',
        });
        const doc = await fetch(`${api}/api/v1/documents/${id}`, { headers: { 'x-api-key': key }, cache: 'no-store' });
        const docTag = doc.headers.get('etag');
        const unchanged = await fetch(`${api}/api/v1/documents/${id}`, {
          headers: { 'x-api-key': key, 'if-none-match': docTag ?? '' },
          cache: 'no-store',
        });
        return {
          status: part.status,
          text: await part.text(),
          contentRange: part.headers.get('content-range'),
          acceptRanges: part.headers.get('accept-ranges'),
          etag,
          limit: part.headers.get('x-ratelimit-limit'),
          restStatus: rest.status,
          rest: await rest.text(),
          sameStatus: same.status,
          docTag,
          lastModified: doc.headers.get('last-modified'),
          unchangedStatus: unchanged.status,
        };
      },
      { api, key: tenant.apiKey, id: documentId },
    );
    assert.equal(answer.status, 206);
    assert.equal(answer.text, CONTENT.slice(0, 10));
    assert.equal(answer.contentRange, `bytes 0-9/${Buffer.byteLength(CONTENT)}`);
    assert.equal(answer.acceptRanges, 'bytes');
    assert.match(String(answer.etag), /^"[0-9a-f]{64}"$/);
    assert.ok(answer.limit, 'X-RateLimit-Limit is readable');
    assert.equal(answer.restStatus, 206);
    assert.equal(answer.rest, CONTENT.slice(10));
    assert.equal(answer.sameStatus, 304);
    assert.ok(answer.docTag);
    assert.ok(answer.lastModified);
    assert.equal(answer.unchangedStatus, 304);
  });

  it('is refused by the browser once the tenant no longer allows the page’s origin', {
    skip: NO_CHROMIUM,
  }, async () => {
    await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${tenant.tenantId}`,
      payload: { cors_origins: ['https://elsewhere.example.com'] },
    });
    ctx().container.guards.cors.invalidate();
    const outcome = await page.evaluate(
      async ({ api, key }) => {
        try {
          await fetch(`${api}/mcp`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-06-18',
              'x-api-key': key,
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
          });
          return 'read';
        } catch (error) {
          return (error as Error).name;
        }
      },
      { api, key: tenant.apiKey },
    );
    assert.equal(outcome, 'TypeError', 'the browser keeps the answer from the page');
  });
});
