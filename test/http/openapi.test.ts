import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { startTestApp, type TestApp } from '../support/app.ts';

describe('OpenAPI document', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(() => t.close());

  it('is served at /api/v1/openapi.json and validates as OpenAPI 3.1', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/api/v1/admin/tenants'], 'admin tenants documented');
    const result = await validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result, null, 2).slice(0, 2000));
  });

  it('gives every operation a summary, a description and at least one tag', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json() as {
      paths: Record<string, Record<string, { summary?: unknown; description?: unknown; tags?: unknown }>>;
    };
    const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => methods.has(method))
        .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
    );
    assert.ok(operations.length > 0, 'the document lists operations');
    const missing = operations
      .filter(({ op }) => typeof op.summary !== 'string' || op.summary.trim() === '')
      .map((o) => o.name);
    assert.deepEqual(missing, [], 'operations without a summary');
    const undescribed = operations
      .filter(({ op }) => typeof op.description !== 'string' || op.description.trim() === '')
      .map((o) => o.name);
    assert.deepEqual(undescribed, [], 'operations without a description');
    const untagged = operations.filter(({ op }) => !Array.isArray(op.tags) || op.tags.length === 0).map((o) => o.name);
    assert.deepEqual(untagged, [], 'operations without a tag');
  });

  it('serves the interactive reference at /docs from local files', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger/i);
    // Every script and stylesheet is served by this service, never from a CDN.
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length > 0);
    for (const asset of assets) {
      assert.doesNotMatch(asset, /^(https?:)?\/\//, asset);
      const res = await t.app.inject({ method: 'GET', url: new URL(asset, 'http://x/docs/').pathname });
      assert.equal(res.statusCode, 200, asset);
    }
  });
});
