import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDependencyUnavailable } from '../lib/dependency-errors.ts';
import { AppError, errors, type FieldError } from '../lib/errors.ts';

/** Seconds a client is asked to wait when the database or blob store is unreachable. */
const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Names the offending field the way a client wrote it: `name`, `owner.email`, `tags[0]`. */
function fieldOf(issue: AjvIssue, context: string | undefined): string {
  const segments = (issue.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const missing = issue.params?.['missingProperty'] ?? issue.params?.['additionalProperty'];
  if (typeof missing === 'string') segments.push(missing);
  const field = segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
  return field || (context === 'body' ? 'body' : (context ?? 'request'));
}

function messageOf(issue: AjvIssue, allowed: Map<string, unknown[]>): string {
  if (issue.keyword === 'additionalProperties') return 'is not a known field';
  if (issue.keyword === 'required') return 'is required';
  if (issue.keyword === 'minProperties' && issue.params?.['limit'] === 1) return 'must contain at least one field';
  if (issue.keyword === 'type' && !issue.instancePath && issue.params?.['type'] === 'object')
    return 'must be a JSON object';
  // A union of literals (tier, role, status...) fails once per literal: name the values it accepts.
  const values = issue.keyword === 'const' ? allowed.get(issue.instancePath ?? '') : undefined;
  if (values) return `must be one of: ${values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`;
  return issue.message ?? 'is invalid';
}

/** Turns Fastify's AJV validation failures into the contract's `details.errors`. */
export function validationFieldErrors(error: FastifyError): FieldError[] {
  const issues = (error.validation ?? []) as AjvIssue[];
  const allowed = new Map<string, unknown[]>();
  for (const issue of issues) {
    if (issue.keyword !== 'const' || !issue.params || !('allowedValue' in issue.params)) continue;
    const path = issue.instancePath ?? '';
    allowed.set(path, [...(allowed.get(path) ?? []), issue.params['allowedValue']]);
  }
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const issue of issues) {
    // anyOf/oneOf wrappers repeat what their branches said; keep the concrete ones.
    if (issue.keyword === 'anyOf' || issue.keyword === 'oneOf') continue;
    const e = { field: fieldOf(issue, error.validationContext), message: messageOf(issue, allowed) };
    const key = `${e.field}|${e.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(e);
    }
  }
  return out.length > 0 ? out : [{ field: error.validationContext ?? 'request', message: error.message }];
}

/** Maps Fastify's own errors (parsing, limits, content types) to the contract's vocabulary. */
function fromFrameworkError(error: FastifyError): AppError | null {
  if (error.validation) {
    const fieldErrors = validationFieldErrors(error);
    return new AppError(
      400,
      'validation_error',
      `Invalid request: ${fieldErrors.map((e) => `${e.field} ${e.message}`).join('; ')}`,
      {
        details: { errors: fieldErrors },
      },
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'validation_error', 'The JSON body is empty', {
        details: { errors: [{ field: 'body', message: 'must not be empty' }] },
      });
  }
  const status = error.statusCode ?? 500;
  if (status === 400) {
    const message =
      error instanceof SyntaxError || /JSON/i.test(error.message) ? 'The body is not valid JSON' : error.message;
    return new AppError(400, 'validation_error', message, { details: { errors: [{ field: 'body', message }] } });
  }
  if (status === 404) return new AppError(404, 'not_found', 'Not found');
  if (status === 413) return errors.payloadTooLarge();
  if (status === 415) return errors.unsupportedMediaType();
  if (status === 429) return errors.rateLimited(error.message);
  if (status > 400 && status < 500) return errors.badRequest(status, error.message);
  return null;
}

/** Writes an AppError as the contract's body `{error, code, message, details?}`. */
export function sendAppError(reply: FastifyReply, appError: AppError): FastifyReply {
  if (appError.headers) reply.headers(appError.headers);
  const body: Record<string, unknown> = { error: appError.error, code: appError.code, message: appError.message };
  if (appError.details !== undefined) body['details'] = appError.details;
  return reply.status(appError.status).type('application/json; charset=utf-8').send(body);
}

/** Installs the one error handler and the unknown-route answer. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = error instanceof AppError ? error : fromFrameworkError(error);
    if (appError && appError.status < 500) return sendAppError(reply, appError);
    if (!appError && isDependencyUnavailable(error)) {
      request.log.warn({ err: error }, 'a dependency is unavailable');
      return sendAppError(
        reply,
        errors.unavailable(
          'A service this request needs is unavailable for the moment; retry shortly',
          DEPENDENCY_RETRY_AFTER_SECONDS,
        ),
      );
    }
    // Unexpected: log the whole cause chain, answer nothing of it.
    request.log.error({ err: error }, 'request failed');
    return sendAppError(reply, appError ?? new AppError(500, 'internal_error', 'An internal error occurred'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendAppError(reply, new AppError(404, 'not_found', `No route for ${request.method} ${request.url.split('?')[0]}`)),
  );
}
