/*
 * Quality of AI enrichment on the labelled corpus (test/fixtures/corpus, README there), per split:
 * `tune` (rules may be fixed against it, and its per-document errors are printed) and `holdout`
 * (measured and reported only: nothing of it is printed per document, nothing changed because of it).
 *   entities:  precision and recall per type, micro-averaged. Names match after lower-casing and dropping
 *              ".", ",", "(", ")" and a leading "the"; dates by ISO day; amounts by currency and value.
 *   type:      document-type accuracy.
 *   fields:    share of labelled fields found with the right value (names: either contains the other;
 *              text: the same words; dates, money and durations: equal values), and the share of the
 *              fields the provider gave that are right.
 *   tags:      topical share (a tag sharing a content word with the document's labelled tags or gist),
 *              proper-name share (a tag made of words of the document's labelled names), and the share of
 *              documents with at least one topical tag.
 *   summaries: share that name the document's type and its main figure (the labelled total, rent,
 *              salary, value or balance; else its main date).
 *   speed:     enrichment + chunk embeddings of a five-page document (~2,500 words), in ms.
 * Run: npm run bench quality          (PROVIDER=openai is not supported here: the local provider is measured)
 */
import { fileURLToPath } from 'node:url';
import type { AiProvider, Enrichment, FieldValue } from '../src/providers/ai/ai-provider.ts';
import { formatMoney } from '../src/providers/ai/ai-provider.ts';
import { chunkText } from '../src/providers/ai/chunking.ts';
import { createAiProvider } from '../src/providers/ai/create-ai-provider.ts';
import { contentStems, stem } from '../src/providers/ai/text.ts';
import {
  type CorpusDocument,
  FIELD_KINDS,
  type FieldValue as LabelValue,
  loadCorpus,
  type Split,
} from '../test/fixtures/corpus/corpus.ts';
import { type LearnedTagQuality, learnedTagQuality } from './learned-tags-quality.ts';
import { median, percentile } from './support.ts';

const TYPES = ['people', 'organizations', 'places', 'dates', 'amounts'] as const;
type EntityType = (typeof TYPES)[number];

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

export interface SplitResult {
  documents: number;
  entities: Record<EntityType, { precision: number; recall: number } & Counts>;
  typeAccuracy: number;
  fields: { recall: number; precision: number; labelled: number; given: number };
  tags: { total: number; topical: number; properNames: number; documentsWithTopicalTag: number };
  summaries: { namingTypeAndFigure: number };
  /** Per-document errors: tune only. */
  errors?: {
    id: string;
    type?: string;
    entities: Record<string, { missed: string[]; spurious: string[] }>;
    fields: string[];
    tags: string[];
    summary: string;
  }[];
}

export interface QualityBenchResult {
  provider: string;
  tune: SplitResult;
  holdout: SplitResult;
  speed: { words: number; chars: number; chunks: number; runs: number; medianMs: number; p95Ms: number };
}

const normaliseName = (value: string) =>
  value
    .toLowerCase()
    .replace(/[.,()"“”]/g, '')
    .replace(/^the\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
const moneyKey = (value: number, currency: string) => `${currency} ${value.toFixed(2)}`;

function entityKeys(doc: CorpusDocument): Record<EntityType, Set<string>> {
  const e = doc.entities;
  return {
    people: new Set(e.people.map((m) => normaliseName(m.value))),
    organizations: new Set(e.organizations.map((m) => normaliseName(m.value))),
    places: new Set(e.places.map((m) => normaliseName(m.value))),
    dates: new Set(e.dates.map((m) => m.value)),
    amounts: new Set(e.amounts.map((a) => moneyKey(a.value, a.currency))),
  };
}

function predictedKeys(en: Enrichment): Record<EntityType, Set<string>> {
  const e = en.entities;
  return {
    people: new Set(e.people.map((m) => normaliseName(m.name))),
    organizations: new Set(e.organizations.map((m) => normaliseName(m.name))),
    places: new Set(e.locations.map((m) => normaliseName(m.name))),
    dates: new Set(e.dates.map((d) => d.value)),
    amounts: new Set(e.amounts.map((a) => moneyKey(a.value, a.currency))),
  };
}

const words = (text: string) =>
  new Set(
    normaliseName(text)
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 1),
  );

/** Whether a field the provider gave matches the label, by the field's kind. */
export function fieldMatches(name: string, label: LabelValue, got: FieldValue | undefined): boolean {
  if (got === undefined) return false;
  const kind = FIELD_KINDS[name];
  const asText = (v: LabelValue | FieldValue): string =>
    typeof v === 'string' ? v : Array.isArray(v) ? v.join('; ') : 'text' in v ? v.text : String(v.value);
  const money = (v: LabelValue | FieldValue) =>
    typeof v === 'object' && !Array.isArray(v) && 'currency' in v ? v : null;
  if (kind === 'date') return got === label;
  if (kind === 'money') {
    const [a, b] = [money(label), money(got)];
    return a !== null && b !== null && a.currency === b.currency && Math.abs(a.value - b.value) < 0.005;
  }
  if (kind === 'duration')
    return (
      typeof got === 'object' &&
      !Array.isArray(got) &&
      typeof label === 'object' &&
      !Array.isArray(label) &&
      got.value === label.value
    );
  if (kind === 'names') {
    const want = (Array.isArray(label) ? label : [asText(label)]).map(normaliseName);
    const have = (Array.isArray(got) ? got : [asText(got)]).map(normaliseName);
    return want.every((w) => have.some((h) => h.includes(w) || w.includes(h)));
  }
  const a = normaliseName(asText(label));
  const b = normaliseName(asText(got));
  if (kind === 'name') return a !== '' && b !== '' && (a.includes(b) || b.includes(a));
  const wa = words(a);
  const wb = words(b);
  const shared = [...wa].filter((w) => wb.has(w)).length;
  return shared / Math.max(1, Math.max(wa.size, wb.size)) >= 0.6;
}

const TYPE_WORDS: Record<string, RegExp> = {
  invoice: /\binvoice/i,
  receipt: /\breceipt/i,
  purchase_order: /\bpurchase order|\border\b/i,
  quote: /\bquot|\bestimate/i,
  contract: /\bcontract|\bagreement/i,
  lease: /\blease|\btenancy/i,
  nda: /\bnon-disclosure|\bconfidentiality|\bnda\b/i,
  employment_letter: /\b(?:employment|job)\s+offer|\boffer of employment|\boffer letter|\bappointment/i,
  policy: /\bpolicy|\bprocedure/i,
  minutes: /\bminutes/i,
  memo: /\bmemo/i,
  report: /\breport|\breview|\baudit|\bassessment/i,
  letter: /\bletter/i,
  email: /\be-?mail/i,
  cv: /\bcv\b|\bcurriculum vitae|\br[ée]sum[ée]/i,
  statement: /\bstatement/i,
};
const MAIN_MONEY = ['total', 'rent', 'salary', 'value', 'closing_balance'];
const MAIN_DATE = [
  'due_date',
  'delivery_date',
  'effective_date',
  'start_date',
  'meeting_date',
  'issue_date',
  'period_end',
];

function namesTypeAndFigure(doc: CorpusDocument, summary: string): boolean {
  if (doc.type === 'other') return true;
  if (!TYPE_WORDS[doc.type]!.test(summary)) return false;
  const money = MAIN_MONEY.map((f) => doc.fields[f]).find(
    (v) => v && typeof v === 'object' && !Array.isArray(v) && 'currency' in v,
  ) as { value: number; currency: string } | undefined;
  if (money) {
    const plain = formatMoney({ value: Number(money.value), currency: money.currency }).split(' ')[1]!;
    const whole = plain.replace(/\.00$/, '');
    return summary.includes(plain) || summary.includes(whole);
  }
  const date = MAIN_DATE.map((f) => doc.fields[f]).find((v) => typeof v === 'string');
  if (typeof date === 'string') return summary.includes(date) || summary.includes(date.slice(0, 7));
  return true;
}

/** A provider from before `enrich` (for the "before" column): its three calls, no type and no fields. */
async function enrichmentOf(provider: AiProvider, text: string, referenceDate: Date): Promise<Enrichment> {
  if (typeof provider.enrich === 'function') return provider.enrich(text, { referenceDate });
  const legacy = provider as Pick<AiProvider, 'summarize' | 'extractTags' | 'extractEntities'>;
  const [summary, tags, e] = await Promise.all([
    legacy.summarize(text),
    legacy.extractTags(text),
    legacy.extractEntities(text, { referenceDate }),
  ]);
  const named = (names: string[]) => names.map((name) => ({ name, confidence: 1 }));
  return {
    summary: { value: summary, confidence: 1 },
    documentType: { value: 'other', confidence: 0 },
    fields: {},
    tags: tags.map((name) => ({ name, confidence: 1, source: 'extracted' })),
    entities: {
      people: named(e.people),
      organizations: named(e.organizations),
      locations: named(e.places),
      dates: e.dates.map((value) => ({ value, text: value, confidence: 1 })),
      amounts: e.amounts.map((a) => ({
        value: Number(a.split(' ')[1]!.replace(/,/g, '')),
        currency: a.split(' ')[0]!,
        text: a,
        confidence: 1,
      })),
    },
  };
}

async function evaluate(provider: AiProvider, documents: CorpusDocument[], split: Split): Promise<SplitResult> {
  const counts = Object.fromEntries(TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0 }])) as Record<EntityType, Counts>;
  let typeRight = 0;
  let labelledFields = 0;
  let foundFields = 0;
  let givenFields = 0;
  let rightGiven = 0;
  const tags = { total: 0, topical: 0, properNames: 0, documentsWithTopicalTag: 0 };
  let summariesOk = 0;
  const errors: NonNullable<SplitResult['errors']> = [];
  for (const doc of documents) {
    const en = await enrichmentOf(provider, doc.text, new Date(`${doc.referenceDate}T12:00:00Z`));
    const expected = entityKeys(doc);
    const got = predictedKeys(en);
    const docErrors: NonNullable<SplitResult['errors']>[number] = {
      id: doc.id,
      entities: {},
      fields: [],
      tags: [],
      summary: '',
    };
    for (const type of TYPES) {
      const hits = [...got[type]].filter((g) => expected[type].has(g)).length;
      counts[type].tp += hits;
      counts[type].fp += got[type].size - hits;
      counts[type].fn += expected[type].size - hits;
      const missed = [...expected[type]].filter((e) => !got[type].has(e));
      const spurious = [...got[type]].filter((g) => !expected[type].has(g));
      if (missed.length + spurious.length > 0) docErrors.entities[type] = { missed, spurious };
    }
    if (en.documentType.value === doc.type) typeRight++;
    else docErrors.type = `${en.documentType.value} (is ${doc.type})`;
    if (en.documentType.value === doc.type) {
      for (const [name, label] of Object.entries(doc.fields)) {
        labelledFields++;
        const value = en.fields[name]?.value;
        if (fieldMatches(name, label, value)) foundFields++;
        else docErrors.fields.push(`${name}: ${JSON.stringify(value ?? null)} (is ${JSON.stringify(label)})`);
      }
      for (const [name, f] of Object.entries(en.fields)) {
        if (!(name in doc.fields)) continue;
        givenFields++;
        if (fieldMatches(name, doc.fields[name]!, f.value)) rightGiven++;
      }
    } else labelledFields += Object.keys(doc.fields).length;

    const labelStems = new Set([...doc.tags, doc.gist].flatMap((t) => contentStems(t)));
    const nameWords = new Set(
      [...doc.entities.people, ...doc.entities.organizations, ...doc.entities.places].flatMap((m) =>
        normaliseName(m.value).split(/\s+/),
      ),
    );
    let topicalHere = 0;
    for (const tag of en.tags) {
      tags.total++;
      const tagWords = tag.name.toLowerCase().split(/\s+/);
      const proper = tagWords.every((w) => nameWords.has(w));
      const topical = !proper && tagWords.some((w) => labelStems.has(stem(w)));
      if (proper) tags.properNames++;
      if (topical) {
        tags.topical++;
        topicalHere++;
      } else docErrors.tags.push(tag.name);
    }
    if (topicalHere > 0) tags.documentsWithTopicalTag++;
    if (namesTypeAndFigure(doc, en.summary.value)) summariesOk++;
    else docErrors.summary = en.summary.value;
    errors.push(docErrors);
  }
  const n = documents.length;
  const share = (x: number, of: number) => round(x / Math.max(1, of));
  return {
    documents: n,
    entities: Object.fromEntries(
      TYPES.map((t) => [
        t,
        {
          precision: share(counts[t].tp, counts[t].tp + counts[t].fp),
          recall: share(counts[t].tp, counts[t].tp + counts[t].fn),
          ...counts[t],
        },
      ]),
    ) as SplitResult['entities'],
    typeAccuracy: share(typeRight, n),
    fields: {
      recall: share(foundFields, labelledFields),
      precision: share(rightGiven, givenFields),
      labelled: labelledFields,
      given: givenFields,
    },
    tags: {
      total: tags.total,
      topical: share(tags.topical, tags.total),
      properNames: share(tags.properNames, tags.total),
      documentsWithTopicalTag: share(tags.documentsWithTopicalTag, n),
    },
    summaries: { namingTypeAndFigure: share(summariesOk, n) },
    ...(split === 'tune' ? { errors } : {}),
  };
}

// A five-page document (~500 words a page) made of corpus texts, processed as the pipeline would.
async function speed(
  provider: AiProvider,
  documents: CorpusDocument[],
  runs: number,
): Promise<QualityBenchResult['speed']> {
  let text = '';
  for (let i = 0; text.split(/\s+/).length < 2500; i++) text += `${documents[i % documents.length]!.text}\n\n`;
  const timings: number[] = [];
  let chunks = 0;
  for (let run = 0; run < runs + 3; run++) {
    const started = performance.now();
    // A fresh text each run: the provider keeps its last enrichment.
    await enrichmentOf(provider, `${text}\n${run}`, new Date());
    const pieces = chunkText(text);
    await provider.embed(pieces.map((c) => c.text));
    chunks = pieces.length;
    if (run >= 3) timings.push(performance.now() - started);
  }
  return {
    words: text.split(/\s+/).length,
    chars: text.length,
    chunks,
    runs,
    medianMs: round(median(timings)),
    p95Ms: round(percentile(timings, 95)),
  };
}

const round = (x: number) => Math.round(x * 100) / 100;

function print(title: string, r: SplitResult): void {
  const out: string[] = [`\n${title} (${r.documents} documents)`, `  ${'entity type'.padEnd(16)} precision  recall`];
  for (const t of TYPES) {
    const s = r.entities[t];
    out.push(
      `  ${t.padEnd(16)} ${s.precision.toFixed(2).padStart(9)} ${s.recall.toFixed(2).padStart(7)}   tp ${s.tp} fp ${s.fp} fn ${s.fn}`,
    );
  }
  out.push(`  document type accuracy ${r.typeAccuracy.toFixed(2)}`);
  out.push(
    `  fields: ${r.fields.recall.toFixed(2)} of ${r.fields.labelled} labelled found right; ${r.fields.precision.toFixed(2)} of ${r.fields.given} given right`,
  );
  out.push(
    `  tags: ${r.tags.total}, topical ${r.tags.topical.toFixed(2)}, proper names ${r.tags.properNames.toFixed(2)}, documents with a topical tag ${r.tags.documentsWithTopicalTag.toFixed(2)}`,
  );
  out.push(`  summaries naming type and main figure ${r.summaries.namingTypeAndFigure.toFixed(2)}`);
  process.stderr.write(`${out.join('\n')}\n`);
  if (process.env['QUALITY_ERRORS'] && r.errors) process.stderr.write(`${JSON.stringify(r.errors, null, 1)}\n`);
}

export async function run(): Promise<QualityBenchResult & { learnedTags: LearnedTagQuality }> {
  const provider = createAiProvider({ provider: 'local' });
  const { documents } = loadCorpus();
  const tune = documents.filter((d) => d.split === 'tune');
  const holdout = documents.filter((d) => d.split === 'holdout');
  const result: QualityBenchResult = {
    provider: provider.name,
    tune: await evaluate(provider, tune, 'tune'),
    holdout: await evaluate(provider, holdout, 'holdout'),
    speed: await speed(provider, tune, 15),
  };
  print('Tune', result.tune);
  print('Holdout (measured only)', result.holdout);
  const s = result.speed;
  process.stderr.write(
    `\nFive-page document (${s.words} words, ${s.chunks} chunks): median ${s.medianMs} ms, p95 ${s.p95Ms} ms\n\n`,
  );
  // The per-document errors of tune are printed with QUALITY_ERRORS=1, not in the JSON result.
  delete result.tune.errors;
  return { ...result, learnedTags: await learnedTagQuality(provider, documents) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
