import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { deriveOperationId, type RegisteredRoute, registeredRoutes } from '../../src/http/openapi.ts';
import { OPERATION_EXAMPLES } from '../../src/http/openapi-content.ts';
import { MODULES } from '../../src/modules.ts';
import { defineModule } from '../../src/platform/module.ts';
import { spectralFindings } from '../../scripts/lint-openapi.ts';
import { multipart, upload } from '../modules/documents/helpers.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTenant, type TestTenant } from '../support/fixtures.ts';

// ajv and ajv-formats are CommonJS with a default export.
const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;

// biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON walked by path.
type Json = any;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Routes that exist but are deliberately not in the document. Anything else hidden fails the test:
 * hiding a route means adding it here, in review.
 */
const HIDDEN_ON_PURPOSE: { method?: string; match: RegExp; why: string }[] = [
  { match: /^\/docs(\/|$)/, why: 'the documentation UI itself (@fastify/swagger-ui)' },
  { method: 'OPTIONS', match: /^\*$/, why: 'CORS preflight, answered for every path' },
  { method: 'GET', match: /^\/mcp$/, why: 'a stateless MCP server has no event stream: 405 (described by POST /mcp)' },
  {
    method: 'DELETE',
    match: /^\/mcp$/,
    why: 'a stateless MCP server has no session to end: 405 (described by POST /mcp)',
  },
  { method: 'GET', match: /^\/metrics$/, why: 'Prometheus text for the operator (health module)' },
  { method: 'GET', match: /^\/$/, why: 'redirects a browser to the web console' },
  { method: 'GET', match: /^\/console\//, why: 'the web console’s static files (console module)' },
];

function operationsOf(doc: Json): { path: string; method: string; op: Json }[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );
}

/** What the completeness test finds wrong with the document, route by route. */
function completenessFailures(routes: RegisteredRoute[], doc: Json): string[] {
  const failures: string[] = [];
  for (const route of routes) {
    const name = `${route.method} ${route.url}`;
    if (route.method === 'HEAD') continue; // Fastify's automatic HEAD of a GET; documented by the GET
    if (route.hidden) {
      if (!HIDDEN_ON_PURPOSE.some((h) => (!h.method || h.method === route.method) && h.match.test(route.url))) {
        failures.push(`${name}: hidden (schema.hide) but not listed in HIDDEN_ON_PURPOSE`);
      }
      continue;
    }
    const op = doc.paths[route.path]?.[route.method.toLowerCase()];
    if (!op) {
      failures.push(`${name}: missing from the document (registered before the swagger plugin?)`);
      continue;
    }
    if (!op.operationId || op.operationId !== route.operationId)
      failures.push(`${name}: operationId ${op.operationId} (expected ${route.operationId})`);
    if (typeof op.summary !== 'string' || op.summary.trim() === '') failures.push(`${name}: no summary`);
    if (!Array.isArray(op.tags) || op.tags.length === 0) failures.push(`${name}: no tag`);
    if (!Object.keys(op.responses ?? {}).some((s) => s.startsWith('4'))) failures.push(`${name}: no 4xx answer`);
    if (!Object.keys(op.responses ?? {}).some((s) => s.startsWith('2'))) failures.push(`${name}: no 2xx answer`);
    if (!Array.isArray(op.security)) failures.push(`${name}: no security requirement`);
    else {
      const schemes = op.security.flatMap((r: Json) => Object.keys(r)).sort();
      const expected = { tenant: ['apiKey', 'bearer', 'tenantSubdomain'], admin: ['adminKey'], public: [] }[route.auth];
      if (JSON.stringify(schemes) !== JSON.stringify(expected))
        failures.push(`${name}: security ${JSON.stringify(op.security)} for a ${route.auth} route`);
    }
  }
  // And nothing in the document that is not a route.
  for (const { path, method } of operationsOf(doc)) {
    if (!routes.some((r) => r.path === path && r.method === method.toUpperCase() && !r.hidden))
      failures.push(`${method.toUpperCase()} ${path}: documented but not registered`);
  }
  return failures;
}

/** Follows a local `$ref` (`#/components/...`). */
function deref(doc: Json, node: Json): Json {
  let current = node;
  for (let i = 0; current && typeof current.$ref === 'string' && i < 10; i++) {
    current = current.$ref
      .slice(2)
      .split('/')
      .map((t: string) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((n: Json, t: string) => n?.[t], doc);
  }
  return current;
}

/** Every `$ref` string in the document, with where it is. */
function refsOf(node: Json, at = '#', out: { ref: string; at: string }[] = []): { ref: string; at: string }[] {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) refsOf(v, `${at}/${i}`, out);
  } else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push({ ref: v, at });
      else refsOf(v, `${at}/${k}`, out);
    }
  }
  return out;
}

/** Every schema object under a node (properties, items, combinators...), for schema rules. */
function schemasUnder(
  schema: Json,
  at: string,
  out: { schema: Json; at: string }[] = [],
): { schema: Json; at: string }[] {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return out;
  out.push({ schema, at });
  for (const [k, v] of Object.entries(schema.properties ?? {})) schemasUnder(v, `${at}/properties/${k}`, out);
  for (const [k, v] of Object.entries(schema.patternProperties ?? {}))
    schemasUnder(v, `${at}/patternProperties/${k}`, out);
  if (schema.items) schemasUnder(schema.items, `${at}/items`, out);
  if (typeof schema.additionalProperties === 'object')
    schemasUnder(schema.additionalProperties, `${at}/additionalProperties`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const [i, s] of (schema[key] ?? []).entries()) schemasUnder(s, `${at}/${key}/${i}`, out);
  }
  return out;
}

/** Every schema of the document: components, parameters, bodies, answers and headers. */
function allSchemas(doc: Json): { schema: Json; at: string }[] {
  const out: { schema: Json; at: string }[] = [];
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {}))
    schemasUnder(s, `#/components/schemas/${name}`, out);
  for (const { path, method, op } of operationsOf(doc)) {
    const at = `${method.toUpperCase()} ${path}`;
    for (const [i, p] of (op.parameters ?? []).entries())
      schemasUnder(deref(doc, p)?.schema, `${at} parameter ${i}`, out);
    for (const [type, media] of Object.entries<Json>(op.requestBody?.content ?? {}))
      schemasUnder(media.schema, `${at} body ${type}`, out);
    for (const [status, r] of Object.entries<Json>(op.responses ?? {})) {
      for (const [type, media] of Object.entries<Json>(deref(doc, r)?.content ?? {}))
        schemasUnder(media.schema, `${at} ${status} ${type}`, out);
    }
  }
  return out;
}

/** The redocly `no-ambiguous-paths` check. */
function ambiguous(a: string, b: string): boolean {
  const pa = a.split('/');
  const pb = b.split('/');
  if (pa.length !== pb.length) return false;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < pa.length; i++) {
    const aVar = /^{.+?}$/.test(pa[i]!);
    const bVar = /^{.+?}$/.test(pb[i]!);
    if (aVar) va++;
    if (bVar) vb++;
    if (!aVar && !bVar && pa[i] !== pb[i]) return false;
  }
  return va === vb;
}

/** A validator of the document's schemas (JSON Schema 2020-12, as OpenAPI 3.1 has them). */
function makeValidator(doc: Json) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  /** Compiles `schema` with its `#/components/...` references resolved in the document. */
  return (schema: Json, options: { strictObjects?: boolean } = {}) => {
    let copy = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
    // redocly validates examples with additionalProperties false where a schema says nothing.
    if (options.strictObjects) {
      copy = JSON.parse(JSON.stringify(copy), (_k, v) =>
        v &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        v.type === 'object' &&
        v.properties &&
        v.additionalProperties === undefined &&
        !v.patternProperties
          ? { ...v, additionalProperties: false }
          : v,
      );
    }
    return ajv.compile(copy);
  };
}

/** The findings of the rules `redocly lint --extends recommended` applies, checked here without redocly. */
function lintFindings(doc: Json): string[] {
  const findings: string[] = [];
  const problem = (rule: string, message: string) => findings.push(`${rule}: ${message}`);

  if (!doc.info?.license?.name) problem('info-license', 'info.license is missing');
  if (!doc.info?.license?.url && !doc.info?.license?.identifier)
    problem('info-license-strict', 'info.license needs url or identifier');
  if (!Array.isArray(doc.servers) || doc.servers.length === 0) problem('no-empty-servers', 'no servers');
  for (const server of doc.servers ?? []) {
    if (server.url !== '/' && server.url.endsWith('/')) problem('no-server-trailing-slash', server.url);
    if (/example\.com/.test(server.url)) problem('no-server-example.com', server.url);
  }

  const declaredTags = new Map<string, Json>();
  for (const tag of doc.tags ?? []) {
    if (declaredTags.has(tag.name)) problem('no-duplicated-tag-names', tag.name);
    declaredTags.set(tag.name, tag);
    if (typeof tag.description !== 'string' || tag.description.trim() === '') problem('tag-description', tag.name);
  }

  const paths = Object.keys(doc.paths);
  const normalised = new Map<string, string>();
  paths.forEach((path, i) => {
    if (path !== '/' && path.endsWith('/')) problem('no-path-trailing-slash', path);
    if (path.includes('?')) problem('path-not-include-query', path);
    const shape = path.replace(/{[^}]+}/g, '{}');
    if (normalised.has(shape)) problem('no-identical-paths', `${path} and ${normalised.get(shape)}`);
    normalised.set(shape, path);
    for (const earlier of paths.slice(0, i))
      if (ambiguous(earlier, path)) problem('no-ambiguous-paths', `${earlier} and ${path}`);
  });

  const schemes = doc.components?.securitySchemes ?? {};
  const ids = new Map<string, string>();
  for (const { path, method, op } of operationsOf(doc)) {
    const at = `${method.toUpperCase()} ${path}`;
    if (!op.operationId) problem('operation-operationId', at);
    else {
      if (ids.has(op.operationId))
        problem('operation-operationId-unique', `${op.operationId}: ${at} and ${ids.get(op.operationId)}`);
      ids.set(op.operationId, at);
      if (!/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]*$/.test(op.operationId))
        problem('operation-operationId-url-safe', op.operationId);
    }
    if (typeof op.summary !== 'string' || op.summary.trim() === '') problem('operation-summary', at);
    const statuses = Object.keys(op.responses ?? {});
    if (!statuses.some((s) => s.startsWith('2'))) problem('operation-2xx-response', at);
    if (!statuses.some((s) => s.startsWith('4'))) problem('operation-4xx-response', at);
    for (const s of statuses)
      if (!deref(doc, op.responses[s])?.description) problem('struct', `${at} ${s}: a response needs a description`);
    if (!Array.isArray(op.security) && !Array.isArray(doc.security)) problem('security-defined', at);
    for (const requirement of [...(op.security ?? []), ...(doc.security ?? [])]) {
      for (const name of Object.keys(requirement))
        if (!schemes[name]) problem('security-defined', `${at}: no security scheme ${name}`);
    }
    for (const tag of op.tags ?? []) if (!declaredTags.has(tag)) problem('operation-tag-defined', `${at}: ${tag}`);

    const parameters = (op.parameters ?? []).map((p: Json) => deref(doc, p) ?? {});
    const seen = new Set<string>();
    for (const p of parameters) {
      const key = `${p.in}:${p.name}`;
      if (seen.has(key)) problem('operation-parameters-unique', `${at}: ${key}`);
      seen.add(key);
    }
    const templated = [...path.matchAll(/{([^}]+)}/g)].map((m) => m[1]!);
    const inPath = parameters.filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
    for (const name of templated)
      if (!inPath.includes(name)) problem('path-parameters-defined', `${at}: {${name}} is not defined`);
    for (const name of inPath)
      if (!templated.includes(name)) problem('path-parameters-defined', `${at}: ${name} is not in the path`);
  }

  // Every reference resolves, and every component is referenced.
  const refs = refsOf(doc);
  for (const { ref, at } of refs) {
    if (!ref.startsWith('#/') || deref(doc, { $ref: ref }) === undefined)
      problem('no-unresolved-refs', `${ref} at ${at}`);
  }
  const referenced = new Set(refs.map((r) => r.ref));
  for (const kind of ['schemas', 'responses', 'parameters', 'headers', 'requestBodies', 'examples']) {
    for (const name of Object.keys(doc.components?.[kind] ?? {})) {
      if (!referenced.has(`#/components/${kind}/${name}`))
        problem('no-unused-components', `#/components/${kind}/${name}`);
    }
  }

  // Schema rules.
  const typeOf = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  for (const { schema, at } of allSchemas(doc)) {
    if (Array.isArray(schema.required)) {
      const props = new Set([
        ...Object.keys(schema.properties ?? {}),
        ...(schema.allOf ?? []).flatMap((s: Json) => Object.keys(deref(doc, s)?.properties ?? {})),
      ]);
      for (const name of schema.required)
        if (!props.has(name)) problem('no-required-schema-properties-undefined', `${at}: ${name}`);
    }
    if (Array.isArray(schema.enum) && schema.type) {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      for (const v of schema.enum) {
        const t = typeOf(v);
        if (!types.includes(t) && !(t === 'integer' && types.includes('number')))
          problem('no-enum-type-mismatch', `${at}: ${JSON.stringify(v)}`);
      }
    }
    if (schema.type === 'object' && schema.items !== undefined)
      problem('no-schema-type-mismatch', `${at}: an object with items`);
    if (schema.type === 'array' && schema.properties !== undefined)
      problem('no-schema-type-mismatch', `${at}: an array with properties`);
    if (schema.minimum !== undefined && schema.exclusiveMinimum !== undefined)
      problem('no-mixed-number-range-constraints', at);
    if (schema.maximum !== undefined && schema.exclusiveMaximum !== undefined)
      problem('no-mixed-number-range-constraints', at);
  }

  // Examples are valid: media type examples, parameter examples and schema examples.
  const compile = makeValidator(doc);
  const checkExample = (schema: Json, value: unknown, at: string, rule: string) => {
    const validate = compile(schema, { strictObjects: true });
    if (!validate(value)) problem(rule, `${at}: ${JSON.stringify(validate.errors).slice(0, 400)}`);
  };
  const media: { at: string; m: Json }[] = [];
  for (const { path, method, op } of operationsOf(doc)) {
    const at = `${method.toUpperCase()} ${path}`;
    for (const [type, m] of Object.entries<Json>(op.requestBody?.content ?? {}))
      media.push({ at: `${at} body ${type}`, m });
    for (const [status, r] of Object.entries<Json>(op.responses ?? {})) {
      if (r.$ref) continue; // the shared responses are checked once below
      for (const [type, m] of Object.entries<Json>(r.content ?? {})) media.push({ at: `${at} ${status} ${type}`, m });
    }
    for (const p of op.parameters ?? []) {
      const param = deref(doc, p) ?? {};
      if (param.example !== undefined)
        checkExample(param.schema, param.example, `${at} ${param.name}`, 'no-invalid-parameter-examples');
    }
  }
  for (const [name, r] of Object.entries<Json>(doc.components?.responses ?? {})) {
    for (const [type, m] of Object.entries<Json>(r.content ?? {}))
      media.push({ at: `#/components/responses/${name} ${type}`, m });
  }
  for (const { at, m } of media) {
    if (m.example !== undefined) checkExample(m.schema, m.example, at, 'no-invalid-media-type-examples');
    for (const [name, e] of Object.entries<Json>(m.examples ?? {}))
      checkExample(m.schema, deref(doc, e)?.value, `${at} example ${name}`, 'no-invalid-media-type-examples');
  }
  for (const { schema, at } of allSchemas(doc)) {
    for (const [i, e] of (Array.isArray(schema.examples) ? schema.examples : []).entries()) {
      checkExample(schema, e, `${at} examples[${i}]`, 'no-invalid-schema-examples');
    }
  }
  return findings;
}

/**
 * The maintained linter, when installed: `@redocly/openapi-core` (proposed as a devDependency; its
 * `lintFromString` with the `recommended` ruleset is what `redocly lint` runs).
 */
const REDOCLY_PACKAGE = '@redocly/openapi-core';
const redocly: Json = await import(REDOCLY_PACKAGE).catch(() => null);

async function redoclyFindings(doc: Json): Promise<string[]> {
  const config = await redocly.createConfig({ extends: ['recommended'] });
  const problems: Json[] = await redocly.lintFromString({
    source: JSON.stringify(doc),
    absoluteRef: '/openapi.json',
    config,
  });
  return problems.map((p) => `${p.ruleId} (${p.severity}): ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
}

describe('OpenAPI document: every route, completely described', () => {
  let t: TestApp;
  let doc: Json;
  let routes: RegisteredRoute[];

  before(async () => {
    t = await startTestApp('sqlite');
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    doc = res.json();
    routes = registeredRoutes(t.app).routes;
  });
  after(() => t.close());

  it('derives stable, readable operation ids from method and path', () => {
    const cases: [string, string, string][] = [
      ['GET', '/api/v1/documents', 'listDocuments'],
      ['GET', '/api/v1/documents/:id', 'getDocument'],
      ['PUT', '/api/v1/documents/:id', 'updateDocument'],
      ['DELETE', '/api/v1/documents/:id', 'deleteDocument'],
      ['POST', '/api/v1/chat/sessions', 'createChatSession'],
      ['POST', '/api/v1/chat/sessions/:id/ask', 'askChatSession'],
      ['GET', '/api/v1/chat/sessions/:id/messages', 'listChatSessionMessages'],
      ['GET', '/api/v1/documents/:id/download', 'downloadDocument'],
      ['GET', '/api/v1/documents/:id/content', 'getDocumentContent'],
      ['POST', '/api/v1/documents/:id/apply-ai-tags', 'applyDocumentAiTags'],
      ['GET', '/api/v1/webhooks/:id/deliveries', 'listWebhookDeliveries'],
      ['POST', '/api/v1/webhooks/:id/deliveries/:delivery_id/redeliver', 'redeliverWebhookDelivery'],
      ['DELETE', '/api/v1/workspaces/:id/members/:user_id', 'deleteWorkspaceMember'],
      ['POST', '/api/v1/api-keys/:id/rotate', 'rotateApiKey'],
      ['POST', '/api/v1/auth/login', 'loginAuth'],
      ['GET', '/api/v1/batch-jobs/:id', 'getBatchJob'],
      ['GET', '/api/v1/search', 'search'],
      ['GET', '/healthz', 'getHealthz'],
    ];
    for (const [method, url, id] of cases) assert.equal(deriveOperationId(method, url), id, `${method} ${url}`);
  });

  it('documents every registered route with an operationId, summary, tag, 4xx answer and security', () => {
    assert.deepEqual(registeredRoutes(t.app).problems, [], 'operation ids two routes would share');
    assert.ok(routes.length > 50, `only ${routes.length} routes registered: is the registry installed first?`);
    assert.deepEqual(completenessFailures(routes, doc), []);
  });

  it('fails for a route added without a summary, hidden without a reason, or with a clashing id', async () => {
    const noop = async () => ({ ok: true });
    const probe = defineModule({
      name: 'openapi-probe',
      setup: () => ({
        routes(app) {
          app.get('/probe/undocumented', { schema: { tags: ['probe'] } }, noop);
          app.get('/probe/secret', { schema: { hide: true } }, noop);
          app.put('/probe/:id', { schema: { tags: ['probe'], summary: 'Replace a probe' } }, noop);
          app.patch('/probe/:id', { schema: { tags: ['probe'], summary: 'Change a probe' } }, noop);
        },
      }),
    });
    const other = await startTestApp('sqlite', { modules: [...MODULES, probe] });
    try {
      const probeDoc = (await other.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
      const registry = registeredRoutes(other.app);
      assert.deepEqual(registry.problems, [
        'operationId "updateProbe" of PATCH /api/v1/probe/:id is already used by PUT /api/v1/probe/:id: set schema.operationId on one of them',
      ]);
      const failures = completenessFailures(registry.routes, probeDoc);
      assert.deepEqual(failures, [
        'GET /api/v1/probe/undocumented: no summary',
        'GET /api/v1/probe/secret: hidden (schema.hide) but not listed in HIDDEN_ON_PURPOSE',
      ]);
      // The new routes got everything else centrally: ids, security, error answers.
      const added = probeDoc.paths['/api/v1/probe/undocumented'].get;
      assert.equal(added.operationId, 'getProbeUndocumented');
      assert.deepEqual(added.security, [{ apiKey: [] }, { bearer: [], tenantSubdomain: [] }]);
      assert.ok(added.responses['401'] && added.responses['429']);
    } finally {
      await other.close();
    }
  });

  it('describes the multipart fields of the upload operations, so /docs can send a file', () => {
    const single = doc.paths['/api/v1/documents/upload'].post;
    const singleSchema = single.requestBody?.content?.['multipart/form-data']?.schema;
    assert.ok(singleSchema, 'POST /documents/upload has a multipart/form-data body');
    assert.deepEqual(Object.keys(singleSchema.properties).sort(), [
      'enable_ai',
      'file',
      'filename',
      'folder_id',
      'on_duplicate',
      'tags',
    ]);
    assert.equal(singleSchema.properties.file.format, 'binary');
    assert.deepEqual(singleSchema.required, ['file']);
    assert.equal(single.operationId, 'uploadDocument');

    const batch = doc.paths['/api/v1/documents/upload-batch'].post;
    const batchSchema = batch.requestBody?.content?.['multipart/form-data']?.schema;
    assert.ok(batchSchema, 'POST /documents/upload-batch has a multipart/form-data body');
    assert.deepEqual(Object.keys(batchSchema.properties).sort(), [
      'enable_ai',
      'files[]',
      'folder_id',
      'on_duplicate',
      'tags',
    ]);
    assert.equal(batchSchema.properties['files[]'].items.format, 'binary');
    assert.equal(batchSchema.properties['files[]'].maxItems, 10);

    const version = doc.paths['/api/v1/documents/{id}/versions'].post;
    const versionSchema = version.requestBody?.content?.['multipart/form-data']?.schema;
    assert.ok(versionSchema, 'POST /documents/{id}/versions has a multipart/form-data body');
    assert.deepEqual(Object.keys(versionSchema.properties).sort(), ['file', 'filename']);
    assert.equal(versionSchema.properties.file.format, 'binary');
    assert.equal(version.operationId, 'uploadDocumentVersion');
  });

  it('passes the rules of redocly lint --extends recommended (checked here)', () => {
    assert.deepEqual(lintFindings(doc), []);
  });

  it('passes redocly lint --extends recommended, no errors and no warnings', {
    skip: redocly ? false : `${REDOCLY_PACKAGE} is not installed`,
  }, async () => {
    assert.deepEqual(await redoclyFindings(doc), []);
  });

  it('passes Spectral spectral:oas, no errors and no warnings', async () => {
    assert.deepEqual(await spectralFindings(doc), []);
  });

  it('has examples that name real operations and fit their answers', () => {
    for (const [operationId, byStatus] of Object.entries(OPERATION_EXAMPLES)) {
      const found = operationsOf(doc).find(({ op }) => op.operationId === operationId);
      assert.ok(found, `example for unknown operation ${operationId}`);
      for (const [status, example] of Object.entries(byStatus)) {
        const media = deref(doc, found.op.responses[status])?.content?.['application/json'];
        assert.ok(media?.examples?.[example.name], `${operationId} ${status}: example not placed`);
      }
    }
  });

  describe('real answers fit their documented schema', () => {
    let tenant: TestTenant;
    let documentId: string;
    let validatorFor: (path: string, method: string, status: number) => (value: unknown) => boolean;

    before(async () => {
      tenant = await createTenant(t);
      const compile = makeValidator(doc);
      validatorFor = (path, method, status) => {
        const response = deref(doc, doc.paths[path]?.[method]?.responses?.[String(status)]);
        const schema = response?.content?.['application/json']?.schema;
        assert.ok(schema, `no JSON schema documented for ${method.toUpperCase()} ${path} ${status}`);
        const validate = compile(schema, { strictObjects: true });
        return (value) => {
          const ok = validate(value);
          if (!ok)
            assert.fail(
              `${method.toUpperCase()} ${path} ${status}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`,
            );
          return ok;
        };
      };
    });

    it('POST /documents/upload (201)', async () => {
      const res = await upload(t, tenant.headers, { filename: 'notes.txt', fields: { tags: 'legal' } });
      assert.equal(res.statusCode, 201, res.body);
      validatorFor('/api/v1/documents/upload', 'post', 201)(res.json());
      documentId = res.json().id;
    });

    it('POST /documents/upload-batch (201)', async () => {
      const body = multipart([
        { name: 'files[]', filename: 'a.txt', content: Buffer.from('first\n') },
        { name: 'files[]', filename: 'b.txt', content: Buffer.from('second\n') },
        { name: 'enable_ai', value: 'false' },
      ]);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/documents/upload-batch',
        payload: body.payload,
        headers: { ...tenant.headers, ...body.headers },
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().documents.length, 2);
      validatorFor('/api/v1/documents/upload-batch', 'post', 201)(res.json());
    });

    it('GET /documents and GET /documents/{id} (200)', async () => {
      const list = await t.app.inject({ method: 'GET', url: '/api/v1/documents', headers: tenant.headers });
      assert.equal(list.statusCode, 200, list.body);
      assert.ok(list.json().data.length > 0);
      validatorFor('/api/v1/documents', 'get', 200)(list.json());
      const one = await t.app.inject({
        method: 'GET',
        url: `/api/v1/documents/${documentId}`,
        headers: tenant.headers,
      });
      assert.equal(one.statusCode, 200, one.body);
      validatorFor('/api/v1/documents/{id}', 'get', 200)(one.json());
    });

    it('error answers: 404, 401, 400 and a public route', async () => {
      const missing = await t.app.inject({ method: 'GET', url: '/api/v1/documents/nope', headers: tenant.headers });
      assert.equal(missing.statusCode, 404);
      validatorFor('/api/v1/documents/{id}', 'get', 404)(missing.json());
      const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/documents' });
      assert.equal(anonymous.statusCode, 401);
      validatorFor('/api/v1/documents', 'get', 401)(anonymous.json());
      const invalid = await t.app.inject({
        method: 'POST',
        url: '/api/v1/folders',
        headers: tenant.headers,
        payload: { nom: 'x' },
      });
      assert.equal(invalid.statusCode, 400);
      validatorFor('/api/v1/folders', 'post', 400)(invalid.json());
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      validatorFor('/healthz', 'get', 200)(health.json());
    });
  });

  it('docs/api.md stands alone: its links stay inside the repository', () => {
    const guide = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    assert.match(guide, /GET \/api\/v1\/openapi\.json/);
    const targets = [...guide.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    assert.ok(targets.length > 0);
    for (const target of targets) {
      assert.doesNotMatch(target, /^([a-z][a-z0-9+.-]*:|\/\/)/i, `external link ${target}`);
      const file = target.split('#')[0]!;
      if (file) assert.ok(existsSync(new URL(`../../docs/${file}`, import.meta.url)), `broken link ${target}`);
    }
  });

  it('/docs renders the same document', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    const json = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(json.statusCode, 200);
    assert.deepEqual(json.json(), doc);
  });
});
