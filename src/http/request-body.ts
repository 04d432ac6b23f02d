import type { FastifyRequest } from 'fastify';
import { errors } from '../lib/errors.ts';

/**
 * Throws when the client closed the request before its body arrived. Call it just before handing a
 * streamed body to a parser that starts listening only then (as @fastify/multipart does): a client
 * that left while the request awaited the database would otherwise leave the parser waiting for a
 * body that never comes, the handler unanswered and an Idempotency-Key claimed until its lock lapsed.
 */
export function assertBodyStillArriving(request: FastifyRequest): void {
  if (request.raw.destroyed && !request.raw.readableEnded)
    throw errors.field('body', 'the request was closed before its body was received');
}
