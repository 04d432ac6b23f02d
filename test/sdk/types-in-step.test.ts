import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, it } from 'node:test';
import { renderOperationTypes } from '../../packages/sdk/scripts/openapi-to-ts.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

// The SDK's types are generated from the OpenAPI document: when a route, a schema or an
// operationId changes, this fails until `npm run sdk:generate` is run and the result committed.
let t: TestApp;
before(async () => {
  t = await startTestApp('sqlite');
});
after(() => t.close());

it("the committed SDK types equal those generated from the service's OpenAPI document", async () => {
  const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
  const committed = await readFile(new URL('../../packages/sdk/src/generated/api-types.ts', import.meta.url), 'utf8');
  assert.ok(
    committed === renderOperationTypes(doc),
    'packages/sdk/src/generated/api-types.ts is out of step with the OpenAPI document: run `node packages/sdk/scripts/generate-types.ts`',
  );
});

it('every operation of the document is in the SDK, with its method and path', async () => {
  const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
  const { OPERATIONS } = await import('../../packages/sdk/src/generated/api-types.ts');
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op.operationId) continue;
      const known = (OPERATIONS as Record<string, { method: string; path: string }>)[op.operationId];
      assert.deepEqual(
        known && { method: known.method, path: known.path },
        { method: method.toUpperCase(), path },
        op.operationId,
      );
    }
  }
});
