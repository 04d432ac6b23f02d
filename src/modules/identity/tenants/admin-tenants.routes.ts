import type { TenantsService } from './tenants.service.ts';
import { pageWindow, standardErrors } from '../../../http/common-schemas.ts';
import type { App } from '../../../http/fastify-types.ts';
import { presentCreatedTenant, presentTenant } from './tenants.presenter.ts';
import {
  CreatedTenantView,
  CreateTenantBody,
  TenantList,
  TenantListQuery,
  TenantParams,
  TenantView,
  TenantWithUsage,
  UpdateTenantBody,
} from './tenants.schemas.ts';

/** docs/api-decisions.md §2: tenant administration with the administrator key. */
export function adminTenantRoutes(app: App, s: { tenants: TenantsService }): void {
  const common = { config: { auth: 'admin' as const, rateLimit: false as const } };
  const tags = ['admin'];

  app.post(
    '/admin/tenants',
    {
      ...common,
      schema: {
        tags,
        summary: 'Create a tenant with its owner',
        description:
          'Administrator key only. Answers the tenant, its owner, and a live (`ak_live_`) and a test (`ak_test_`) API key, whose secrets appear in this answer only. 409 `conflict` when the subdomain is taken.',
        body: CreateTenantBody,
        response: { 201: CreatedTenantView, ...standardErrors },
      },
    },
    async (request, reply) => {
      const created = await s.tenants.create({ ...request.body, tier: request.body.tier ?? 'free' });
      return reply.status(201).send(presentCreatedTenant(created));
    },
  );

  app.get(
    '/admin/tenants',
    {
      ...common,
      schema: {
        tags,
        summary: 'List tenants',
        description: 'Administrator key only. Paged envelope `{data, total, page, page_size}`.',
        querystring: TenantListQuery,
        response: { 200: TenantList },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await s.tenants.list(page);
      return { data: rows.map(presentTenant), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/admin/tenants/:tenant_id',
    {
      ...common,
      schema: {
        tags,
        summary: 'Get a tenant with usage counts',
        description: 'Administrator key only.',
        params: TenantParams,
        response: { 200: TenantWithUsage, ...standardErrors },
      },
    },
    async (request) => {
      const { tenant, usage } = await s.tenants.getWithUsage(request.params.tenant_id);
      return { ...presentTenant(tenant), usage };
    },
  );

  app.patch(
    '/admin/tenants/:tenant_id',
    {
      ...common,
      schema: {
        tags,
        summary: 'Update a tenant',
        description:
          "Administrator key only. Partial update of `name`, `tier`, `status` and `cors_origins`; a suspended tenant's credentials get 403 `tenant_suspended`.",
        params: TenantParams,
        body: UpdateTenantBody,
        response: { 200: TenantView, ...standardErrors },
      },
    },
    async (request) => {
      const { cors_origins, ...rest } = request.body;
      return presentTenant(await s.tenants.update(request.params.tenant_id, { ...rest, corsOrigins: cors_origins }));
    },
  );
}
