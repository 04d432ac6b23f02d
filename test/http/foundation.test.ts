import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../support/app.ts';
import { assertError, createTenant } from '../support/fixtures.ts';

describeEachDialect('HTTP foundation', (ctx) => {
  it('answers /healthz and /readyz', async () => {
    const health = await ctx().app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'ok' });
    const ready = await ctx().app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200, ready.body);
    assert.equal(ready.json().status, 'ok');
  });

  it('gives every response an X-Request-Id, echoing a valid incoming one', async () => {
    const fresh = await ctx().app.inject({ method: 'GET', url: '/healthz' });
    assert.match(String(fresh.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const echoed = await ctx().app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(echoed.headers['x-request-id'], 'abc-123');
    const unsafe = await ctx().app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\u0001' },
    });
    assert.notEqual(unsafe.headers['x-request-id'], 'bad id\u0001');
  });

  it('answers an unknown route with the contract error body', async () => {
    const res = await ctx().app.inject({ method: 'GET', url: '/api/v1/no-such-thing' });
    assertError(res, 404, 'not_found');
  });

  it('refuses missing and wrong credentials with 401', async () => {
    assertError(await ctx().app.inject({ method: 'GET', url: '/api/v1/admin/tenants' }), 401, 'unauthorized');
    const wrong = await ctx().app.inject({
      method: 'GET',
      url: '/api/v1/admin/tenants',
      headers: { authorization: 'Bearer nope' },
    });
    assertError(wrong, 401, 'unauthorized');
  });

  it('names the failing field of a validation error', async () => {
    const res = await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: { name: 'x', subdomain: 'Bad Sub' },
    });
    const body = assertError(res, 400, 'validation_error');
    const fields = body.details.errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes('subdomain'), JSON.stringify(body));
    assert.ok(fields.includes('owner'), JSON.stringify(body));
  });

  it('rejects unknown body fields, naming them', async () => {
    const res = await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: {
        name: 'x',
        subdomain: 'unknown-fields',
        owner: { email: 'a@b.co', password: 'longenough', name: 'A' },
        colour: 'red',
      },
    });
    const body = assertError(res, 400, 'validation_error');
    assert.deepEqual(body.details.errors, [{ field: 'colour', message: 'is not a known field' }]);
  });

  it('names the accepted values of an enumerated field and asks for at least one field of an empty patch', async () => {
    const res = await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: {
        name: 'x',
        subdomain: 'enum-message',
        tier: 'gold',
        owner: { email: 'a@b.co', password: 'longenough', name: 'A' },
      },
    });
    const body = assertError(res, 400, 'validation_error');
    assert.deepEqual(body.details.errors, [
      { field: 'tier', message: 'must be one of: free, starter, pro, team, enterprise' },
    ]);
    assert.match(body.message, /tier must be one of: free, starter, pro, team, enterprise/);
    const t = await createTenant(ctx());
    const empty = await ctx().admin({ method: 'PATCH', url: `/api/v1/admin/tenants/${t.tenantId}`, payload: {} });
    assert.deepEqual(assertError(empty, 400, 'validation_error').details.errors, [
      { field: 'body', message: 'must contain at least one field' },
    ]);
  });

  it('takes an empty body sent as application/json as no body: body-less endpoints work, updates still need one', async () => {
    const t = await createTenant(ctx());
    const json = { ...t.headers, 'content-type': 'application/json' };
    const created = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: t.headers,
      payload: { name: 'Empty body' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    const rotated = await ctx().app.inject({
      method: 'POST',
      url: `/api/v1/api-keys/${id}/rotate`,
      headers: json,
      body: '',
    });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const revoked = await ctx().app.inject({
      method: 'DELETE',
      url: `/api/v1/api-keys/${id}`,
      headers: json,
      body: '',
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    const ws = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/workspaces',
      headers: t.headers,
      payload: { name: 'Empty body' },
    });
    const update = await ctx().app.inject({
      method: 'PUT',
      url: `/api/v1/workspaces/${ws.json().id}`,
      headers: json,
      body: '',
    });
    assertError(update, 400, 'validation_error');
    const patch = await ctx().admin({
      method: 'PATCH',
      url: `/api/v1/admin/tenants/${t.tenantId}`,
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    assert.deepEqual(assertError(patch, 400, 'validation_error').details.errors, [
      { field: 'body', message: 'must be a JSON object' },
    ]);
  });

  it('does not coerce JSON body types', async () => {
    const res = await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      payload: { name: 123, subdomain: 'no-coerce', owner: { email: 'a@b.co', password: 'longenough', name: 'A' } },
    });
    const body = assertError(res, 400, 'validation_error');
    assert.equal(body.details.errors[0].field, 'name');
  });

  it('answers malformed JSON with 400 validation_error', async () => {
    const res = await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    assertError(res, 400, 'validation_error');
  });

  it('answers a wrong content type with 415', async () => {
    const res = await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      headers: { 'content-type': 'application/xml' },
      payload: '<tenant/>',
    });
    assertError(res, 415, 'unsupported_media_type');
  });

  it('answers an oversized JSON body with 413', async () => {
    const res = await ctx().admin({
      method: 'POST',
      url: '/api/v1/admin/tenants',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assertError(res, 413, 'payload_too_large');
  });

  it('answers internal errors without internals, and logs them', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    // Break the database under the service: the handler must answer a generic 500.
    const original = t.container.modules.use('tenants').get.bind(t.container.modules.use('tenants'));
    t.container.modules.use('tenants').get = async () => {
      throw new Error('SELECT secret FROM internals failed');
    };
    try {
      const res = await t.admin({ method: 'GET', url: `/api/v1/admin/tenants/${tenant.tenantId}` });
      const body = assertError(res, 500, 'internal_error');
      assert.doesNotMatch(res.body, /SELECT|secret|stack/i);
      assert.equal(body.details, undefined);
    } finally {
      t.container.modules.use('tenants').get = original;
    }
  });

  it('serves Prometheus metrics with request counts by route', async () => {
    await ctx().app.inject({ method: 'GET', url: '/healthz' });
    const res = await ctx().app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /http_requests_total\{method="GET",route="\/healthz",status_code="200"\} \d+/);
    assert.match(res.body, /http_request_duration_seconds_bucket/);
    assert.match(res.body, /# TYPE jobs gauge/);
  });
});
