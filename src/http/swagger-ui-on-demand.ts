import swagger from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { App } from './fastify-types.ts';

/** Answer headers the outer reply sets itself. */
const HOP_HEADERS = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']);

/**
 * Swagger UI at `prefix`, loaded on its first request instead of at start. @fastify/swagger-ui and
 * what it brings (@fastify/static, send, mime, glob, its own yaml) are ~4 MiB of an idle process
 * that most deployments never open the page of (docs/benchmarks.md, "Idle memory"). Routes cannot
 * be added once the app listens, so `prefix` and `prefix/*` are registered now and hand each
 * request to a small Fastify instance built once, which serves the app's own OpenAPI document
 * (@fastify/swagger in static mode) with the UI's pages and assets.
 */
export function installSwaggerUiOnDemand(
  app: App,
  prefix: string,
  options: Omit<FastifySwaggerUiOptions, 'routePrefix'>,
): void {
  let ui: Promise<FastifyInstance> | null = null;
  const build = async (): Promise<FastifyInstance> => {
    const { default: swaggerUi } = await import('@fastify/swagger-ui');
    const instance = Fastify({ logger: false });
    await instance.register(swagger, { mode: 'static', specification: { document: app.swagger() as never } });
    await instance.register(swaggerUi, { ...options, routePrefix: prefix });
    await instance.ready();
    return instance;
  };
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    ui ??= build().catch((error: unknown) => {
      ui = null;
      throw error;
    });
    const answer = await (await ui).inject({
      method: request.method as 'GET',
      url: request.url,
      headers: request.headers,
    });
    for (const [name, value] of Object.entries(answer.headers)) {
      if (!HOP_HEADERS.has(name) && value !== undefined) reply.header(name, value);
    }
    return reply.code(answer.statusCode).send(answer.rawPayload);
  };
  for (const url of [prefix, `${prefix}/*`]) app.get(url, { schema: { hide: true } }, forward);
}
