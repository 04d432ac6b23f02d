import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { re2ForAjv } from '../../../lib/sandbox/re2-regexp.ts';
import type { SchemaCheck } from './ai-methods.ts';

// ajv and ajv-formats are CommonJS with a default export.
const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

/** A JSON Schema check (Ajv) for node outputs (`ai_custom`'s `output_schema`). */
export function schemaChecker(): SchemaCheck {
  const ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: re2ForAjv } });
  addFormats(ajv);
  return (schema, value) => {
    const validate = ajv.compile(schema);
    if (validate(value)) return null;
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
  };
}
