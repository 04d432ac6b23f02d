import type { ApiKeysService } from './api-keys.service.ts';
import { IdParams, MessageBody, pageWindow, standardErrors } from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { iso } from '../../../lib/clock.ts';
import {
  ApiKeyList,
  ApiKeyListQuery,
  CreateApiKeyBody,
  CreatedApiKey,
  RotateApiKeyBody,
  RotatedApiKey,
} from './api-keys.schemas.ts';
import { presentApiKey } from './api-keys.presenter.ts';

/** docs/api-decisions.md §3, endpoints 11–14: API keys (rate-limit type Authentication). */
export function apiKeyRoutes(app: App, s: { apiKeys: ApiKeysService }): void {
  const tags = ['api-keys'];
  const keys = s.apiKeys;
  const limited = { rateLimit: 'authentication' };

  app.get(
    '/api-keys',
    {
      config: limited,
      schema: {
        tags,
        summary: 'List API keys',
        description:
          'Owners, admins and API keys only. Live and test keys, without their secrets, in the paged envelope `{data, total, page, page_size}`.',
        querystring: ApiKeyListQuery,
        response: { 200: ApiKeyList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await keys.list(authOf(request), page);
      return { data: rows.map(presentApiKey), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.post(
    '/api-keys',
    {
      config: limited,
      schema: {
        tags,
        summary: 'Create an API key',
        description: 'Owners, admins and API keys only. The full key appears in this answer only.',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKey, ...standardErrors },
      },
    },
    async (request, reply) => {
      const { apiKey, key } = await keys.create(authOf(request), {
        name: request.body.name,
        environment: request.body.environment ?? 'live',
      });
      return reply.status(201).send({ ...presentApiKey(apiKey), key });
    },
  );

  app.delete(
    '/api-keys/:id',
    {
      config: limited,
      schema: {
        tags,
        summary: 'Revoke an API key',
        description:
          'Owners, admins and API keys only. Takes effect at once, also for a previous secret still in its rotation grace period.',
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await keys.revoke(authOf(request), request.params.id);
      return { message: 'API key revoked' };
    },
  );

  app.post(
    '/api-keys/:id/rotate',
    {
      config: limited,
      schema: {
        tags,
        summary: "Rotate an API key's secret",
        description:
          'Owners, admins and API keys only. The new key appears in this answer only; the old secret keeps working for `grace_seconds` (default 0).',
        params: IdParams,
        body: RotateApiKeyBody,
        response: { 200: RotatedApiKey, ...standardErrors },
      },
    },
    async (request) => {
      const grace = request.body?.grace_seconds ?? 0;
      const { apiKey, key, previousExpiresAt } = await keys.rotate(authOf(request), request.params.id, grace);
      return { ...presentApiKey(apiKey), key, previous_key_expires_at: iso(previousExpiresAt) };
    },
  );
}
