// Renders the service's OpenAPI 3.1 document as TypeScript: one entry per operation (method, path,
// parameters, JSON body, answer) keyed by operationId, plus a runtime table the client routes by.
// Hand-written rather than openapi-typescript because that tool needs TypeScript 5's compiler API,
// which the repository's TypeScript 7 (native compiler) does not ship. The output is deterministic,
// so a test can regenerate it from the running service and compare it with the committed file.

type Json = Record<string, unknown>;
type Schema = Json & { $ref?: string };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The TypeScript source for `doc` (an OpenAPI 3.1 document). */
export function renderOperationTypes(doc: Json): string {
  const ops = collectOperations(doc);
  const lines = [
    "// Generated from the service's OpenAPI document by packages/sdk/scripts/generate-types.ts. Do not edit:",
    '// run `node packages/sdk/scripts/generate-types.ts` (test/sdk/types-in-step.test.ts fails when this file is out of step).',
    '',
    `export type ErrorBody = ${tsType(componentSchema(doc, 'Error'), doc, '')};`,
    '',
    '/** Every operation of the API by operationId. */',
    'export interface Operations {',
  ];
  for (const op of ops) lines.push(...renderOperation(op, doc));
  lines.push('}', '', '/** Method, path, whether it takes an Idempotency-Key, and how it answers. */');
  lines.push('export const OPERATIONS = {');
  for (const op of ops) {
    lines.push(
      `  ${op.id}: { method: '${op.method.toUpperCase()}', path: '${op.path}', idempotencyKey: ${op.idempotencyKey}, answers: '${op.answers}' },`,
    );
  }
  lines.push('} as const;', '');
  lines.push(...renderWebhookEvents(doc));
  return lines.join('\n');
}

/**
 * The document's `webhooks` (OpenAPI 3.1): the body of each event's delivery, by event name. The
 * service builds them from the same schemas its event types come from (its `<module>.events.ts`).
 */
function renderWebhookEvents(doc: Json): string[] {
  const hooks = Object.entries((doc.webhooks ?? {}) as Record<string, Json>);
  if (hooks.length === 0) return [];
  const lines = [
    '/** The body of each webhook delivery, by event name (docs/webhooks.md; verify it with verifyWebhookSignature). */',
    'export interface WebhookEvents {',
  ];
  for (const [name, item] of hooks) {
    const op = (item.post ?? {}) as Json;
    const content = (((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>)['application/json'];
    lines.push(
      `  /** ${String(op.summary ?? name).replace(/\*\//g, '*\\/')} */`,
      `  ${key(name)}: ${tsType(content?.schema as Schema | undefined, doc, '  ')};`,
    );
  }
  lines.push(
    '}',
    '',
    '/** An event a webhook delivery can carry. */',
    'export type WebhookEventName = keyof WebhookEvents;',
    '',
    "/** The `data` of an event's delivery. */",
    "export type WebhookEventData<N extends WebhookEventName> = WebhookEvents[N]['data'];",
    '',
  );
  return lines;
}

interface Operation {
  id: string;
  method: string;
  path: string;
  summary: string;
  pathParams: Json[];
  queryParams: Json[];
  jsonBody: { schema: Schema; required: boolean } | null;
  multipart: Schema | null;
  response: Schema | null;
  answers: 'json' | 'binary' | 'stream';
  idempotencyKey: boolean;
}

function collectOperations(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op?.operationId) ops.push(describeOperation(doc, path, method, op));
    }
  }
  return ops.sort((a, b) => (a.id < b.id ? -1 : 1));
}

function describeOperation(doc: Json, path: string, method: string, op: Json): Operation {
  const params = ((op.parameters as Json[] | undefined) ?? []).map((p) => resolve(doc, p));
  const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
  const [status, answer] = successAnswer(doc, op);
  const answerContent = (answer?.content ?? {}) as Record<string, Json>;
  const json = answerContent['application/json'];
  return {
    id: String(op.operationId),
    method,
    path,
    summary: String(op.summary ?? ''),
    pathParams: params.filter((p) => p.in === 'path'),
    queryParams: params.filter((p) => p.in === 'query'),
    jsonBody: content['application/json']
      ? { schema: content['application/json'].schema as Schema, required: (op.requestBody as Json).required === true }
      : null,
    multipart: (content['multipart/form-data']?.schema as Schema | undefined) ?? null,
    response: json ? ((json.schema as Schema | undefined) ?? {}) : null,
    answers: json ? 'json' : status && Object.keys(answerContent).length > 0 ? 'binary' : 'stream',
    idempotencyKey: params.some((p) => p.name === 'Idempotency-Key'),
  };
}

function successAnswer(doc: Json, op: Json): [string | undefined, Json | undefined] {
  const responses = (op.responses ?? {}) as Record<string, Json>;
  const status = Object.keys(responses)
    .filter((s) => s.startsWith('2'))
    .sort()[0];
  return [status, status ? resolve(doc, responses[status] as Json) : undefined];
}

function renderOperation(op: Operation, doc: Json): string[] {
  const out = [`  /** ${op.summary.replace(/\*\//g, '*\\/')} */`, `  ${op.id}: {`];
  if (op.pathParams.length) out.push(`    path: ${paramsType(op.pathParams, doc, '    ')};`);
  if (op.queryParams.length) out.push(`    query: ${paramsType(op.queryParams, doc, '    ')};`);
  if (op.jsonBody) out.push(`    body${op.jsonBody.required ? '' : '?'}: ${tsType(op.jsonBody.schema, doc, '    ')};`);
  if (op.multipart) out.push(`    multipart: ${tsType(op.multipart, doc, '    ')};`);
  out.push(`    response: ${op.response ? tsType(op.response, doc, '    ') : 'unknown'};`, '  };');
  return out;
}

function paramsType(params: Json[], doc: Json, indent: string): string {
  const fields = params.map(
    (p) =>
      `${indent}  ${key(String(p.name))}${p.required ? '' : '?'}: ${tsType(p.schema as Schema, doc, `${indent}  `)};`,
  );
  return `{\n${fields.join('\n')}\n${indent}}`;
}

function componentSchema(doc: Json, name: string): Schema {
  return ((doc.components as Json | undefined)?.schemas as Record<string, Schema> | undefined)?.[name] ?? {};
}

function resolve(doc: Json, value: Json): Json {
  let current = value;
  while (typeof current.$ref === 'string') {
    const ref = current.$ref;
    current = ref
      .slice(2)
      .split('/')
      .reduce<Json>((node, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')] as Json, doc);
  }
  return current;
}

/** The TypeScript type of a JSON Schema (the subset TypeBox emits). */
export function tsType(input: Schema | undefined, doc: Json, indent: string): string {
  if (!input) return 'unknown';
  const schema = resolve(doc, input) as Schema;
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf))
    return union(((schema.anyOf ?? schema.oneOf) as Schema[]).map((s) => tsType(s, doc, indent)));
  if (Array.isArray(schema.allOf))
    return (schema.allOf as Schema[]).map((s) => wrap(tsType(s, doc, indent))).join(' & ');
  if (Array.isArray(schema.type)) return union(schema.type.map((t) => tsType({ ...schema, type: t }, doc, indent)));
  switch (schema.type) {
    case 'string':
      return schema.format === 'binary' ? 'Blob' : 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `${wrap(tsType(schema.items as Schema | undefined, doc, indent))}[]`;
    case 'object':
      return objectType(schema, doc, indent);
    default:
      return schema.properties ? objectType(schema, doc, indent) : 'unknown';
  }
}

function objectType(schema: Schema, doc: Json, indent: string): string {
  const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const lines = props.map(
    ([name, s]) => `${indent}  ${key(name)}${required.has(name) ? '' : '?'}: ${tsType(s, doc, `${indent}  `)};`,
  );
  const extra = schema.additionalProperties;
  if (extra === true || (extra === undefined && props.length === 0)) lines.push(`${indent}  [key: string]: unknown;`);
  else if (extra && typeof extra === 'object')
    lines.push(`${indent}  [key: string]: ${tsType(extra as Schema, doc, `${indent}  `)};`);
  return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>';
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  return unique.length === 1 ? (unique[0] as string) : unique.map(wrap).join(' | ');
}

function wrap(type: string): string {
  return /^[\w".[\]]+$/.test(type) || type.startsWith('{') ? type : `(${type})`;
}

function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}
