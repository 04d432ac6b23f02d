/**
 * Lints the OpenAPI document the service serves (`GET /api/v1/openapi.json`) with the two linters
 * client authors run: Spectral's `spectral:oas` ruleset and redocly's `recommended`. Any finding,
 * warnings included, fails. `npm run lint` runs this; test/http/openapi-lint.test.ts uses the same
 * functions. Offline: the document has no remote `$ref`s and both rulesets ship in their packages.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { createContainer } from '../src/container.ts';
import { migrateToLatest } from '../src/db/migrator.ts';

type Json = Record<string, unknown>;

// The Spectral packages are CommonJS: their named exports come through the default export.
const { Document, Spectral } = spectralCore;
const { Json: JsonParser } = spectralParsers;
const { oas } = spectralRulesets;

/** The served document of a service on a throwaway embedded store. */
export async function servedOpenApiDocument(): Promise<Json> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'dms-openapi-'));
  const container = await createContainer(
    loadConfig({ DATA_DIR: dataDir, ADMIN_API_KEY: 'openapi-lint-admin-key', LOG_LEVEL: 'silent' }),
  );
  try {
    await migrateToLatest(container.database.db);
    const app = await buildApp(container, { logger: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.statusCode}`);
      return res.json() as Json;
    } finally {
      await app.close();
    }
  } finally {
    await container.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Spectral `spectral:oas` (its recommended rules, as `spectral lint` with `extends: spectral:oas`). */
export async function spectralFindings(doc: Json): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas as never] });
  const results = await spectral.run(new Document(JSON.stringify(doc), JsonParser, 'openapi.json'));
  const severity = ['error', 'warning', 'info', 'hint'];
  return results.map(
    (r) => `spectral ${r.code} (${severity[r.severity] ?? r.severity}): ${r.message} at /${r.path.join('/')}`,
  );
}

/** redocly `recommended`, as `redocly lint` runs it. */
export async function redoclyFindings(doc: Json): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
  return problems.map((p) => `redocly ${p.ruleId} (${p.severity}): ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
}

if (import.meta.main) {
  const doc = await servedOpenApiDocument();
  const findings = [...(await spectralFindings(doc)), ...(await redoclyFindings(doc))];
  const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
  const operations = Object.values(doc['paths'] as Record<string, Json>).reduce(
    (n, item) => n + Object.keys(item).filter((m) => methods.has(m)).length,
    0,
  );
  if (findings.length > 0) {
    console.error(`openapi: ${findings.length} finding(s)\n${findings.map((f) => `  ${f}`).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log(`openapi: ${operations} operations, clean under spectral:oas and redocly recommended`);
  }
}
