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
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, payload?: unknown) =>
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
      label: string;
      group: string;
      fields: Record<string, unknown>[];
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
      label: 'Condition',
      group: 'logic',
      fields: [{ key: 'expression', type: 'string', format: 'cel', required: true, label: 'Condition (CEL)' }],
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

  it("types each node type's fields for a form: type, format, required, enum, default, consistent with validation", async () => {
    const types = (await call('GET', '/dag/node-types', tenant.headers)).json().node_types as {
      type: string;
      group: string;
      fields: { key: string; type: string; format?: string; required: boolean; enum?: string[]; default?: unknown }[];
      required: string[];
      cel: string[];
      jsonata: string[];
    }[];
    for (const t of types) {
      assert.ok(['logic', 'data', 'ai', 'human', 'out'].includes(t.group), t.type);
      const keys = t.fields.map((f) => f.key);
      assert.equal(new Set(keys).size, keys.length, `${t.type}: each key once`);
      // What validation requires and parses is exactly what the form marks.
      assert.deepEqual(
        t.fields.filter((f) => f.required).map((f) => f.key),
        t.required,
        t.type,
      );
      assert.deepEqual(
        t.fields.filter((f) => f.format === 'cel').map((f) => f.key),
        t.cel,
        t.type,
      );
      assert.deepEqual(
        t.fields.filter((f) => f.format === 'jsonata').map((f) => f.key),
        t.jsonata,
        t.type,
      );
      for (const f of t.fields) if (f.enum && f.default !== undefined) assert.ok(f.enum.includes(f.default as string));
    }
    const approval = types.find((t) => t.type === 'human_approval')!;
    const field = (key: string) => approval.fields.find((f) => f.key === key);
    assert.deepEqual(field('assignee_type'), {
      key: 'assignee_type',
      type: 'string',
      required: true,
      enum: ['role', 'user', 'workspace'],
      label: 'Assigned to a',
    });
    assert.deepEqual(field('on_timeout')?.enum, ['fail', 'approve', 'reject']);
    assert.equal(field('on_timeout')?.default, 'fail');
    assert.equal(field('data')?.type, 'object');
    assert.deepEqual(
      [field('editable_fields')?.type, (field('editable_fields') as { items?: string }).items],
      ['array', 'string'],
    );
    const http = types.find((t) => t.type === 'http_request')!;
    assert.deepEqual(http.fields.find((f) => f.key === 'method')?.enum, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
    assert.equal(http.fields.find((f) => f.key === 'url')?.format, 'uri');
  });

  it('answers each error and warning as an issue with its code, node and field', async () => {
    const answer = (await call('POST', '/dag/workflows/validate', tenant.headers, BROKEN)).json();
    type Issue = { severity: string; code: string; message: string; node_id?: string; field?: string };
    const issues = answer.issues as Issue[];
    assert.deepEqual(
      issues.filter((i) => i.severity === 'error').map((i) => i.message),
      answer.errors,
      'the messages are the errors, in order',
    );
    assert.deepEqual(
      issues.filter((i) => i.severity === 'warning').map((i) => i.message),
      answer.warnings,
    );
    const strip = ({ message: _, ...rest }: Issue) => rest;
    assert.deepEqual(
      issues.map(strip).filter((i) => i.code !== 'circular_dependency' && i.code !== 'invalid_cron'),
      [
        { severity: 'error', code: 'missing_config', node_id: 'a', field: 'config.expression' },
        { severity: 'error', code: 'unknown_node_type', node_id: 'c', field: 'type' },
        { severity: 'warning', code: 'no_timeout', node_id: 'd', field: 'timeout_seconds' },
      ],
    );
    const cycle = issues.find((i) => i.code === 'circular_dependency')!;
    assert.ok(['a', 'b'].includes(cycle.node_id!) && cycle.field === 'depends_on', JSON.stringify(cycle));
    assert.deepEqual(strip(issues.find((i) => i.code === 'invalid_cron')!), {
      severity: 'error',
      code: 'invalid_cron',
      field: 'trigger.conditions.cron_expression',
    });

    const more = (
      await call('POST', '/dag/workflows/validate', tenant.headers, {
        nodes: [
          { id: 'x', type: 'transform', config: { expression: '$$$(' }, depends_on: ['ghost'], run_if: '((' },
          { id: 'x', type: 'end' },
        ],
      })
    ).json().issues as Issue[];
    assert.deepEqual(more.map(strip), [
      { severity: 'error', code: 'duplicate_node_id', node_id: 'x', field: 'id' },
      { severity: 'error', code: 'unknown_dependency', node_id: 'x', field: 'depends_on' },
      { severity: 'error', code: 'invalid_expression', node_id: 'x', field: 'run_if' },
      { severity: 'error', code: 'invalid_expression', node_id: 'x', field: 'config.expression' },
    ]);

    // A refused activation carries the same issues in its details.
    const draft = await call('POST', '/dag/workflows', tenant.headers, { name: 'Broken', status: 'draft', ...BROKEN });
    const refused = await call('PUT', `/dag/workflows/${draft.json().id}`, tenant.headers, { status: 'active' });
    assertError(refused, 400, 'invalid_workflow');
    assert.deepEqual(refused.json().details.issues, issues);
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
    assert.deepEqual(valid.json(), { valid: true, errors: [], warnings: [], issues: [] });
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
