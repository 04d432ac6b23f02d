import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../db/database.ts';
import type { Metrics } from '../../http/metrics.ts';
import type { BlobStore } from '../../providers/blobs/blob-store.ts';
import type { App } from '../../http/fastify-types.ts';

const Status = Type.Object({ status: Type.String(), checks: Type.Optional(Type.Record(Type.String(), Type.String())) });

/** Liveness, readiness and Prometheus metrics: unauthenticated and never rate limited. */
export function healthRoutes(
  app: App,
  c: { database: Database; blobs: BlobStore; metrics: Metrics; capabilities: () => Record<string, unknown> },
): void {
  const config = { auth: 'public' as const, rateLimit: false as const };

  app.get(
    '/healthz',
    {
      config,
      schema: {
        tags: ['health'],
        summary: 'Check liveness',
        description: 'Answers 200 `{status: "ok"}` while the process is up. Unauthenticated and not rate limited.',
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/health',
    {
      config,
      schema: {
        tags: ['health'],
        summary: 'Check liveness and what this deployment can do',
        description:
          'Answers 200 `{status, capabilities}`: the AI provider and embedding model, and whether OCR, audio extraction from video (ffmpeg) and transcription are available here.',
        response: {
          200: Type.Object({ status: Type.String(), capabilities: Type.Record(Type.String(), Type.Unknown()) }),
        },
      },
    },
    async () => ({ status: 'ok', capabilities: c.capabilities() }),
  );

  app.get(
    '/readyz',
    {
      config,
      schema: {
        tags: ['health'],
        summary: 'Check readiness',
        description:
          'Answers 200 when the database and the blob store answer, else 503 with the failing `checks`. Unauthenticated and not rate limited.',
        response: { 200: Status, 503: Status },
      },
    },
    async (_request, reply) => {
      const checks: Record<string, string> = {};
      await Promise.all([
        sql`select 1`.execute(c.database.db).then(
          () => (checks['database'] = 'ok'),
          (e: Error) => (checks['database'] = e.message),
        ),
        c.blobs.ping().then(
          () => (checks['blobs'] = 'ok'),
          (e: Error) => (checks['blobs'] = e.message),
        ),
      ]);
      const ready = Object.values(checks).every((v) => v === 'ok');
      return reply.status(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
    },
  );

  app.get('/metrics', { config, schema: { hide: true } }, async (_request, reply) => {
    reply.type(c.metrics.registry.contentType);
    return c.metrics.registry.metrics();
  });
}
