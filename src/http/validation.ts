import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyRequest, FastifySchemaValidationError } from 'fastify';

// ajv and ajv-formats are CommonJS with a default export.
const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

function makeAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv({
    allErrors: true,
    // Unknown fields are rejected (schemas say additionalProperties: false), never silently dropped.
    removeAdditional: false,
    useDefaults: true,
    coerceTypes,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * JSON bodies are validated strictly (a number is not a string), while query strings, path
 * parameters and headers, which are always text on the wire, are coerced to their schema types.
 */
export function installValidation(app: FastifyInstance): void {
  const strict = makeAjv(false);
  const coercing = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) =>
    compiledOnFirstUse(() => (httpPart === 'body' ? strict : coercing).compile(schema)),
  );
}

type Validator = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/**
 * Defers a route's validator until its first request: compiling every route's schemas at start
 * costs the idle process memory (issue 10 item 5) for routes a deployment may never serve.
 * Fastify reads `errors` off the function it was given, so the wrapper carries them over.
 */
function compiledOnFirstUse(compile: () => Validator): Validator {
  let compiled: Validator | null = null;
  const validate: Validator = (data) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  validate.errors = null;
  return validate;
}

/**
 * JSON bodies as the default parser reads them (prototype-poisoning checks included), except that an
 * empty body with `Content-Type: application/json` is no body at all rather than a parse error: many
 * clients send the header on every request, and a DELETE or a body-less POST (logout, rotate) must
 * not fail for it. Routes whose schema requires a body still answer 400 for an empty one (§9).
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // JSON sent as text/plain is a client mistake worth naming (415), not a string body to reject as "must be an object".
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parse(request, text, done);
  });
}

/**
 * preValidation for routes whose body is optional (resume, cancel): a request without one is read
 * as `{}`, so the body schema still checks what is sent but an absent body is not a 400.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}
