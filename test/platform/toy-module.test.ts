import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Type } from 'typebox';
import { authOf } from '../../src/http/fastify-types.ts';
import { MODULES } from '../../src/modules.ts';
import { defineModule } from '../../src/platform/module.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant } from '../support/fixtures.ts';
import { waitFor } from '../jobs/helpers.ts';

// The toy module declares its job kind as every module does (in its `toy.jobs.ts`).
declare module '../../src/jobs/job-types.ts' {
  interface JobPayloads {
    'toy.announce': { tenantId: string; name: string };
  }
}

/**
 * A module is its folder and one line in the module list: this one has a route, a job and an
 * event, uses another module's published service, and is added to the list by the test alone.
 */
const published: string[] = [];

const toyModule = defineModule({
  name: 'toy',
  setup({ database, jobs, events, use }) {
    const tenants = use('tenants');
    return {
      routes(app) {
        app.post(
          '/toys',
          { schema: { body: Type.Object({ name: Type.String() }) }, config: { rateLimit: 'general' } },
          async (request, reply) => {
            const auth = authOf(request);
            const tenant = await tenants.get(auth.tenant.id);
            await database.db
              .transaction()
              .execute((trx) => jobs.enqueue(trx, 'toy.announce', { tenantId: tenant.id, name: request.body.name }));
            return reply.status(202).send({ tenant: tenant.subdomain });
          },
        );
      },
      // Subscribers see every event once its transaction committed.
      onEvent: async (event) => {
        if (event.name === 'document.uploaded' && event.data.document_id === 'toy') published.push(event.data.filename);
      },
      jobs: [
        {
          kind: 'toy.announce',
          handler: async (job) => {
            const { tenantId, name } = job.payload;
            const data = {
              document_id: 'toy',
              filename: name,
              folder_id: null,
              file_type: 'text/plain',
              file_size: 0,
              status: 'completed',
              ai_status: 'skipped',
            };
            await events.record(database.db, { tenantId, name: 'document.uploaded', data });
          },
        },
      ],
    };
  },
});

describeEachDialect(
  'a module added by one line',
  (ctx) => {
    it('serves its route, runs its job and records its event', async () => {
      const t = ctx();
      const tenant = await createTenant(t);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/toys',
        headers: tenant.headers,
        payload: { name: 'kite' },
      });
      assert.equal(res.statusCode, 202, res.body);
      assert.ok(res.headers['x-ratelimit-limit'], 'the route is rate limited by its declared class');
      assert.ok(t.container.jobDefinitions().some((d) => d.kind === 'toy.announce'));
      const event = await waitFor(
        async () =>
          t.container.database.db
            .selectFrom('events')
            .selectAll()
            .where('tenant_id', '=', tenant.tenantId)
            .where('data', 'like', '%kite%')
            .executeTakeFirst(),
        'the toy event',
      );
      assert.equal(JSON.parse(event.data).filename, 'kite');
      await waitFor(() => published.includes('kite'), 'the event published to the subscriber');
      // Tenant isolation comes from the platform: another tenant's key reaches the route as itself.
      const other = await createTenant(t);
      const theirs = await t.app.inject({
        method: 'POST',
        url: '/api/v1/toys',
        headers: other.headers,
        payload: { name: 'x' },
      });
      assert.equal(theirs.json().tenant, other.subdomain);
    });
  },
  { modules: [...MODULES, toyModule], worker: true },
);

it('a module using a service nobody listed before it fails at start, naming both', async () => {
  const { assembleModules } = await import('../../src/platform/assemble-modules.ts');
  const early = defineModule({ name: 'early', setup: () => ({}) });
  const eager = defineModule({
    name: 'eager',
    setup: ({ use }) => {
      use('documents');
      return {};
    },
  });
  await assert.rejects(
    assembleModules({} as never, [eager]),
    /module "eager" uses "documents", which no module listed before it provides/,
  );
  await assert.rejects(assembleModules({} as never, [early, early]), /listed twice/);
});
