import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import type { Container } from './container.ts';
import { installAuthentication, installCsrfCheck } from './http/authenticate.ts';
import { installCors, installTenantCorsCheck } from './http/cors.ts';
import { installErrorHandling } from './http/error-handler.ts';
import type { App } from './http/fastify-types.ts';
import { installIdempotency } from './http/idempotency.ts';
import { installRequestMetrics } from './http/metrics.ts';
import { installRateLimit } from './http/rate-limit.ts';
import { installJsonBodyParser, installValidation } from './http/validation.ts';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { batchJobRoutes } from './modules/batch-jobs/batch-jobs.routes.ts';
import { documentFileRoutes } from './modules/documents/document-files.routes.ts';
import { documentUploadRoutes } from './modules/documents/document-uploads.routes.ts';
import { documentRoutes } from './modules/documents/documents.routes.ts';
import { folderRoutes } from './modules/folders/folders.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { shareRoutes } from './modules/shares/shares.routes.ts';
import { tagRoutes } from './modules/tags/tags.routes.ts';
import { adminTenantRoutes } from './modules/tenants/admin-tenants.routes.ts';
import { userRoutes } from './modules/users/users.routes.ts';
import { workspaceRoutes } from './modules/workspaces/workspaces.routes.ts';

export const API_PREFIX = '/api/v1';
const SANDBOX_PREFIX = '/sandbox';
const REQUEST_ID_RE = /^[\w.:-]{1,128}$/;

type SandboxAware = IncomingMessage & { sandbox?: boolean };

/** Route modules, each registered under /api/v1 (and reachable through the sandbox prefix). */
const API_MODULES: ((app: App, c: Container) => void | Promise<void>)[] = [
  adminTenantRoutes,
  authRoutes,
  apiKeyRoutes,
  userRoutes,
  workspaceRoutes,
  folderRoutes,
  documentRoutes,
  documentUploadRoutes,
  documentFileRoutes,
  shareRoutes,
  tagRoutes,
  batchJobRoutes,
];

/** Builds the HTTP application on a container; it does not listen (main.ts does, tests inject). */
export async function buildApp(container: Container, options: { logger?: FastifyServerOptions['logger'] } = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger ?? { level: container.config.logLevel },
    bodyLimit: container.config.http.bodyLimitBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    // One route table serves both environments: the sandbox prefix is stripped and remembered.
    rewriteUrl: (req: SandboxAware) => {
      const url = req.url ?? '/';
      if (url === SANDBOX_PREFIX || url.startsWith(`${SANDBOX_PREFIX}/`)) {
        req.sandbox = true;
        return url.slice(SANDBOX_PREFIX.length) || '/';
      }
      return url;
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  // Validation is ours (src/http/validation.ts): strict bodies, coerced query strings and params.
  installValidation(app);
  installJsonBodyParser(app);
  installErrorHandling(app);
  app.decorateRequest('sandbox', false);
  app.addHook('onRequest', (request, reply, done) => {
    request.sandbox = (request.raw as SandboxAware).sandbox === true;
    reply.header('x-request-id', request.id);
    done();
  });
  installRequestMetrics(app, container.metrics);
  // CORS answers preflights before credentials are asked for; the guards run after authentication.
  await installCors(app, container.guards.cors);
  installAuthentication(app, container.authenticators);
  installTenantCorsCheck(app, container.guards.cors);
  installRateLimit(app, container.guards.rateLimit);
  installCsrfCheck(app, container.authenticators);
  installIdempotency(app, container.guards.idempotency);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Document Management Service API',
        version: '1.0.0',
        description:
          'Multi-tenant document management with AI processing. Errors always answer `{error, code, message, details?}`.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get(`${API_PREFIX}/openapi.json`, { config: { auth: 'public', rateLimit: false }, schema: { hide: true } }, async () => app.swagger());

  healthRoutes(app, container);
  await app.register(
    async (api) => {
      for (const register of API_MODULES) await register(api as App, container);
    },
    { prefix: API_PREFIX },
  );
  return app;
}
