import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { NODE_TYPES } from '../../../src/modules/workflows/engine/node-types.ts';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';

// Additions for editors (docs/api-decisions.md §10 "Node types and drafts"): GET /dag/node-types and
// POST /dag/workflows/validate (a definition in the body, not saved).

const BROKEN = {
  nodes: [
    { id: 'a', type: 'condition', config: {}, depends_on: ['b'] },
    { id: 'b', type: 'transform', config: { expression: '1' }, depends_on: ['a'] },
    { id: 'c', type: 'teleport' },
    { id: 'd', type: 'http_request', config: { method: 'GET', url: 'https://example.com' } },
  ],
  trigger: { type: 'schedule', conditions: { cron_expression: 'not a cron' } },
};

describeEachDialect('workflows: node types and drafts', (ctx) => {
  let tenant: TestTenant;
  const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: unknown) =>
    ctx().app.inject({
      method,
      url: `/api/v1${url}`,
      headers,
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });

  before(async () => {
    tenant = await createTenant(ctx(), { tier: 'team' });
  });

  it('lists the node types the engine knows, each with what validation checks', async () => {
    const res = await call('GET', '/dag/node-types', tenant.headers);
    assert.equal(res.statusCode, 200, res.body);
    const types = res.json().node_types as {
      type: string;
      required: string[];
      cel: string[];
      jsonata: string[];
      waits: boolean;
      default_trigger_rule: string;
    }[];
    assert.deepEqual(types.map((t) => t.type).sort(), Object.keys(NODE_TYPES).sort(), 'every type, none invented');
    const byType = new Map(types.map((t) => [t.type, t]));
    assert.deepEqual(byType.get('condition'), {
      type: 'condition',
      required: ['expression'],
      cel: ['expression'],
      jsonata: [],
      waits: false,
      default_trigger_rule: 'all_success',
    });
    assert.equal(byType.get('join')?.default_trigger_rule, 'none_failed_min_one_success');
    assert.equal(byType.get('human_approval')?.waits, true);
    assert.deepEqual(byType.get('transform')?.jsonata, ['expression']);
  });

  it('validates a definition sent in the body as the saved one would be, storing nothing', async () => {
    const before = (await call('GET', '/dag/workflows', tenant.headers)).json().total;
    const res = await call('POST', '/dag/workflows/validate', tenant.headers, BROKEN);
    assert.equal(res.statusCode, 200, res.body);
    const answer = res.json();
    assert.equal(answer.valid, false);
    assert.ok(answer.errors.includes('Node "a" (condition) is missing config "expression"'), answer.errors);
    assert.ok(
      answer.errors.some((e: string) => /Circular dependency: (a -> b -> a|b -> a -> b)/.test(e)),
      answer.errors,
    );
    assert.ok(
      answer.errors.some((e: string) => e.includes('"teleport"')),
      answer.errors,
    );
    assert.ok(
      answer.errors.some((e: string) => /cron/i.test(e)),
      answer.errors,
    );
    assert.ok(
      answer.warnings.some((w: string) => w.includes('"d"')),
      answer.warnings,
    );

    // The same errors and warnings the saved draft gets from POST /dag/workflows/{id}/validate.
    const saved = await call('POST', '/dag/workflows', tenant.headers, { name: 'Draft', status: 'draft', ...BROKEN });
    assert.equal(saved.statusCode, 201, saved.body);
    const ofSaved = (await call('POST', `/dag/workflows/${saved.json().id}/validate`, tenant.headers)).json();
    assert.deepEqual(answer, ofSaved);
    assert.equal(
      (await call('GET', '/dag/workflows', tenant.headers)).json().total,
      before + 1,
      'only the explicit create stored a workflow',
    );

    const valid = await call('POST', '/dag/workflows/validate', tenant.headers, {
      nodes: [{ id: 'a', type: 'condition', config: { expression: 'true' } }],
    });
    assert.deepEqual(valid.json(), { valid: true, errors: [], warnings: [] });
    const empty = (await call('POST', '/dag/workflows/validate', tenant.headers, { nodes: [] })).json();
    assert.deepEqual(empty.errors, ['The workflow has no nodes']);
  });

  it('refuses a body that is not a definition, and callers the workflows are not for', async () => {
    assertError(await call('POST', '/dag/workflows/validate', tenant.headers, {}), 400, 'validation_error');
    assertError(
      await call('POST', '/dag/workflows/validate', tenant.headers, { nodes: [{ type: 'end' }] }),
      400,
      'validation_error',
    );
    assertError(
      await call('POST', '/dag/workflows/validate', tenant.headers, { nodes: [], name: 'not part of a definition' }),
      400,
      'validation_error',
    );
    assertError(await call('GET', '/dag/node-types', {}), 401, 'unauthorized');
    assertError(await call('POST', '/dag/workflows/validate', {}, { nodes: [] }), 401, 'unauthorized');

    const viewer = await loginAs(ctx(), tenant, 'viewer');
    assert.equal(
      (await call('GET', '/dag/node-types', viewer.headers)).statusCode,
      200,
      'a viewer reads the catalogue',
    );
    assertError(await call('POST', '/dag/workflows/validate', viewer.headers, { nodes: [] }), 403, 'forbidden');
    const member = await loginAs(ctx(), tenant, 'member');
    assert.equal((await call('POST', '/dag/workflows/validate', member.headers, { nodes: [] })).statusCode, 200);

    const pro = await createTenant(ctx(), { tier: 'pro' });
    assertError(await call('GET', '/dag/node-types', pro.headers), 403, 'tier_limit_exceeded');
    assertError(await call('POST', '/dag/workflows/validate', pro.headers, { nodes: [] }), 403, 'tier_limit_exceeded');
  });

  it("never reaches another tenant's workflows: a draft naming one's ids is checked on its own", async () => {
    const other = await createTenant(ctx(), { tier: 'team' });
    const theirs = await call('POST', '/dag/workflows', other.headers, {
      name: 'Theirs',
      nodes: [{ id: 'secret_step', type: 'end' }],
    });
    assert.equal(theirs.statusCode, 201, theirs.body);
    // Depending on a step of theirs (or naming their workflow's id) resolves nothing of theirs.
    const answer = (
      await call('POST', '/dag/workflows/validate', tenant.headers, {
        nodes: [{ id: theirs.json().id, type: 'end', depends_on: ['secret_step'] }],
      })
    ).json();
    assert.deepEqual(answer.errors, [`Node "${theirs.json().id}" depends on unknown node "secret_step"`]);
    assert.equal(
      (await call('GET', '/dag/workflows', tenant.headers))
        .json()
        .data.some((w: { name: string }) => w.name === 'Theirs'),
      false,
    );
  });
});
