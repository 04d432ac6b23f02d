import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../../support/app.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { workflowApi } from './helpers.ts';

// What a visual editor needs of the definitions (docs/api-decisions.md §10 "Positions" and
// "The definition an execution ran"): node positions kept with the definition, and an execution
// answering the definition of the version it ran.

const NODES = [
  { id: 'start', type: 'set_variable', config: { name: 'n', value: 1 }, position: { x: 40, y: 60.5 } },
  { id: 'done', type: 'end', depends_on: ['start'], position: { x: 320, y: -20 } },
];

describeEachDialect('workflows: positions and the definition an execution ran', (ctx) => {
  let tenant: TestTenant;
  const api = workflowApi(
    () => ctx(),
    () => tenant.headers,
  );

  before(async () => {
    tenant = await createTenant(ctx(), { tier: 'team' });
  });

  it('keeps node positions through create, get, update and the versions; a move alone is a new version', async () => {
    const id = await api.create({ name: 'Laid out', nodes: NODES });
    const got = (await api.call('GET', `/dag/workflows/${id}`)).json();
    assert.deepEqual(
      got.nodes.map((n: { position?: unknown }) => n.position),
      NODES.map((n) => n.position),
    );
    assert.equal(got.version, 1);

    const moved = NODES.map((n) => (n.id === 'done' ? { ...n, position: { x: 500, y: 10 } } : n));
    const put = await api.call('PUT', `/dag/workflows/${id}`, { nodes: moved });
    assert.equal(put.statusCode, 200, put.body);
    const after = (await api.call('GET', `/dag/workflows/${id}`)).json();
    assert.deepEqual(after.nodes[1].position, { x: 500, y: 10 });
    assert.equal(after.version, 2, 'the layout is part of the definition, so moving a step makes a version');
    // The same layout again is not a change.
    await api.call('PUT', `/dag/workflows/${id}`, { nodes: moved });
    assert.equal((await api.call('GET', `/dag/workflows/${id}`)).json().version, 2);

    const valid = (await api.call('POST', '/dag/workflows/validate', { nodes: moved })).json();
    assert.equal(valid.valid, true, JSON.stringify(valid));
  });

  it('refuses a position that is not two finite numbers in range', async () => {
    for (const position of [{ x: 1 }, { x: 1, y: 'a' }, { x: 1, y: 2, z: 3 }, { x: 2e6, y: 0 }]) {
      const res = await api.call('POST', '/dag/workflows', {
        name: 'Bad',
        status: 'draft',
        nodes: [{ id: 'a', type: 'end', position }],
      });
      assertError(res, 400, 'validation_error');
    }
  });

  it("answers an execution's definition as the version it ran, not the workflow as edited since", async () => {
    const id = await api.create({ name: 'Snapshot', nodes: NODES }, true);
    const executionId = await api.run(id);
    const first = (await api.call('GET', `/dag/executions/${executionId}`)).json();
    assert.equal(first.workflow_version, 1);
    assert.deepEqual(first.definition.nodes, NODES);
    assert.deepEqual(first.definition.trigger, { type: 'manual' });
    assert.deepEqual(first.definition.error_handling, { on_failure: 'fail' });

    // The workflow is edited: a step renamed, another added, the layout changed.
    const edited = [
      { ...NODES[0], id: 'begin', position: { x: 0, y: 0 } },
      { id: 'notify', type: 'end', depends_on: ['begin'] },
    ];
    assert.equal((await api.call('PUT', `/dag/workflows/${id}`, { nodes: edited })).statusCode, 200);
    const again = (await api.call('GET', `/dag/executions/${executionId}`)).json();
    assert.equal(again.workflow_version, 1);
    assert.deepEqual(again.definition.nodes, NODES, 'the graph of the old run stays the one it ran');

    // Nobody else reads it: another member gets 404, another tenant 404.
    const member = await loginAs(ctx(), tenant, 'member');
    assertError(
      await api.call('GET', `/dag/executions/${executionId}`, undefined, member.headers),
      404,
      'execution_not_found',
    );
    const other = await createTenant(ctx(), { tier: 'team' });
    assertError(
      await api.call('GET', `/dag/executions/${executionId}`, undefined, other.headers),
      404,
      'execution_not_found',
    );
  });
});
