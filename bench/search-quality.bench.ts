/*
 * Retrieval quality of every search mode (text, semantic, hybrid, auto) beside a plain BM25
 * baseline computed in the same run (FTS5's bm25() over the same documents, every query word
 * required, any of them when no document holds all — keyword search as it was), with the local AI
 * provider: top-1, recall@3 and MRR (over the top 10), for keyword queries and paraphrases, per
 * split (`tune`: what the knobs were chosen on; `holdout`: reported apart, never tuned on).
 *
 * Documents are uploaded (in their formats) and processed through the real pipeline; see
 * `labelledSet` for the sets.
 *
 *   npm run bench search-quality
 *   SEARCH_QUALITY_GRID='SEARCH_SOFT_THRESHOLD=0.5,0.55;SEARCH_VECTOR_WEIGHT=0.2,0.3' npm run bench search-quality
 *
 * The grid loads the documents once, then runs the `tune` split once per combination of settings
 * (a fresh app over the same store each) and prints the paraphrase and keyword figures of each, best first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Kysely, sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { createContainer } from '../src/container.ts';
import type { DB } from '../src/db/schema.ts';
import type { App } from '../src/http/fastify-types.ts';
import { parseQuery } from '../src/modules/search/query-syntax.ts';
import { SqliteKeywordEngine } from '../src/modules/search/sqlite-keyword.ts';
import { uploadOk } from '../test/modules/documents/helpers.ts';
import { waitFor } from '../test/jobs/helpers.ts';
import { loadManifest, renderCorpusDocument } from '../test/fixtures/corpus/render.ts';
import { ADMIN_KEY, startTestApp, type TestApp } from '../test/support/app.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures');

/** Documents and queries; each `group` is loaded into a tenant of its own (sets labelled apart do not compete). */
export interface LabelledSet {
  documents: { id: string; split: string; group: string; upload: () => Promise<{ filename: string; bytes: Buffer }> }[];
  queries: { q: string; kind: string; relevant: string[]; split: string; group: string }[];
}

type Json = Record<string, unknown>;
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Json;

/**
 * The labelled corpus (test/fixtures/corpus: documents in their upload formats, keyword-queries.json,
 * and paraphrase-queries.json once written; until then the paraphrases of
 * test/fixtures/search/paraphrase-set.json, matched to corpus documents by their origin), with the
 * retrieval set (test/fixtures/search/retrieval-set.json) as a second tenant, split `tune`.
 */
export function labelledSet(): LabelledSet {
  const manifest = loadManifest();
  const splitOf = new Map(manifest.map((d) => [d.id, d.split as string]));
  const documents: LabelledSet['documents'] = manifest.map((entry) => ({
    id: entry.id,
    split: entry.split,
    group: 'corpus',
    upload: async () => {
      const r = await renderCorpusDocument(entry);
      return { filename: r.filename, bytes: r.bytes };
    },
  }));
  const queries: LabelledSet['queries'] = [];
  const corpusQueries = (file: string, kind: string) => {
    const raw = readJson(path.join(FIXTURES, 'corpus', file));
    for (const q of (raw['queries'] ?? []) as {
      q?: string;
      query?: string;
      relevant?: string[];
      document?: string;
      split?: string;
    }[]) {
      const relevant = q.relevant ?? (q.document ? [q.document] : []);
      queries.push({
        q: q.q ?? q.query ?? '',
        kind,
        relevant,
        split: q.split ?? splitOf.get(relevant[0]!) ?? 'tune',
        group: 'corpus',
      });
    }
  };
  corpusQueries('keyword-queries.json', 'keyword');
  if (fs.existsSync(path.join(FIXTURES, 'corpus/paraphrase-queries.json')))
    corpusQueries('paraphrase-queries.json', 'paraphrase');
  else {
    const set = readJson(path.join(FIXTURES, 'search/paraphrase-set.json')) as {
      documents: { id: string; file: string }[];
      queries: { q: string; kind: string; relevant: string[] }[];
    };
    // Origins read "test/fixtures/quality/x.txt", sometimes with a note after the path.
    const byOrigin = new Map(manifest.filter((d) => d.origin).map((d) => [d.origin!.split(' ')[0]!, d.id]));
    const corpusId = new Map(set.documents.map((d) => [d.id, byOrigin.get(`test/fixtures/${d.file}`)]));
    for (const q of set.queries) {
      const relevant = q.relevant.map((r) => corpusId.get(r)).filter((r): r is string => r !== undefined);
      if (q.kind === 'paraphrase' && relevant.length > 0)
        queries.push({ q: q.q, kind: q.kind, relevant, split: splitOf.get(relevant[0]!)!, group: 'corpus' });
    }
  }
  const retrieval = readJson(path.join(FIXTURES, 'search/retrieval-set.json')) as {
    documents: { id: string; text: string }[];
    queries: { q: string; kind: string; relevant: string[] }[];
  };
  for (const d of retrieval.documents)
    documents.push({
      id: d.id,
      split: 'tune',
      group: 'retrieval',
      upload: async () => ({ filename: `${d.id}.txt`, bytes: Buffer.from(d.text) }),
    });
  for (const q of retrieval.queries)
    queries.push({ q: q.q, kind: q.kind, relevant: q.relevant, split: 'tune', group: 'retrieval' });
  return { documents, queries };
}

const MODES = ['bm25', 'text', 'semantic', 'hybrid', 'auto'] as const;
type Mode = (typeof MODES)[number];
interface Figures {
  top1: number;
  recallAt3: number;
  mrr: number;
  queries: number;
}

/** Uploads the set into a new tenant and waits for processing; returns the tenant's key and the id map. */
async function load(
  t: TestApp,
  set: LabelledSet,
  group: string,
): Promise<{ headers: Record<string, string>; tenantId: string; labelOf: Map<string, string> }> {
  const created = await t.admin({
    method: 'POST',
    url: '/api/v1/admin/tenants',
    payload: {
      name: `Quality ${group}`,
      subdomain: `search-quality-${group}`,
      tier: 'enterprise',
      owner: { email: `${group}@example.com`, password: 'bench password 1', name: 'Q' },
    },
  });
  const body = created.json() as { api_key: string; tenant: { id: string } };
  const headers = { 'x-api-key': body.api_key };
  const labelOf = new Map<string, string>();
  for (const d of set.documents.filter((x) => x.group === group)) {
    const { filename, bytes } = await d.upload();
    labelOf.set(await uploadOk(t, headers, { filename, content: bytes }), d.id);
  }
  // Generous: PDFs and DOCX files on a loaded machine.
  for (const id of labelOf.keys()) {
    await waitFor(
      async () => {
        const doc = await t.container.database.db
          .selectFrom('documents')
          .select(['status', 'ai_status'])
          .where('id', '=', id)
          .executeTakeFirst();
        return doc?.status === 'completed' && !['queued', 'processing'].includes(doc.ai_status);
      },
      `document ${id} processed`,
      600_000,
    );
  }
  return { headers, tenantId: body.tenant.id, labelOf };
}

type Tenant = Awaited<ReturnType<typeof load>>;
/** What a measurement runs against: an app over the loaded store, and its database (the BM25 baseline). */
interface Target {
  app: App;
  db: Kysely<DB>;
}

/** The ranked labels a mode answers for a query. */
async function ranked(t: Target, tenant: Tenant, mode: Mode, q: string): Promise<string[]> {
  let ids: string[];
  if (mode === 'bm25') {
    const engine = new SqliteKeywordEngine();
    const clauses = parseQuery(q);
    const base = { tenantId: tenant.tenantId, clauses, document: () => sql<boolean>`1 = 1`, limit: 10 };
    let hits = await engine.search(t.db, { ...base, join: 'all' });
    if (hits.length === 0) hits = await engine.search(t.db, { ...base, join: 'any' });
    ids = hits.map((h) => h.documentId);
  } else {
    const res =
      mode === 'hybrid'
        ? await t.app.inject({
            method: 'POST',
            url: '/api/v1/search/hybrid',
            headers: tenant.headers,
            payload: { query: q, limit: 10 },
          })
        : await t.app.inject({
            url: `/api/v1/search?mode=${mode}&limit=10&q=${encodeURIComponent(q)}`,
            headers: tenant.headers,
          });
    if (res.statusCode !== 200) throw new Error(`${mode} "${q}": ${res.statusCode} ${res.body}`);
    ids = (res.json() as { results: { document: { id: string } }[] }).results.map((r) => r.document.id);
  }
  return ids.map((id) => tenant.labelOf.get(id) ?? id);
}

function figures(rankings: { ranked: string[]; relevant: string[] }[]): Figures {
  let top1 = 0;
  let recall = 0;
  let mrr = 0;
  for (const { ranked: r, relevant } of rankings) {
    const first = r.findIndex((id) => relevant.includes(id));
    if (first === 0) top1++;
    if (first >= 0 && first < 3) recall++;
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const n = rankings.length || 1;
  const round = (x: number) => Number((x / n).toFixed(3));
  return { top1: round(top1), recallAt3: round(recall), mrr: round(mrr), queries: rankings.length };
}

/** Every mode's figures per split and kind, and the queries each mode missed (not in its top 3). */
async function evaluate(t: Target, set: LabelledSet, tenants: Map<string, Tenant>, splits: string[]) {
  // Soft matching waits for nothing: let the word vectors finish loading first.
  for (let i = 0; i < 600 && !JSON.stringify((await t.app.inject({ url: '/health' })).json()).includes('"ready"'); i++)
    await new Promise((r) => setTimeout(r, 50));
  const table: Record<string, Record<string, Record<Mode, Figures>>> = {};
  const misses: Record<string, string[]> = {};
  for (const split of splits) {
    table[split] = {};
    for (const kind of ['keyword', 'paraphrase']) {
      const queries = set.queries.filter((q) => q.kind === kind && q.split === split);
      if (queries.length === 0) continue;
      const row = {} as Record<Mode, Figures>;
      for (const mode of MODES) {
        const rankings = [];
        for (const query of queries) {
          const r = await ranked(t, tenants.get(query.group)!, mode, query.q);
          rankings.push({ ranked: r, relevant: query.relevant });
          if (!r.slice(0, 3).some((id) => query.relevant.includes(id))) {
            const key = `${split}/${kind}/${mode}`;
            misses[key] = [...(misses[key] ?? []), `${query.q} → ${r.slice(0, 3).join(', ') || '(none)'}`];
          }
        }
        row[mode] = figures(rankings);
      }
      table[split]![kind] = row;
    }
  }
  return { table, misses };
}

/** Runs `work` against a second app over the same store, configured with `env` (a grid point: search settings only). */
async function withSettings<T>(
  t: TestApp,
  env: Record<string, string>,
  work: (target: Target) => Promise<T>,
): Promise<T> {
  const config = loadConfig({
    DATA_DIR: t.store.dataDir,
    ...(t.store.url ? { DATABASE_URL: t.store.url } : {}),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const container = await createContainer(config);
  const app = await buildApp(container, { logger: false });
  await app.ready();
  try {
    return await work({ app, db: container.database.db });
  } finally {
    await app.close();
    await container.close();
  }
}

/** The cartesian product of `NAME=a,b;NAME2=c,d`. */
function grid(spec: string): Record<string, string>[] {
  let points: Record<string, string>[] = [{}];
  for (const part of spec.split(';').filter(Boolean)) {
    const [name, values] = part.split('=');
    points = points.flatMap((p) => values!.split(',').map((v) => ({ ...p, [name!.trim()]: v.trim() })));
  }
  return points;
}

export async function run() {
  const set = labelledSet();
  const t = await startTestApp('sqlite', { worker: true });
  try {
    const tenants = new Map<string, Tenant>();
    for (const group of new Set(set.documents.map((d) => d.group))) tenants.set(group, await load(t, set, group));
    const spec = process.env['SEARCH_QUALITY_GRID'];
    if (spec) {
      const results = [];
      for (const env of grid(spec)) {
        const { table } = await withSettings(t, env, (target) => evaluate(target, set, tenants, ['tune']));
        const para = table['tune']?.['paraphrase'];
        const key = table['tune']?.['keyword'];
        results.push({
          env,
          paraphrase: { semantic: para?.semantic, hybrid: para?.hybrid },
          keywordTop1: { text: key?.text.top1, semantic: key?.semantic.top1, hybrid: key?.hybrid.top1 },
        });
        process.stderr.write(`${JSON.stringify(results.at(-1))}\n`);
      }
      results.sort(
        (a, b) =>
          (b.paraphrase.semantic?.recallAt3 ?? 0) +
          (b.paraphrase.hybrid?.recallAt3 ?? 0) -
          (a.paraphrase.semantic?.recallAt3 ?? 0) -
          (a.paraphrase.hybrid?.recallAt3 ?? 0),
      );
      return { grid: results };
    }
    const splits = [...new Set(set.queries.map((q) => q.split))].sort((a, b) =>
      a === 'tune' ? -1 : b === 'tune' ? 1 : a.localeCompare(b),
    );
    const { table, misses } = await evaluate({ app: t.app, db: t.container.database.db }, set, tenants, splits);
    return {
      documents: set.documents.length,
      queries: set.queries.length,
      provider: 'local',
      table,
      ...(process.env['SEARCH_QUALITY_MISSES'] ? { misses } : {}),
    };
  } finally {
    await t.close();
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
