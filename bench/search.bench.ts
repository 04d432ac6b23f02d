/*
 * Search latency at scale (issue 12): N documents of ~300 words (bench/search-corpus.ts: Zipf over a
 * 50k-word vocabulary) in one tenant, inserted straight into the tables (documents, document_contents,
 * document_chunks: the search triggers index them as in production), chunked as the pipeline chunks
 * (~3 passages a document) and embedded with the real local provider (hashed features and GloVe word
 * vectors, 484 dims; the synthetic words have no word vectors, so soft matching finds no neighbours).
 * Zipf-distributed two-word queries, timed through the HTTP API (`app.inject`: auth, rate limit,
 * validation, search, credits, serialisation), after a warm-up:
 *
 *   naive keyword: the FTS5 `bm25()` top-20 over the index alone (no tenant, visibility or snippet), for reference;
 *   keyword: GET /search?mode=text; semantic: GET /search?mode=semantic; hybrid: POST /search/hybrid.
 *
 * Run: npm run bench search.bench   (SEARCH_BENCH_DOCS=10000 for a quick run; SEARCH_BENCH_DIALECTS=sqlite,postgres;
 * SEARCH_BENCH_PG_DOCS caps the PostgreSQL corpus, default 20,000; SEARCH_BENCH_QUERIES, default 300)
 *
 * The seeded store is kept under SEARCH_BENCH_CACHE (default <tmp>/docuvault-search-bench): the SQLite
 * file, or a PostgreSQL template database, per dialect and size; later runs start from a copy
 * (seeding 100k documents takes many minutes). SEARCH_BENCH_FRESH=1 seeds again; SEARCH_BENCH_SEED_ONLY=1
 * stops after seeding.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import type { DialectName } from '../src/db/database.ts';
import { chunkText } from '../src/providers/ai/chunking.ts';
import { createAiProvider } from '../src/providers/ai/create-ai-provider.ts';
import { vectorToBytes } from '../src/lib/vectors.ts';
import { startTestApp, type TestApp } from '../test/support/app.ts';
import { postgresAdminUrl } from '../test/support/databases.ts';
import { documentRow } from '../test/support/document-rows.ts';
import { corpus } from './search-corpus.ts';
import { percentile } from './support.ts';

interface Timing {
  p50Ms: number;
  p99Ms: number;
}

function timing(times: number[]): Timing {
  return { p50Ms: Number(percentile(times, 50).toFixed(2)), p99Ms: Number(percentile(times, 99).toFixed(2)) };
}

/** One document in SAMPLE_EVERY is kept (with the corpus's document frequencies) for the rare-word check. */
const SAMPLE_EVERY = 500;

interface Seeded {
  seconds: number;
  passages: number;
  samples: { id: string; text: string }[];
  documentFrequency: Map<string, number>;
}

/** The distinct lower-cased words of a text. */
function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z]+/g) ?? []);
}

async function seed(t: TestApp, tenantId: string, documents: number): Promise<Seeded> {
  const started = performance.now();
  const samples: Seeded['samples'] = [];
  const documentFrequency = new Map<string, number>();
  const c = corpus();
  const ai = createAiProvider({ provider: 'local', threaded: false, openai: {} as never });
  const model = `${ai.embeddingModel}:${ai.embeddingDimensions}`;
  const db = t.container.database.db;
  const batch = 250;
  let passages = 0;
  const base = Date.UTC(2025, 0, 1);
  for (let from = 0; from < documents; from += batch) {
    const texts: { id: string; text: string }[] = [];
    for (let i = from; i < Math.min(documents, from + batch); i++)
      texts.push({ id: `doc_${String(i).padStart(7, '0')}`, text: c.document() });
    for (const [i, d] of texts.entries()) {
      for (const w of wordsOf(d.text)) documentFrequency.set(w, (documentFrequency.get(w) ?? 0) + 1);
      if ((from + i) % SAMPLE_EVERY === 0) samples.push(d);
    }
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('documents')
        .values(
          texts.map((d, i) =>
            documentRow(tenantId, d.id, { created_at: base + (from + i) * 60_000, updated_at: base }),
          ),
        )
        .execute();
      await trx
        .insertInto('document_contents')
        .values(
          texts.map((d) => ({
            document_id: d.id,
            tenant_id: tenantId,
            content: d.text,
            pages: null,
            page_texts: null,
            created_at: base,
          })),
        )
        .execute();
      const rows = [];
      for (const d of texts) {
        const chunks = chunkText(d.text);
        const vectors = await ai.embed(
          chunks.map((ch) => ch.text),
          { purpose: 'document' },
        );
        for (const [i, ch] of chunks.entries()) {
          rows.push({
            document_id: d.id,
            chunk_index: ch.index,
            tenant_id: tenantId,
            page: null,
            text: ch.text,
            embedding: vectorToBytes(vectors[i]!),
            embedding_model: model,
            created_at: base,
          });
        }
      }
      passages += rows.length;
      for (let i = 0; i < rows.length; i += 400)
        await trx
          .insertInto('document_chunks')
          .values(rows.slice(i, i + 400))
          .execute();
    });
  }
  return { seconds: Number(((performance.now() - started) / 1000).toFixed(1)), passages, samples, documentFrequency };
}

/**
 * Issue 12: a keyword query made of a document's own two rarest words (fewest documents holding
 * them in the corpus) should find that document first at least 95 % of the time.
 */
async function rareWordsFirst(seeded: Seeded, search: (q: string) => Promise<string[]>) {
  let first = 0;
  for (const sample of seeded.samples) {
    const rare = [...wordsOf(sample.text)]
      .sort(
        (a, b) => (seeded.documentFrequency.get(a) ?? 0) - (seeded.documentFrequency.get(b) ?? 0) || (a < b ? -1 : 1),
      )
      .slice(0, 2);
    const ids = await search(rare.join(' '));
    if (ids[0] === sample.id) first++;
  }
  return {
    queries: seeded.samples.length,
    foundFirst: Number((first / Math.max(1, seeded.samples.length)).toFixed(3)),
    target: 0.95,
  };
}

/** Memory of this process (after a collection when the bench runs with --expose-gc). */
function memory() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.arrayBuffers };
}

function memoryDelta(before: ReturnType<typeof memory>, after: ReturnType<typeof memory>) {
  return {
    rssMB: Math.round((after.rss - before.rss) / 2 ** 20),
    heapAndBuffersMB: Math.round((after.heap - before.heap) / 2 ** 20),
  };
}

/** Waits for the tenant's keyword snapshot (written in the background after a load); its size in MB, or null. */
async function waitForSnapshot(t: TestApp, tenantId: string) {
  const started = performance.now();
  for (let i = 0; i < 1200; i++) {
    const rows = await t.container.database.db
      .selectFrom('search_snapshots')
      .select(['data'])
      .where('tenant_id', '=', tenantId)
      .execute();
    if (rows.length > 0)
      return {
        mb: Number((rows.reduce((n, r) => n + r.data.length, 0) / 2 ** 20).toFixed(1)),
        waitedMs: Math.round(performance.now() - started),
      };
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

async function timeAll(queries: string[], warmup: number, call: (q: string) => Promise<void>): Promise<Timing> {
  for (const q of queries.slice(0, warmup)) await call(q);
  const times: number[] = [];
  for (const q of queries) {
    const started = performance.now();
    await call(q);
    times.push(performance.now() - started);
  }
  return timing(times);
}

const CACHE_DIR = process.env['SEARCH_BENCH_CACHE'] ?? path.join(os.tmpdir(), 'docuvault-search-bench');

interface SeedMeta {
  tenantId: string;
  apiKey: string;
  passages: number;
  seedSeconds: number;
}

/** The corpus's documents replayed without storing them: the rare-word samples and document frequencies. */
function replayCorpus(documents: number): Pick<Seeded, 'samples' | 'documentFrequency'> {
  const c = corpus();
  const samples: Seeded['samples'] = [];
  const documentFrequency = new Map<string, number>();
  for (let i = 0; i < documents; i++) {
    const text = c.document();
    for (const w of wordsOf(text)) documentFrequency.set(w, (documentFrequency.get(w) ?? 0) + 1);
    if (i % SAMPLE_EVERY === 0) samples.push({ id: `doc_${String(i).padStart(7, '0')}`, text });
  }
  return { samples, documentFrequency };
}

async function pgAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: (await postgresAdminUrl())! });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function pgUrl(database: string): Promise<string> {
  const u = new URL((await postgresAdminUrl())!);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * The seeded store of this dialect and size, made once (SQLite file or PostgreSQL template in the
 * cache) and copied for each run, so runs start from the same data and a run's writes (credits,
 * caches) never reach the cache.
 */
async function seededApp(
  dialect: DialectName,
  documents: number,
): Promise<{ start: () => Promise<TestApp>; meta: SeedMeta; cleanup: () => Promise<void> }> {
  const metaFile = path.join(CACHE_DIR, `${dialect}-${documents}.json`);
  const sqliteDir = path.join(CACHE_DIR, `sqlite-${documents}`);
  const template = `dv_search_bench_${documents}`;
  const fresh = process.env['SEARCH_BENCH_FRESH'] === '1';
  if (fresh || !fs.existsSync(metaFile)) {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    fs.rmSync(metaFile, { force: true });
    let env: Record<string, string>;
    if (dialect === 'sqlite') {
      fs.rmSync(sqliteDir, { recursive: true, force: true });
      env = { DATA_DIR: sqliteDir };
    } else {
      await pgAdmin(async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${template}`);
      });
      env = { DATABASE_URL: await pgUrl(template) };
    }
    const t = await startTestApp(dialect, { env });
    try {
      const created = await t.admin({
        method: 'POST',
        url: '/api/v1/admin/tenants',
        payload: {
          name: 'Bench',
          subdomain: `search-bench-${dialect}`,
          tier: 'enterprise',
          owner: { email: 's@example.com', password: 'bench password 1', name: 'S' },
        },
      });
      const { tenant, api_key } = created.json() as { tenant: { id: string }; api_key: string };
      const seeded = await seed(t, tenant.id, documents);
      if (dialect === 'postgres') await t.container.database.pgPool!.query('VACUUM ANALYZE');
      else await sql`ANALYZE`.execute(t.container.database.db);
      const meta: SeedMeta = {
        tenantId: tenant.id,
        apiKey: api_key,
        passages: seeded.passages,
        seedSeconds: seeded.seconds,
      };
      fs.writeFileSync(metaFile, JSON.stringify(meta));
    } finally {
      await t.close();
    }
  }
  const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as SeedMeta;
  if (dialect === 'sqlite') {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dv-search-bench-'));
    for (const f of fs.readdirSync(sqliteDir))
      if (f.startsWith('service.db')) fs.copyFileSync(path.join(sqliteDir, f), path.join(work, f));
    return {
      start: () => startTestApp(dialect, { env: { DATA_DIR: work } }),
      meta,
      cleanup: async () => fs.rmSync(work, { recursive: true, force: true }),
    };
  }
  const copy = `dv_search_bench_run_${process.pid}`;
  await pgAdmin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${copy} TEMPLATE ${template}`);
  });
  const url = await pgUrl(copy);
  return {
    start: () => startTestApp(dialect, { env: { DATABASE_URL: url } }),
    meta,
    cleanup: () => pgAdmin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`))),
  };
}

async function runDialect(dialect: DialectName, documents: number, queryCount: number) {
  const { start, meta, cleanup } = await seededApp(dialect, documents);
  if (process.env['SEARCH_BENCH_SEED_ONLY'] === '1') {
    await cleanup();
    return { dialect, documents, seeded: meta };
  }
  let t = await start();
  try {
    const headers = { 'x-api-key': meta.apiKey };
    const seeded: Seeded = { seconds: meta.seedSeconds, passages: meta.passages, ...replayCorpus(documents) };
    const c = corpus();
    const queries = Array.from({ length: queryCount }, () => c.query());
    const get = async (url: string) => {
      const res = await t.app.inject({ url, headers });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    };

    const naiveSql =
      dialect === 'sqlite'
        ? (q: string) =>
            sql`select rowid, bm25(search_text) as r from search_text where search_text match ${q
              .split(' ')
              .map((w) => `"${w}"`)
              .join(' ')} order by r limit 20`
        : (q: string) =>
            sql`select document_id, ts_rank_cd(tsv, query) as r from search_documents, plainto_tsquery('docuvault_search', ${q}) query where tsv @@ query order by r desc limit 20`;
    const naive = await timeAll(queries, 20, async (q) => {
      await naiveSql(q).execute(t.container.database.db);
    });
    // The first keyword search of the tenant ever reads and tokenises every document's text (the
    // in-memory keyword index); the index is then saved as a snapshot, and the first search after a
    // restart loads that instead.
    const timed = async (url: string) => {
      const started = performance.now();
      await get(url);
      return Number((performance.now() - started).toFixed(0));
    };
    const heapBefore = memory();
    const keywordColdLoadMs = await timed(`/api/v1/search?mode=text&q=${encodeURIComponent(queries[0]!)}`);
    const keywordIndexMemory = memoryDelta(heapBefore, memory());
    const snapshotSaved = await waitForSnapshot(t, meta.tenantId);
    await t.close();
    const restartStarted = performance.now();
    t = await start();
    const restartMs = Number((performance.now() - restartStarted).toFixed(0));
    const keywordRestartLoadMs = await timed(`/api/v1/search?mode=text&q=${encodeURIComponent(queries[1]!)}`);
    const keyword = await timeAll(queries, 20, (q) => get(`/api/v1/search?mode=text&q=${encodeURIComponent(q)}`));
    // Soft matching and the local query vectors wait for the word vectors (read in the background at start).
    for (
      let i = 0;
      i < 200 && (await t.app.inject({ url: '/health' })).json().capabilities.word_vectors.state !== 'ready';
      i++
    )
      await new Promise((r) => setTimeout(r, 50));

    const coldStart = performance.now();
    await get(`/api/v1/search?mode=semantic&q=${encodeURIComponent(queries[0]!)}`);
    const semanticColdLoadMs = Number((performance.now() - coldStart).toFixed(0));
    const semantic = await timeAll(queries, 5, (q) => get(`/api/v1/search?mode=semantic&q=${encodeURIComponent(q)}`));
    const hybrid = await timeAll(queries, 5, async (q) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/search/hybrid', headers, payload: { query: q } });
      if (res.statusCode !== 200) throw new Error(`hybrid: ${res.statusCode} ${res.body}`);
    });
    const rareWords = await rareWordsFirst(seeded, async (q) => {
      const res = await t.app.inject({ url: `/api/v1/search?mode=text&limit=5&q=${encodeURIComponent(q)}`, headers });
      return (res.json() as { results: { document: { id: string } }[] }).results.map((r) => r.document.id);
    });
    return {
      dialect,
      documents,
      passages: seeded.passages,
      seedSeconds: seeded.seconds,
      queries: queryCount,
      naiveKeyword: naive,
      keywordColdLoadMs,
      keywordIndexMemory,
      snapshotSaved,
      restartMs,
      keywordRestartLoadMs,
      keyword,
      semanticColdLoadMs,
      semantic,
      hybrid,
      rareWords,
    };
  } finally {
    await t.close();
    await cleanup();
  }
}

export async function run() {
  const documents = Number(process.env['SEARCH_BENCH_DOCS'] ?? 100_000);
  const pgDocuments = Math.min(documents, Number(process.env['SEARCH_BENCH_PG_DOCS'] ?? 20_000));
  const queries = Number(process.env['SEARCH_BENCH_QUERIES'] ?? 300);
  const dialects = (process.env['SEARCH_BENCH_DIALECTS'] ?? 'sqlite').split(',') as DialectName[];
  const results = [];
  for (const dialect of dialects)
    results.push(await runDialect(dialect, dialect === 'postgres' ? pgDocuments : documents, queries));
  return results;
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
