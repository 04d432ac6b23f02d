import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

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
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}
