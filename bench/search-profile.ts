/*
 * Where a search request's time goes (issue 31 item 2, docs/search.md "Where a request's time
 * goes"): one app over a copy of the seeded store (the cache bench/search.bench.ts builds; run it
 * once with SEARCH_BENCH_SEED_ONLY=1), Zipf two-word queries per mode through the HTTP API, and per
 * request the time of every SQL statement (timed at the driver) and of each phase of the service
 * (wrapped methods: they nest, so phases overlap). Prints per mode the end-to-end p50 / p99 and,
 * per phase or statement kind, calls per request and the p50 / p99 of its per-request sum.
 *
 *   SEARCH_BENCH_CACHE=/var/tmp/dv-search-bench SEARCH_BENCH_DIALECTS=postgres node bench/search-profile.ts
 *     (SEARCH_BENCH_DOCS, default 100,000; SEARCH_BENCH_QUERIES, default 100; SEARCH_PROFILE_MODES,
 *     default text,semantic,hybrid,stopwords)
 *
 * A loaded machine inflates every figure: read the shares and the counts, and compare runs in the
 * same session.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DialectName } from '../src/db/database.ts';
import { LexicalIndex } from '../src/modules/search/lexical-index.ts';
import { PostgresKeywordEngine } from '../src/modules/search/postgres-keyword.ts';
import { SearchService } from '../src/modules/search/search.service.ts';
import { startTestApp } from '../test/support/app.ts';
import { postgresAdminUrl } from '../test/support/databases.ts';
import { corpus, stopWordQuery } from './search-corpus.ts';
import { percentile } from './support.ts';

const CACHE_DIR = process.env['SEARCH_BENCH_CACHE'] ?? path.join(os.tmpdir(), 'docuvault-search-bench');
const DOCS = Number(process.env['SEARCH_BENCH_DOCS'] ?? 100_000);
const QUERIES = Number(process.env['SEARCH_BENCH_QUERIES'] ?? 100);
/** The PostgreSQL database copied for each side (default the seeded template; e.g. a copy holding the keyword snapshot already). */
const TEMPLATE = process.env['SEARCH_BENCH_TEMPLATE'] ?? `dv_search_bench_${DOCS}`;
const MODES = (process.env['SEARCH_PROFILE_MODES'] ?? 'text,semantic,hybrid,stopwords').split(',');

/** Per request: phase or statement kind → [calls, milliseconds]. */
let current: Map<string, [number, number]> | null = null;
function record(name: string, ms: number) {
  if (!current) return;
  const entry = current.get(name) ?? [0, 0];
  entry[0]++;
  entry[1] += ms;
  current.set(name, entry);
}

/** Wraps an async (or sync) method of a prototype so each call's time is recorded under `name`. */
function timeMethod(proto: object, method: string, name = method) {
  const target = proto as Record<string, (...args: unknown[]) => unknown>;
  const original = target[method]!;
  target[method] = function (this: unknown, ...args: unknown[]) {
    const started = performance.now();
    const out = original.apply(this, args);
    if (out instanceof Promise) return out.finally(() => record(name, performance.now() - started));
    record(name, performance.now() - started);
    return out;
  };
}

/** A statement's kind: its first words, literals and lists folded. */
function kindOf(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\$\d+(, \$\d+)*/g, '$n')
    .trim()
    .slice(0, 90);
}

function instrument() {
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const started = performance.now();
    const out = query.apply(this, args);
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '?');
    if (out instanceof Promise) return out.finally(() => record(`sql: ${kindOf(text)}`, performance.now() - started));
    return out;
  };
  for (const m of ['textArm', 'semanticRanking', 'present', 'queryVector', 'lexicalIndex', 'vectorSet', 'startNearest'])
    timeMethod(SearchService.prototype, m, `service.${m}`);
  timeMethod(LexicalIndex.prototype, 'score', 'lexical.score');
  for (const m of ['search', 'highlights', 'matching'])
    timeMethod(PostgresKeywordEngine.prototype, m, `pgKeyword.${m}`);
}

async function admin<T>(work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: (await postgresAdminUrl())! });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

async function main(dialect: DialectName) {
  const meta = JSON.parse(fs.readFileSync(path.join(CACHE_DIR, `${dialect}-${DOCS}.json`), 'utf8')) as {
    apiKey: string;
  };
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  if (dialect === 'postgres') {
    const name = `dv_search_profile_${process.pid}`;
    await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`));
    const u = new URL((await postgresAdminUrl())!);
    u.pathname = `/${name}`;
    env = { DATABASE_URL: u.toString() };
    drop = () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));
  } else {
    const from = path.join(CACHE_DIR, `sqlite-${DOCS}`);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dv-search-profile-'));
    for (const f of fs.readdirSync(from))
      if (f.startsWith('service.db')) fs.copyFileSync(path.join(from, f), path.join(work, f));
    env = { DATA_DIR: work };
    drop = async () => fs.rmSync(work, { recursive: true, force: true });
  }
  instrument();
  const t = await startTestApp(dialect, { env });
  try {
    const headers = { 'x-api-key': meta.apiKey };
    const c = corpus();
    const queries = Array.from({ length: QUERIES }, () => c.query());
    const stopQueries = Array.from({ length: QUERIES }, (_, i) => stopWordQuery(i));
    const call = async (mode: string, q: string) => {
      const res =
        mode === 'hybrid'
          ? await t.app.inject({ method: 'POST', url: '/api/v1/search/hybrid', headers, payload: { query: q } })
          : await t.app.inject({
              url: `/api/v1/search?mode=${mode === 'stopwords' ? 'text' : mode}&q=${encodeURIComponent(q)}`,
              headers,
            });
      if (res.statusCode !== 200) throw new Error(`${mode}: ${res.statusCode} ${res.body}`);
    };
    await call('text', queries[0]!);
    for (
      let i = 0;
      i < 400 && (await t.app.inject({ url: '/health' })).json().capabilities.word_vectors.state !== 'ready';
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
    await call('semantic', queries[0]!);
    const out: Record<string, unknown> = { dialect, documents: DOCS, queries: QUERIES, loadBefore: os.loadavg()[0] };
    for (const mode of MODES) {
      const set = mode === 'stopwords' ? stopQueries : queries;
      for (const q of set.slice(0, 10)) await call(mode, q);
      const totals: number[] = [];
      const perRequest: Map<string, [number, number]>[] = [];
      for (const q of set) {
        current = new Map();
        const started = performance.now();
        await call(mode, q);
        totals.push(performance.now() - started);
        perRequest.push(current);
        current = null;
      }
      const names = new Set(perRequest.flatMap((m) => [...m.keys()]));
      const rows = [...names]
        .map((name) => {
          const ms = perRequest.map((m) => m.get(name)?.[1] ?? 0);
          const calls = perRequest.reduce((n, m) => n + (m.get(name)?.[0] ?? 0), 0) / perRequest.length;
          return {
            name,
            calls: Number(calls.toFixed(2)),
            p50: Number(percentile(ms, 50).toFixed(2)),
            p99: Number(percentile(ms, 99).toFixed(2)),
            mean: Number((ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(2)),
          };
        })
        .sort((a, b) => b.mean - a.mean);
      out[mode] = {
        total: `${percentile(totals, 50).toFixed(1)} / ${percentile(totals, 99).toFixed(1)} ms`,
        parts: rows,
      };
    }
    out['loadAfter'] = os.loadavg()[0];
    console.log(JSON.stringify(out, null, 1));
  } finally {
    await t.close();
    await drop();
  }
}

await main((process.env['SEARCH_BENCH_DIALECTS'] ?? 'postgres').split(',')[0] as DialectName);
