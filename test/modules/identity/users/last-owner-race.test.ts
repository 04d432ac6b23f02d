import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../../../support/app.ts';
import { createTenant, loginAs } from '../../../support/fixtures.ts';

describeEachDialect('the last active owner under concurrent changes', (ctx) => {
  it('two owners demoting each other at once: exactly one succeeds, one owner remains', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'enterprise' });
    const first = await loginAs(t, tenant, 'owner');
    const second = await loginAs(t, tenant, 'owner', { email: `second-${tenant.subdomain}@example.com` });
    const [a, b] = await Promise.all([
      t.app.inject({
        method: 'PATCH',
        url: `/api/v1/users/${second.userId}`,
        headers: first.headers,
        payload: { role: 'admin' },
      }),
      t.app.inject({
        method: 'PATCH',
        url: `/api/v1/users/${first.userId}`,
        headers: second.headers,
        payload: { role: 'admin' },
      }),
    ]);
    const statuses = [a.statusCode, b.statusCode].sort();
    // The loser is refused either for losing its owner role first (403) or as the last owner (409).
    assert.equal(statuses[0], 200, `${a.body} ${b.body}`);
    assert.ok(statuses[1] === 403 || statuses[1] === 409, `${a.body} ${b.body}`);
    const owners = await t.container.database.db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', tenant.tenantId)
      .where('role', '=', 'owner')
      .where('status', '=', 'active')
      .execute();
    assert.equal(owners.length, 1);
  });
});
