// Writes src/generated/api-types.ts from the OpenAPI document.
//   node packages/sdk/scripts/generate-types.ts                 # builds the service in this repository in-process
//   node packages/sdk/scripts/generate-types.ts --from <url|file>  # any running service or a saved document
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderOperationTypes } from './openapi-to-ts.ts';

const OUTPUT = new URL('../src/generated/api-types.ts', import.meta.url);

const { values } = parseArgs({ options: { from: { type: 'string' } } });
const doc = values.from ? await loadFrom(values.from) : await loadFromRepository();
await writeFile(OUTPUT, renderOperationTypes(doc));
console.log(`wrote ${OUTPUT.pathname}`);

async function loadFrom(source: string): Promise<Record<string, unknown>> {
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source);
    if (!res.ok) throw new Error(`${source} answered ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  }
  return JSON.parse(await readFile(source, 'utf8')) as Record<string, unknown>;
}

// The service of this repository on a throwaway SQLite store; the paths are built so that the SDK
// package itself never imports the service.
async function loadFromRepository(): Promise<Record<string, unknown>> {
  const root = new URL('../../../src/', import.meta.url);
  const { loadConfig } = await import(new URL('config/config.ts', root).href);
  const { createContainer } = await import(new URL('container.ts', root).href);
  const { buildApp } = await import(new URL('app.ts', root).href);
  const dataDir = await mkdtemp(join(tmpdir(), 'sdk-types-'));
  const container = await createContainer(
    loadConfig({ DATA_DIR: dataDir, ADMIN_API_KEY: 'generate-types-admin-key-000', LOG_LEVEL: 'silent' }),
  );
  try {
    const app = await buildApp(container, { logger: false });
    await app.ready();
    const res = await app.inject({ url: '/api/v1/openapi.json' });
    await app.close();
    return res.json();
  } finally {
    await container.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
