import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seal, sealFor, unseal } from '../../src/http/idempotency-sealing.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant } from '../support/fixtures.ts';

describe('idempotency sealing', () => {
  it('opens only with the secret of the same tenant and key, and detects tampering', () => {
    const a = sealFor('tenant-1', 'key-1');
    const sealed = seal(a.secret, 'the answer');
    assert.equal(unseal(a.secret, sealed), 'the answer');
    assert.throws(() => unseal(sealFor('tenant-2', 'key-1').secret, sealed));
    assert.throws(() => unseal(sealFor('tenant-1', 'key-2').secret, sealed));
    const tampered = `${sealed.slice(0, -4)}AAAA`;
    assert.throws(() => unseal(a.secret, tampered));
    assert.notEqual(a.lookup, sealFor('tenant-2', 'key-1').lookup);
  });
});

describeEachDialect('stored idempotent answers keep secrets sealed', (ctx) => {
  it('replays a new API key to the same Idempotency-Key, while the database holds neither the key nor the secret in clear', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const idempotencyKey = `create-key-${Date.now()}`;
    const request = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: { ...tenant.headers, 'idempotency-key': idempotencyKey },
        payload: { name: 'deploy', environment: 'live' },
      });
    const first = await request();
    assert.equal(first.statusCode, 201, first.body);
    const secret: string = first.json().key;
    assert.match(secret, /^ak_live_/);
    const again = await request();
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().key, secret);

    const rows = await t.container.database.db
      .selectFrom('idempotency_records')
      .selectAll()
      .where('scope', '=', tenant.tenantId)
      .execute();
    assert.equal(rows.length, 1);
    const stored = JSON.stringify(rows[0]);
    assert.ok(!stored.includes(secret), 'the API key secret is not stored in clear');
    assert.ok(!stored.includes(idempotencyKey), 'the Idempotency-Key is not stored in clear');
  });
});
