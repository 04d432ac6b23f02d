import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { billingPeriod, fastPathBound } from '../../../src/modules/credits/credits.service.ts';
import { AppError } from '../../../src/lib/errors.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';
import { testSeam } from '../../support/test-seams.ts';

// `CreditsService.chargeAlone` (a priced search's charge): one statement on PostgreSQL while the
// month stays clear of the usage thresholds, the transactional `charge` otherwise; either way the
// balance is exact under concurrent charges, a charge that does not fit is refused with 402, and
// each threshold is told once.

describe('fastPathBound', () => {
  it('stops below the first usage threshold; unlimited tiers have none', () => {
    assert.equal(fastPathBound(100), 80_000);
    assert.equal(fastPathBound(1), 501, 'a 1-credit month: half a credit left is the 100 % mark');
    assert.equal(fastPathBound(null), null);
  });
});

async function seedUsage(t: TestApp, tenant: TestTenant, millicredits: number) {
  await t.container.database.db
    .insertInto('ai_credit_charges')
    .values({
      id: `crd_seed_${tenant.tenantId}`,
      tenant_id: tenant.tenantId,
      period: billingPeriod(Date.now()),
      millicredits,
      reason: 'chat_ask',
      reference: null,
      created_at: Date.now(),
    })
    .execute();
}

async function setup(t: TestApp, used: number) {
  const tenant = await createTenant(t, { tier: 'free', name: 'Counted' });
  const live = (await t.container.modules.use('tenantDirectory').findById(tenant.tenantId))!;
  await seedUsage(t, tenant, used);
  const credits = t.container.modules.use('credits');
  const told = async () =>
    (await testSeam(t.container, 'mailOutbox').listTo(t.container.database.db, tenant.tenantId, tenant.ownerEmail))
      .filter((m) => m.kind === 'usage_threshold')
      .map((m) => m.subject);
  return { tenant, live, credits, told };
}

describeEachDialect('credits: a charge on its own', (ctx) => {
  it('concurrent charges are all counted; crossing 80 % is told once', async () => {
    const t = ctx();
    const { live, credits, told } = await setup(t, 77_000);
    await Promise.all(Array.from({ length: 20 }, () => credits.chargeAlone(live, 'semantic_search')));
    const balance = await credits.balance(live);
    assert.equal(balance.used, 87);
    assert.equal(balance.remaining, 13);
    const charges = await t.container.database.db
      .selectFrom('ai_credit_charges')
      .select(['millicredits', 'reason'])
      .where('tenant_id', '=', live.id)
      .where('reason', '=', 'semantic_search')
      .execute();
    assert.equal(charges.length, 20);
    assert.ok(charges.every((c) => Number(c.millicredits) === 500));
    assert.equal((await told()).length, 1);
    assert.match((await told())[0]!, /80 %/);
  });

  it('concurrent charges never overspend: the ones that do not fit get 402, and 100 % is told once', async () => {
    const t = ctx();
    const { live, credits, told } = await setup(t, 98_000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => credits.chargeAlone(live, 'hybrid_search')),
    );
    const refused = outcomes.filter((o) => o.status === 'rejected');
    assert.equal(outcomes.length - refused.length, 4, 'two credits left pay for four half-credit searches');
    for (const r of refused) {
      const error = (r as PromiseRejectedResult).reason;
      assert.ok(error instanceof AppError);
      assert.equal(error.status, 402);
    }
    assert.deepEqual(await credits.balance(live).then((b) => [b.used, b.remaining]), [100, 0]);
    assert.equal((await told()).length, 1);
    assert.match((await told())[0]!, /has used all its AI credits/);
  });

  it('an unlimited tier is charged without a bound', async () => {
    const t = ctx();
    const tenant = await createTenant(t, { tier: 'enterprise', name: 'Big' });
    const live = (await t.container.modules.use('tenantDirectory').findById(tenant.tenantId))!;
    const credits = t.container.modules.use('credits');
    await Promise.all(Array.from({ length: 5 }, () => credits.chargeAlone(live, 'enhanced_search')));
    assert.deepEqual(await credits.balance(live).then((b) => [b.used, b.limit]), [5, null]);
  });
});
