import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Container } from './container.ts';
import { installAuthentication, installCsrfCheck } from './http/authenticate.ts';
import { installConditionalGets } from './http/conditional-requests.ts';
import { installCors, installTenantCorsCheck } from './http/cors.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { API_PREFIX, type App } from './http/fastify-types.ts';
import { installIdempotency } from './http/idempotency.ts';
import { installOpenApiRegistry, openApiSwaggerOptions } from './http/openapi.ts';
import { OPENAPI_INFO, OPENAPI_SERVERS, OPERATION_EXAMPLES } from './http/openapi-content.ts';
import { webhookDocumentation } from './http/openapi-webhooks.ts';
import { installRequestMetrics } from './http/metrics.ts';
import { installRateLimit } from './http/rate-limit.ts';
import { installJsonBodyParser, installValidation } from './http/validation.ts';
import { createLogger } from './lib/logger.ts';
import { lazySerializers } from './http/serialization.ts';
import { installSwaggerUiOnDemand } from './http/swagger-ui-on-demand.ts';

const SANDBOX_PREFIX = '/sandbox';
const REQUEST_ID_RE = /^[\w.:-]{1,128}$/;

type SandboxAware = IncomingMessage & { sandbox?: boolean };

/** TRUST_PROXY as Fastify takes it: a hop count becomes "the first n hops" (what Fastify does with a number, untyped). */
function trustProxyOption(
  value: boolean | number | string,
): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}

/** Builds the HTTP application on a container; it does not listen (main.ts does, tests inject). */
export async function buildApp(
  container: Container,
  options: { logger?: false | FastifyBaseLogger } = {},
): Promise<App> {
  // The process's logger (src/lib/logger.ts: every line redacted), or none.
  const logger =
    options.logger === false ? null : (options.logger ?? createLogger({ level: container.config.logLevel }));
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    bodyLimit: container.config.http.bodyLimitBytes,
    // The client IP of per-client limits: X-Forwarded-For only from the proxies TRUST_PROXY names.
    trustProxy: trustProxyOption(container.config.http.trustProxy),
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
    // Response serialisers are built on a route's first answer, not at start (see lazySerializers).
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  // First, before any route: records every route for the OpenAPI document and its completeness test.
  const openApiRoutes = installOpenApiRegistry(app);

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
  installConditionalGets(app);

  // The OpenAPI document (src/http/openapi.ts completes it for every route; docs/api.md is the guide).
  // Its `webhooks` describe each event's delivery, from the modules' event schemas (src/http/openapi-webhooks.ts).
  const webhooks = webhookDocumentation(container.modules.eventSchemas);
  await app.register(
    swagger,
    openApiSwaggerOptions(openApiRoutes, {
      info: OPENAPI_INFO,
      servers: OPENAPI_SERVERS,
      examples: OPERATION_EXAMPLES,
      webhooks,
    }),
  );
  installSwaggerUiOnDemand(app, '/docs', {
    uiConfig: { displayOperationId: true, deepLinking: true, tryItOutEnabled: true },
  });
  app.get(
    `${API_PREFIX}/openapi.json`,
    {
      config: { auth: 'public', rateLimit: false },
      schema: {
        tags: ['meta'],
        operationId: 'getOpenApiDocument',
        summary: 'Get this OpenAPI 3.1 document',
        description: 'The document `/docs` renders. Public and not rate limited.',
        response: {
          200: { type: 'object', additionalProperties: true, description: 'The OpenAPI 3.1 document of this API.' },
        },
      },
    },
    async () => app.swagger() as unknown as Record<string, unknown>,
  );

  await container.modules.registerRootRoutes(app);
  // Every module's routes under /api/v1 (and, through the rewrite above, the sandbox prefix).
  await app.register((api) => container.modules.registerRoutes(api as App), { prefix: API_PREFIX });
  return app;
}
