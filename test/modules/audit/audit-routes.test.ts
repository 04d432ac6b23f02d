import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NOT_AUDITED, ROUTE_ACTIONS, ROUTES_DECLARING_AUDIT } from '../../../src/modules/audit/audit-actions.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/*
 * Every state-changing route is audited (by `config.audit` or `ROUTE_ACTIONS`) or named in
 * `NOT_AUDITED` with its reason, so a new route cannot be forgotten; a route is declared in one place only.
 */
describe('audit: every state-changing route declares what it records', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(() => t.close());

  it('audited or named as not audited, once', async () => {
    const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    const served: string[] = [];
    for (const [path, ops] of Object.entries<Json>(doc.paths)) {
      for (const method of Object.keys(ops)) {
        if (['post', 'put', 'patch', 'delete'].includes(method))
          served.push(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`);
      }
    }
    const declared = (key: string) =>
      Number(key in ROUTE_ACTIONS) + Number(ROUTES_DECLARING_AUDIT.has(key)) + Number(key in NOT_AUDITED);
    assert.deepEqual(
      served.filter((k) => declared(k) === 0),
      [],
      'routes that say nothing about the audit trail',
    );
    assert.deepEqual(
      served.filter((k) => declared(k) > 1),
      [],
      'routes declared in more than one place',
    );
    const stale = [...Object.keys(ROUTE_ACTIONS), ...Object.keys(NOT_AUDITED)].filter(
      (k) => !k.startsWith('GET ') && !served.includes(k),
    );
    assert.deepEqual(stale, [], 'declarations of routes that do not exist');
  });
});
