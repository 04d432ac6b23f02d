/*
 * Paired A/B of search latency at 100k documents (issue 31 item 2): the committed code of another
 * checkout (SEARCH_AB_BASE, e.g. /work/main) and this one, as two apps in one process over two
 * copies of the same seeded store (the cache bench/search.bench.ts builds: run it once with
 * SEARCH_BENCH_SEED_ONLY=1), each query sent to both in alternating order so that both see the same
 * load. Prints p50 / p99 per mode and side, and whether both answered the same documents and scores.
 *
 *   SEARCH_AB_BASE=/work/main SEARCH_BENCH_CACHE=/var/tmp/dv-search-bench SEARCH_BENCH_DIALECTS=postgres \
 *     node bench/search-ab.ts          (SEARCH_BENCH_DOCS, default 100,000; SEARCH_BENCH_QUERIES, default 150)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DialectName } from '../src/db/database.ts';
import type { TestApp } from '../test/support/app.ts';
import { startTestApp } from '../test/support/app.ts';
import { postgresAdminUrl } from '../test/support/databases.ts';
import { corpus, stopWordQuery } from './search-corpus.ts';
import { percentile } from './support.ts';

const CACHE_DIR = process.env['SEARCH_BENCH_CACHE'] ?? path.join(os.tmpdir(), 'docuvault-search-bench');
const DOCS = Number(process.env['SEARCH_BENCH_DOCS'] ?? 100_000);
const QUERIES = Number(process.env['SEARCH_BENCH_QUERIES'] ?? 150);
/** The PostgreSQL database copied for each side (default the seeded template; e.g. a copy holding the keyword snapshot already). */
const TEMPLATE = process.env['SEARCH_BENCH_TEMPLATE'] ?? `dv_search_bench_${DOCS}`;
const BASE = process.env['SEARCH_AB_BASE'];
/** Modes compared: `stopwords` is keyword search with queries of stop words only (bench/search-corpus.ts). */
const MODES = (process.env['SEARCH_AB_MODES'] ?? 'text,semantic,hybrid,stopwords').split(',');

type Start = (dialect: DialectName, options: { env: Record<string, string> }) => Promise<TestApp>;

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: (await postgresAdminUrl())! });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** A copy of the seeded store for one side; its environment and how to drop it. */
async function copyOf(
  dialect: DialectName,
  side: string,
): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const from = path.join(CACHE_DIR, `sqlite-${DOCS}`);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), `dv-search-ab-${side}-`));
    for (const f of fs.readdirSync(from))
      if (f.startsWith('service.db')) fs.copyFileSync(path.join(from, f), path.join(work, f));
    return { env: { DATA_DIR: work }, drop: async () => fs.rmSync(work, { recursive: true, force: true }) };
  }
  const name = `dv_search_ab_${side}_${process.pid}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`));
  const u = new URL((await postgresAdminUrl())!);
  u.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: u.toString() },
    drop: () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

interface Answer {
  ids: string[];
  scores: number[];
  highlights: string[];
}

async function runDialect(dialect: DialectName) {
  const meta = JSON.parse(fs.readFileSync(path.join(CACHE_DIR, `${dialect}-${DOCS}.json`), 'utf8')) as {
    apiKey: string;
  };
  const base = (await import(path.join(BASE!, 'test/support/app.ts'))) as { startTestApp: Start };
  const sides: { name: string; start: Start }[] = [
    { name: 'before', start: base.startTestApp },
    { name: 'after', start: startTestApp },
  ];
  // One copy at a time: PostgreSQL copies a template only while nothing else reads it.
  const copies: Awaited<ReturnType<typeof copyOf>>[] = [];
  for (const s of sides) copies.push(await copyOf(dialect, s.name));
  const apps: TestApp[] = [];
  try {
    for (const [i, s] of sides.entries()) apps.push(await s.start(dialect, { env: copies[i]!.env }));
    const headers = { 'x-api-key': meta.apiKey };
    const c = corpus();
    const queries = Array.from({ length: QUERIES }, () => c.query());
    const call = async (t: TestApp, mode: string, q: string): Promise<Answer> => {
      const res =
        mode === 'hybrid'
          ? await t.app.inject({ method: 'POST', url: '/api/v1/search/hybrid', headers, payload: { query: q } })
          : await t.app.inject({
              url: `/api/v1/search?mode=${mode === 'stopwords' ? 'text' : mode}&q=${encodeURIComponent(q)}`,
              headers,
            });
      if (res.statusCode !== 200) throw new Error(`${mode}: ${res.statusCode} ${res.body}`);
      const results = (res.json() as { results: { document: { id: string }; score: number; highlight: string }[] })
        .results;
      return {
        ids: results.map((r) => r.document.id),
        scores: results.map((r) => r.score),
        highlights: results.map((r) => r.highlight),
      };
    };
    // Warm-up: the keyword index (from the texts) and the vectors, then a few of each mode.
    for (const t of apps) {
      await call(t, 'text', queries[0]!);
      for (
        let i = 0;
        i < 200 && (await t.app.inject({ url: '/health' })).json().capabilities.word_vectors.state !== 'ready';
        i++
      )
        await new Promise((r) => setTimeout(r, 50));
      await call(t, 'semantic', queries[0]!);
    }
    const out: Record<string, unknown> = { dialect, documents: DOCS, queries: QUERIES, loadBefore: os.loadavg()[0] };
    const stopQueries = Array.from({ length: QUERIES }, (_, i) => stopWordQuery(i));
    for (const mode of MODES) {
      const set = mode === 'stopwords' ? stopQueries : queries;
      for (const q of set.slice(0, 10)) for (const t of apps) await call(t, mode, q);
      const times: number[][] = apps.map(() => []);
      let sameDocuments = 0;
      let sameHighlights = 0;
      let example: [string, string] | undefined;
      for (const [n, q] of set.entries()) {
        const order = n % 2 === 0 ? [0, 1] : [1, 0];
        const answers: Answer[] = [];
        for (const i of order) {
          const started = performance.now();
          answers[i] = await call(apps[i]!, mode, q);
          times[i]!.push(performance.now() - started);
        }
        const [a, b] = answers as [Answer, Answer];
        if (JSON.stringify([a.ids, a.scores]) === JSON.stringify([b.ids, b.scores])) sameDocuments++;
        if (JSON.stringify(a.highlights) === JSON.stringify(b.highlights)) sameHighlights++;
        example ??= a.highlights.length > 0 ? [a.highlights[0]!, b.highlights[0]!] : undefined;
      }
      out[mode] = Object.fromEntries([
        ...sides.map((s, i) => [
          s.name,
          `${percentile(times[i]!, 50).toFixed(1)} / ${percentile(times[i]!, 99).toFixed(1)} ms`,
        ]),
        ['sameDocumentsAndScores', `${sameDocuments}/${set.length}`],
        ['sameHighlights', `${sameHighlights}/${set.length}`],
        ['firstHighlight', example],
      ]);
    }
    out['loadAfter'] = os.loadavg()[0];
    return out;
  } finally {
    for (const t of apps) await t.close();
    for (const c of copies) await c.drop();
  }
}

if (!BASE) throw new Error('SEARCH_AB_BASE: the checkout to compare against (e.g. /work/main)');
const dialects = (process.env['SEARCH_BENCH_DIALECTS'] ?? 'postgres').split(',') as DialectName[];
for (const d of dialects) console.log(JSON.stringify(await runDialect(d), null, 2));
