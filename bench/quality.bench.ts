/*
 * Quality of the local AI provider on hand-labelled documents (test/fixtures/quality):
 *   entities: precision and recall per type (people, organizations, dates, places, amounts), micro-averaged,
 *             on the tuning set (the rules were developed against it), on held-out batches 1-4 (each looked
 *             at after its first measurement, which labels.json records) and on batch 5 (never used for a change);
 *   summaries: length ratio and the share of the reference gist's content words the summary contains;
 *   speed:    summary + tags + entities + chunk embeddings of a five-page document (~2,500 words), in ms.
 * Names match after lower-casing and dropping "." and ","; dates and amounts match exactly.
 * Run: npm run bench quality
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AiProvider, Entities } from '../src/providers/ai/ai-provider.ts';
import { createAiProvider } from '../src/providers/ai/create-ai-provider.ts';
import { chunkText } from '../src/providers/ai/chunking.ts';
import { contentStems } from '../src/providers/ai/text.ts';
import { median, percentile } from './support.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/quality');
const TYPES = ['people', 'organizations', 'dates', 'places', 'amounts'] as const;
type EntityType = (typeof TYPES)[number];

interface LabelledDocument extends Record<EntityType, string[]> {
  file: string;
  type: string;
  referenceDate: string;
  gist: string;
  /** Held-out documents: batches 1–3 were looked at once to fix rules, 4 never. */
  batch?: number;
}

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

export interface SetResult {
  documents: number;
  entities: Record<EntityType | 'named (people+orgs+dates)' | 'all', { precision: number; recall: number; tp: number; fp: number; fn: number }>;
  misses: { file: string; type: EntityType; missed: string[]; spurious: string[] }[];
  summaries: { file: string; type: string; ratio: number; gistRecall: number }[];
}

export interface QualityBenchResult {
  provider: string;
  tuning: SetResult;
  /** Batches 1–3: errors looked at after their first measurement; batch 4: never used for any change. */
  heldOutSeen: SetResult;
  heldOutUnseen: SetResult;
  speed: { words: number; chars: number; chunks: number; runs: number; medianMs: number; p95Ms: number };
}

const normalise = (value: string) => value.toLowerCase().replace(/[.,]/g, '').replace(/\s+/g, ' ').trim();

function loadSet(dir: string): { doc: LabelledDocument; text: string }[] {
  const labels = JSON.parse(fs.readFileSync(path.join(dir, 'labels.json'), 'utf8')) as { documents: LabelledDocument[] };
  return labels.documents.map((doc) => ({ doc, text: fs.readFileSync(path.join(dir, doc.file), 'utf8') }));
}

async function evaluate(provider: AiProvider, dir: string, batches?: number[]): Promise<SetResult> {
  const counts = Object.fromEntries(TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0 }])) as Record<EntityType, Counts>;
  const misses: SetResult['misses'] = [];
  const summaries: SetResult['summaries'] = [];
  for (const { doc, text } of loadSet(dir).filter((d) => !batches || batches.includes(d.doc.batch ?? 0))) {
    const entities: Entities = await provider.extractEntities(text, { referenceDate: new Date(`${doc.referenceDate}T12:00:00Z`) });
    for (const type of TYPES) {
      const expected = new Set(doc[type].map(normalise));
      const got = new Set(entities[type].map(normalise));
      const hits = [...got].filter((g) => expected.has(g)).length;
      counts[type].tp += hits;
      counts[type].fp += got.size - hits;
      counts[type].fn += expected.size - hits;
      const missed = doc[type].filter((e) => !got.has(normalise(e)));
      const spurious = entities[type].filter((g) => !expected.has(normalise(g)));
      if (missed.length + spurious.length > 0) misses.push({ file: doc.file, type, missed, spurious });
    }
    const summary = await provider.summarize(text);
    const gistWords = new Set(contentStems(doc.gist));
    const summaryWords = new Set(contentStems(summary));
    const gistRecall = [...gistWords].filter((w) => summaryWords.has(w)).length / Math.max(1, gistWords.size);
    summaries.push({ file: doc.file, type: doc.type, ratio: round(summary.length / text.length), gistRecall: round(gistRecall) });
  }
  const score = (c: Counts) => ({ precision: round(c.tp / Math.max(1, c.tp + c.fp)), recall: round(c.tp / Math.max(1, c.tp + c.fn)), ...c });
  const sum = (types: readonly EntityType[]) =>
    types.reduce((acc, t) => ({ tp: acc.tp + counts[t].tp, fp: acc.fp + counts[t].fp, fn: acc.fn + counts[t].fn }), { tp: 0, fp: 0, fn: 0 });
  return {
    documents: summaries.length,
    entities: {
      ...(Object.fromEntries(TYPES.map((t) => [t, score(counts[t])])) as Record<EntityType, ReturnType<typeof score>>),
      'named (people+orgs+dates)': score(sum(['people', 'organizations', 'dates'])),
      all: score(sum(TYPES)),
    },
    misses,
    summaries,
  };
}

// A five-page document (~500 words a page) made of the fixtures, processed as the pipeline would.
async function speed(provider: AiProvider, runs: number): Promise<QualityBenchResult['speed']> {
  const texts = loadSet(FIXTURES).map((d) => d.text);
  let text = '';
  for (let i = 0; text.split(/\s+/).length < 2500; i++) text += `${texts[i % texts.length]}\n\n`;
  const timings: number[] = [];
  let chunks = 0;
  for (let run = 0; run < runs + 3; run++) {
    const started = performance.now();
    await provider.summarize(text);
    await provider.extractTags(text);
    await provider.extractEntities(text);
    const pieces = chunkText(text);
    await provider.embed(pieces.map((c) => c.text));
    chunks = pieces.length;
    if (run >= 3) timings.push(performance.now() - started);
  }
  return { words: text.split(/\s+/).length, chars: text.length, chunks, runs, medianMs: round(median(timings)), p95Ms: round(percentile(timings, 95)) };
}

const round = (x: number) => Math.round(x * 100) / 100;

function printTable(title: string, set: SetResult): void {
  const rows = Object.entries(set.entities).map(
    ([type, s]) => `  ${type.padEnd(27)} ${s.precision.toFixed(2).padStart(9)} ${s.recall.toFixed(2).padStart(7)}   tp ${s.tp} fp ${s.fp} fn ${s.fn}`,
  );
  process.stderr.write(`\n${title} (${set.documents} documents)\n  ${'entity type'.padEnd(27)} precision  recall\n${rows.join('\n')}\n`);
  process.stderr.write(`  ${'summary'.padEnd(27)} ${'ratio'.padStart(9)} ${'gist'.padStart(7)}\n`);
  for (const s of set.summaries) process.stderr.write(`  ${s.file.padEnd(27)} ${s.ratio.toFixed(2).padStart(9)} ${s.gistRecall.toFixed(2).padStart(7)}\n`);
}

export async function run(): Promise<QualityBenchResult> {
  const provider = createAiProvider({ provider: 'local' });
  const result: QualityBenchResult = {
    provider: provider.name,
    tuning: await evaluate(provider, FIXTURES),
    heldOutSeen: await evaluate(provider, path.join(FIXTURES, 'holdout'), [1, 2, 3, 4]),
    heldOutUnseen: await evaluate(provider, path.join(FIXTURES, 'holdout'), [5]),
    speed: await speed(provider, 20),
  };
  printTable('Tuning set', result.tuning);
  printTable('Held-out batches 1-4 (errors looked at after their first measurement)', result.heldOutSeen);
  printTable('Held-out batch 5 (never used for any change)', result.heldOutUnseen);
  const s = result.speed;
  process.stderr.write(`\nFive-page document (${s.words} words, ${s.chunks} chunks): median ${s.medianMs} ms, p95 ${s.p95Ms} ms\n\n`);
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
