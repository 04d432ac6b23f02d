import { standardErrors } from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { presentSettings } from './tenants.presenter.ts';
import { TenantSettingsView, UpdateTenantSettingsBody } from './tenants.schemas.ts';
import type { TenantsService } from './tenants.service.ts';

/** docs/api-decisions.md §2: the caller's tenant's settings. */
export function tenantSettingsRoutes(app: App, s: { tenants: TenantsService }): void {
  const tags = ['tenant'];

  app.get(
    '/tenant/settings',
    {
      schema: {
        tags,
        summary: "Get the tenant's settings",
        description: "Anyone of the tenant reads them (a sandbox credential reads its sandbox's).",
        response: { 200: TenantSettingsView, ...standardErrors },
      },
    },
    async (request) => presentSettings(await s.tenants.settingsOf(authOf(request))),
  );

  app.patch(
    '/tenant/settings',
    {
      schema: {
        tags,
        summary: "Change the tenant's settings",
        description:
          'Owners, admins and API keys (403 `forbidden` otherwise). Only the settings given change. A non-null `ai_review_threshold` needs the Team tier or above (403 `tier_limit_exceeded`).',
        body: UpdateTenantSettingsBody,
        response: { 200: TenantSettingsView, ...standardErrors },
      },
    },
    async (request) => {
      const body = request.body;
      return presentSettings(
        await s.tenants.updateSettings(authOf(request), {
          ...(body.ai_review_threshold !== undefined ? { aiReviewThreshold: body.ai_review_threshold } : {}),
        }),
      );
    },
  );
}
