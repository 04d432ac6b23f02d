import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../../src/lib/errors.ts';
import { canAssignRole, canCreate, canManageUsers, canManageWorkspace } from '../../../../src/domain/roles.ts';
import { hasFeature, requireFeature } from '../../../../src/domain/tier-gate.ts';
import type { Tier } from '../../../../src/domain/tiers.ts';

const withTier = (tier: Tier) => ({ tenant: { tier } }) as Parameters<typeof requireFeature>[0];

describe('tier gate', () => {
  it('answers 403 tier_limit_exceeded with current and required tier', () => {
    assert.throws(
      () => requireFeature(withTier('pro'), 'workflows'),
      (e: unknown) =>
        e instanceof AppError &&
        e.status === 403 &&
        e.error === 'tier_limit_exceeded' &&
        e.details?.['current_tier'] === 'pro' &&
        e.details?.['required_tier'] === 'team',
    );
    assert.throws(
      () => requireFeature(withTier('starter'), 'enhancedSearch'),
      (e: unknown) => e instanceof AppError && e.details?.['required_tier'] === 'pro',
    );
    assert.doesNotThrow(() => requireFeature(withTier('team'), 'importProjects'));
    assert.equal(hasFeature(withTier('free'), 'workflows'), false);
    assert.equal(hasFeature(withTier('enterprise'), 'workflows'), true);
  });
});

describe('roles', () => {
  const key = { via: 'api_key', role: 'admin', userId: null } as const;
  const user = (role: 'owner' | 'admin' | 'member' | 'viewer', userId = 'u1') =>
    ({ via: 'user_token', role, userId }) as const;
  it('encodes who manages what', () => {
    assert.equal(canManageUsers(key), true);
    assert.equal(canManageUsers(user('admin')), true);
    assert.equal(canManageUsers(user('member')), false);
    assert.equal(canCreate(user('viewer')), false);
    assert.equal(canCreate(user('member')), true);
    assert.equal(canAssignRole(user('admin'), 'owner'), false);
    assert.equal(canAssignRole(key, 'owner'), false);
    assert.equal(canAssignRole(user('owner'), 'owner'), true);
    assert.equal(canManageWorkspace(user('member', 'u1'), { createdBy: 'u1' }), true);
    assert.equal(canManageWorkspace(user('member', 'u2'), { createdBy: 'u1' }), false);
    assert.equal(canManageWorkspace(user('viewer', 'u1'), { createdBy: 'u1' }), false);
  });
});
