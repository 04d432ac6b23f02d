/*
 * Learned tags on the corpus (issue 27 item 3, docs/benchmarks.md "Learned tags"): the classifier
 * trained on the `tune` documents' filing tags (8 department tags, each on >= 5 tune and >= 2
 * holdout documents; the untagged tune documents are counter-examples), measured on `holdout`:
 * precision and recall of every (document, tag) proposal at a few confidence thresholds, average
 * precision, the best precision at recall >= 0.6, and how well confidences match precision.
 * The tune figure is leave-one-out (a tag stays learnable with 4 of its 5 documents there).
 * Baseline: the tags a document type alone predicts (a tag on most tune documents of that type).
 * Only totals are printed for holdout, never a document.
 */
import type { AiProvider } from '../src/providers/ai/ai-provider.ts';
import {
  type LearnedTag,
  proposeTags,
  type TaggedExample,
  trainTagModel,
} from '../src/modules/processing/learned-tag-model.ts';
import { documentTerms } from '../src/modules/processing/learned-tag-terms.ts';
import { LEARNED_TAG_MIN_CONFIDENCE } from '../src/modules/processing/learned-tags.service.ts';
import type { CorpusDocument } from '../test/fixtures/corpus/corpus.ts';

const THRESHOLDS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
const TARGET_RECALL = 0.6;

interface Scored {
  confidence: number;
  right: boolean;
}

export interface CurvePoint {
  threshold: number;
  precision: number;
  recall: number;
  proposed: number;
}

export interface LearnedTagSplit {
  documents: number;
  /** (document, tag) pairs the labels hold. */
  labels: number;
  curve: CurvePoint[];
  averagePrecision: number;
  /** The best precision at any confidence cut whose recall is at least 0.6. */
  precisionAtRecall60: number;
  /** Per confidence band: proposals, their mean confidence, and the share that was right. */
  calibration: { band: string; proposals: number; meanConfidence: number; precision: number }[];
}

export interface LearnedTagQuality {
  minConfidence: number;
  tuneLeaveOneOut: LearnedTagSplit;
  holdout: LearnedTagSplit;
  /** The document type alone (tags on most tune documents of the type), on holdout. */
  baselineTypeOnly: { precision: number; recall: number };
  model: { trainMs: number; bytes: number; tags: number; terms: number };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function measure(scored: Scored[], labels: number, documents: number): LearnedTagSplit {
  const sorted = [...scored].sort((a, b) => b.confidence - a.confidence);
  let right = 0;
  let ap = 0;
  let best = 0;
  sorted.forEach((s, k) => {
    if (s.right) {
      right++;
      ap += right / (k + 1);
    }
    if (right / labels >= TARGET_RECALL) best = Math.max(best, right / (k + 1));
  });
  const curve = THRESHOLDS.map((threshold) => {
    const kept = scored.filter((s) => s.confidence >= threshold);
    const hits = kept.filter((s) => s.right).length;
    return {
      threshold,
      precision: round(kept.length ? hits / kept.length : 1),
      recall: round(hits / labels),
      proposed: kept.length,
    };
  });
  const bands = [0.2, 0.4, 0.6, 0.8, 1.01];
  const calibration = bands.slice(0, -1).map((low, i) => {
    const inBand = scored.filter((s) => s.confidence >= low && s.confidence < bands[i + 1]!);
    const mean = inBand.reduce((sum, s) => sum + s.confidence, 0) / (inBand.length || 1);
    return {
      band: `${low.toFixed(1)}–${Math.min(1, bands[i + 1]!).toFixed(1)}`,
      proposals: inBand.length,
      meanConfidence: round(mean),
      precision: round(inBand.filter((s) => s.right).length / (inBand.length || 1)),
    };
  });
  return {
    documents,
    labels,
    curve,
    averagePrecision: round(ap / labels),
    precisionAtRecall60: round(best),
    calibration,
  };
}

function score(proposals: LearnedTag[], tags: readonly string[]): Scored[] {
  return proposals.map((p) => ({ confidence: p.confidence, right: tags.includes(p.name) }));
}

/** Tags a document type predicts on its own: those on more than half of the tune documents of the type. */
function typeOnlyBaseline(tune: Example[], holdout: Example[]): { precision: number; recall: number } {
  const byType = new Map<string, Example[]>();
  for (const e of tune) byType.set(e.type, [...(byType.get(e.type) ?? []), e]);
  let proposed = 0;
  let right = 0;
  for (const e of holdout) {
    const same = byType.get(e.type) ?? [];
    const tags = new Set(same.flatMap((s) => s.tags));
    for (const tag of tags) {
      if (same.filter((s) => s.tags.includes(tag)).length * 2 <= same.length) continue;
      proposed++;
      if (e.tags.includes(tag)) right++;
    }
  }
  const labels = holdout.reduce((n, e) => n + e.tags.length, 0);
  return { precision: round(proposed ? right / proposed : 1), recall: round(right / labels) };
}

interface Example extends TaggedExample {
  type: string;
  tags: string[];
}

export async function learnedTagQuality(provider: AiProvider, documents: CorpusDocument[]): Promise<LearnedTagQuality> {
  const examples = new Map<string, Example[]>([
    ['tune', []],
    ['holdout', []],
  ]);
  for (const doc of documents) {
    // The document type the pipeline would give it: the provider's, as enrichment does.
    const { documentType } = await provider.enrich(doc.text, {
      referenceDate: new Date(`${doc.referenceDate}T12:00:00Z`),
    });
    examples.get(doc.split)!.push({
      terms: documentTerms(doc.text, documentType.value),
      tags: [...doc.filingTags],
      type: documentType.value,
    });
  }
  const tune = examples.get('tune')!;
  const holdout = examples.get('holdout')!;
  const labels = (set: Example[]) => set.reduce((n, e) => n + e.tags.length, 0);

  const leaveOneOut: Scored[] = [];
  for (const [i, e] of tune.entries()) {
    const model = await trainTagModel(
      tune.filter((_, j) => j !== i),
      { minDocuments: 4 },
    );
    if (model) leaveOneOut.push(...score(proposeTags(model, e.terms, 0), e.tags));
  }

  const started = performance.now();
  const model = await trainTagModel(tune);
  const trainMs = Math.round(performance.now() - started);
  if (!model) throw new Error('no filing tag is on 5 tune documents');
  const held = holdout.flatMap((e) => score(proposeTags(model, e.terms, 0), e.tags));

  const result: LearnedTagQuality = {
    minConfidence: LEARNED_TAG_MIN_CONFIDENCE,
    tuneLeaveOneOut: measure(leaveOneOut, labels(tune), tune.length),
    holdout: measure(held, labels(holdout), holdout.length),
    baselineTypeOnly: typeOnlyBaseline(tune, holdout),
    model: { trainMs, bytes: JSON.stringify(model).length, tags: model.tags.length, terms: model.terms.length },
  };
  print(result);
  return result;
}

function print(r: LearnedTagQuality): void {
  const out = ['\nLearned tags (filing tags: trained on tune, measured on holdout)'];
  for (const [name, split] of [
    ['tune, leave-one-out', r.tuneLeaveOneOut],
    ['holdout', r.holdout],
  ] as const) {
    out.push(
      `  ${name} (${split.documents} documents, ${split.labels} labels): AP ${split.averagePrecision}, best precision at recall >= 0.6: ${split.precisionAtRecall60}`,
    );
    for (const p of split.curve)
      out.push(
        `    confidence >= ${p.threshold.toFixed(1)}: precision ${p.precision.toFixed(2)}, recall ${p.recall.toFixed(2)} (${p.proposed} proposed)`,
      );
    out.push(
      `    calibration: ${split.calibration.map((c) => `${c.band} n=${c.proposals} mean ${c.meanConfidence} right ${c.precision}`).join('; ')}`,
    );
  }
  out.push(
    `  baseline (document type alone) on holdout: precision ${r.baselineTypeOnly.precision}, recall ${r.baselineTypeOnly.recall}`,
  );
  out.push(
    `  model: ${r.model.tags} tags, ${r.model.terms} terms, ${r.model.bytes} bytes, trained in ${r.model.trainMs} ms`,
  );
  process.stderr.write(`${out.join('\n')}\n`);
}
