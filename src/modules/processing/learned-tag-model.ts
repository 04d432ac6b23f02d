/*
 * Learned tags (docs/processing.md, "Learned tags"): once a tenant has put a tag on enough
 * documents, a classifier trained on that tenant's own documents proposes it for new ones, with a
 * calibrated confidence.
 *
 * The classifier is one logistic regression per tag over a document's terms (stems and its
 * document type; learned-tag-terms.ts), each term weighted by sublinear frequency and inverse
 * document frequency. It fits small data (a tag on five documents) and a 2-core machine: training
 * is a few hundred passes over sparse vectors, the model keeps the strongest weights of each tag
 * (tens of kilobytes for tens of tags), and a retrain starts from the previous weights.
 *
 * Beside the regression, each tag keeps the centroid of its documents: with five documents a
 * regression leans on a few of their words, the centroid on all of them, and the two disagree on
 * different documents (tune leave-one-out average precision 0.73 → 0.77 with it).
 *
 * Raw scores of different tags are not comparable, so one calibration for all of the tenant's tags
 * turns them into a probability: a logistic fit over (score, score − the document's best score,
 * centroid similarity, similarity − the document's best similarity), learned from cross-validated
 * scores, so that "0.8" means about eight in ten proposals at that confidence are right. The
 * margins let a tag far behind the document's best one count for less (most documents carry one
 * or two of a tenant's filing tags).
 */

/** A document as the classifier reads it: each term and how often it occurs. */
export type Terms = Record<string, number>;

/** A training document: its terms and the tags the tenant put on it. */
export interface TaggedExample {
  terms: Terms;
  tags: readonly string[];
}

export interface TagWeights {
  name: string;
  /** The documents it was trained on that carry it. */
  documents: number;
  bias: number;
  /** `[term index, weight]`, the strongest first. */
  weights: [number, number][];
  /**
   * The tag's documents' mean vector, `[term index, weight]`, the strongest `MAX_CENTROID_TERMS`:
   * how alike a document is to them as a whole. Absent in models trained before it.
   */
  centroid?: [number, number][];
}

/** What is stored per tenant (learned_tag_models.model). */
export interface LearnedTagModel {
  version: 1;
  /** The documents it was trained on. */
  documents: number;
  terms: string[];
  idf: number[];
  tags: TagWeights[];
  /**
   * `p = σ(a·score + b·(score − best score of the document) + c + d·sim + e·(sim − best sim of the
   * document))`, `sim` the cosine to the tag's centroid (`d` and `e` absent, 0, in models trained before it).
   */
  calibration: [number, number, number] | [number, number, number, number, number];
}

/** A proposed tag and its calibrated confidence in [0, 1]. */
export interface LearnedTag {
  name: string;
  confidence: number;
}

export interface TrainingOptions {
  /** A tag is learned once it is on at least this many documents. */
  minDocuments?: number;
  /** The last model: training starts from its weights (fewer passes). */
  previous?: LearnedTagModel | null;
  signal?: AbortSignal;
}

/** A tag is learned once the tenant has put it on this many documents (issue 27). */
export const MIN_TAGGED_DOCUMENTS = 5;
/** A term must occur in this many training documents to be weighed: one document says nothing general. */
const MIN_TERM_DOCUMENTS = 2;
/** The most frequent terms kept when a tenant's vocabulary is larger. */
const MAX_VOCABULARY = 10_000;
const L2 = 1e-4;
const STEP = 0.5;
const PASSES = 300;
const WARM_PASSES = 100;
/** Weights kept per tag (the strongest): the rest change a score by little and would only grow the model. */
const MAX_WEIGHTS_PER_TAG = 400;
const CALIBRATION_FOLDS = 3;
/** How much a term outside the vocabulary counts in a document's length (0: not at all, 1: as a known term). */
const UNKNOWN_WEIGHT = 0.3;
/** The calibration is one for all tags: the scores of the most used ones are enough to fit it. */
const CALIBRATION_TAGS = 10;
/** Centroid terms kept per tag. */
const MAX_CENTROID_TERMS = 300;

interface SparseVector {
  index: Int32Array;
  value: Float64Array;
}

interface Vocabulary {
  terms: string[];
  idf: Float64Array;
  /** The idf of a term in one training document, for terms the vocabulary leaves out. */
  unknownIdf: number;
  indexOf: Map<string, number>;
}

/**
 * Trains the tenant's model, or null when no tag is on `minDocuments` documents yet. Deterministic:
 * the same examples (in the same order) give the same model.
 */
export async function trainTagModel(
  examples: readonly TaggedExample[],
  options: TrainingOptions = {},
): Promise<LearnedTagModel | null> {
  const minDocuments = options.minDocuments ?? MIN_TAGGED_DOCUMENTS;
  const tagNames = learnableTags(examples, minDocuments);
  if (tagNames.length === 0) return null;
  const vocabulary = buildVocabulary(examples);
  const vectors = examples.map((e) => vectorize(e.terms, vocabulary));
  const labels = tagNames.map((tag) => examples.map((e) => e.tags.includes(tag)));
  const warm = options.previous ? warmStart(options.previous, vocabulary) : null;

  const tags: { name: string; documents: number; model: LinearModel; centroid: Map<number, number> }[] = [];
  for (const [t, name] of tagNames.entries()) {
    await breathe(options.signal);
    const model = fitLogistic(vectors, labels[t]!, vocabulary.terms.length, warm?.get(name));
    tags.push({ name, documents: labels[t]!.filter(Boolean).length, model, centroid: centroidOf(vectors, labels[t]!) });
  }
  const mostUsed = [...labels]
    .sort((a, b) => b.filter(Boolean).length - a.filter(Boolean).length)
    .slice(0, CALIBRATION_TAGS);
  const calibration = await calibrate(vectors, mostUsed, vocabulary.terms.length, options.signal);
  return pack(vocabulary, tags, calibration, examples.length);
}

/** The tags a model proposes for a document, at or above `minConfidence`, most confident first. */
export function proposeTags(model: LearnedTagModel, terms: Terms, minConfidence: number): LearnedTag[] {
  const x = vectorize(terms, vocabularyOf(model));
  const dense = new Float64Array(model.terms.length);
  x.index.forEach((i, k) => {
    dense[i] = x.value[k]!;
  });
  const scores = model.tags.map((tag) => tag.weights.reduce((z, [i, w]) => z + w * dense[i]!, tag.bias));
  const similarities = model.tags.map((tag) => (tag.centroid ?? []).reduce((z, [i, w]) => z + w * dense[i]!, 0));
  const best = Math.max(...scores);
  const bestSimilarity = Math.max(...similarities);
  const [a, b, c, d = 0, e = 0] = model.calibration;
  const z = (i: number) =>
    a * scores[i]! + b * (scores[i]! - best) + c + d * similarities[i]! + e * (similarities[i]! - bestSimilarity);
  return model.tags
    .map((tag, i) => ({ name: tag.name, confidence: round(sigmoid(z(i))) }))
    .filter((p) => p.confidence >= minConfidence)
    .sort((p, q) => q.confidence - p.confidence || p.name.localeCompare(q.name));
}

const vocabularies = new WeakMap<LearnedTagModel, Vocabulary>();
/** A stored model's vocabulary with its index (built once per model object). */
function vocabularyOf(model: LearnedTagModel): Vocabulary {
  let v = vocabularies.get(model);
  if (!v) {
    v = {
      terms: model.terms,
      idf: Float64Array.from(model.idf),
      unknownIdf: idfOf(1, model.documents),
      indexOf: new Map(model.terms.map((t, i) => [t, i])),
    };
    vocabularies.set(model, v);
  }
  return v;
}

/** Tags on at least `minDocuments` examples, by name. */
function learnableTags(examples: readonly TaggedExample[], minDocuments: number): string[] {
  const counts = new Map<string, number>();
  for (const e of examples) for (const tag of new Set(e.tags)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return [...counts]
    .filter(([, n]) => n >= minDocuments)
    .map(([tag]) => tag)
    .sort();
}

function buildVocabulary(examples: readonly TaggedExample[]): Vocabulary {
  const df = new Map<string, number>();
  for (const e of examples) for (const term of Object.keys(e.terms)) df.set(term, (df.get(term) ?? 0) + 1);
  const kept = [...df]
    .filter(([, n]) => n >= MIN_TERM_DOCUMENTS)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_VOCABULARY);
  return {
    terms: kept.map(([t]) => t),
    idf: Float64Array.from(kept, ([, f]) => idfOf(f, examples.length)),
    unknownIdf: idfOf(1, examples.length),
    indexOf: new Map(kept.map(([t], i) => [t, i])),
  };
}

const tf = (count: number) => 1 + Math.log(Math.max(1, count));
const idfOf = (documentFrequency: number, documents: number) => Math.log((documents + 1) / (documentFrequency + 1)) + 1;

/**
 * Sublinear term frequency times inverse document frequency, scaled to unit length. Terms the
 * vocabulary lacks (seen in one training document, or never) count in the length too, at the
 * rarest idf and `UNKNOWN_WEIGHT`: a document that shares only a few common words with the
 * training documents gets small values (a score near the prior) instead of those words blown up to
 * full weight, while a document's own rare words do not drown its topical ones.
 */
function vectorize(terms: Terms, vocabulary: Vocabulary): SparseVector {
  const index: number[] = [];
  const value: number[] = [];
  let sum = 0;
  for (const [term, count] of Object.entries(terms)) {
    const i = vocabulary.indexOf.get(term);
    const v = tf(count) * (i === undefined ? vocabulary.unknownIdf : vocabulary.idf[i]!);
    if (i === undefined) {
      sum += (UNKNOWN_WEIGHT * v) ** 2;
      continue;
    }
    sum += v * v;
    index.push(i);
    value.push(v);
  }
  const norm = Math.sqrt(sum) || 1;
  return { index: Int32Array.from(index), value: Float64Array.from(value, (v) => v / norm) };
}

interface LinearModel {
  weights: Float64Array;
  bias: number;
}

function score(model: LinearModel, x: SparseVector): number {
  let z = model.bias;
  for (let k = 0; k < x.index.length; k++) z += model.weights[x.index[k]!]! * x.value[k]!;
  return z;
}

/**
 * The unit-length mean of the vectors of a tag's documents, its strongest terms kept: a second
 * view beside the regression, robust with few documents (a regression on five documents leans on a
 * few of their words; the centroid on all of them).
 */
function centroidOf(xs: readonly SparseVector[], ys: readonly boolean[]): Map<number, number> {
  const sum = new Map<number, number>();
  xs.forEach((x, i) => {
    if (!ys[i]) return;
    for (let k = 0; k < x.index.length; k++) sum.set(x.index[k]!, (sum.get(x.index[k]!) ?? 0) + x.value[k]!);
  });
  const kept = [...sum].sort((p, q) => q[1] - p[1] || p[0] - q[0]).slice(0, MAX_CENTROID_TERMS);
  const norm = Math.sqrt(kept.reduce((n, [, w]) => n + w * w, 0)) || 1;
  return new Map(kept.map(([j, w]) => [j, w / norm]));
}

function similarity(centroid: Map<number, number>, x: SparseVector): number {
  let z = 0;
  for (let k = 0; k < x.index.length; k++) z += (centroid.get(x.index[k]!) ?? 0) * x.value[k]!;
  return z;
}

/**
 * L2-regularised logistic regression, full-batch AdaGrad, positives and negatives weighted to
 * count equally (a tag is on few of a tenant's documents). `start` carries a previous model's
 * weights for a shorter, warm run.
 */
function fitLogistic(
  xs: readonly SparseVector[],
  ys: readonly boolean[],
  dimensions: number,
  start?: LinearModel,
): LinearModel {
  const weights = start ? Float64Array.from(start.weights) : new Float64Array(dimensions);
  let bias = start?.bias ?? 0;
  const gradient = new Float64Array(dimensions);
  const squares = new Float64Array(dimensions).fill(1e-8);
  let biasSquares = 1e-8;
  const positives = ys.filter(Boolean).length;
  const classWeight = [xs.length / (2 * Math.max(1, xs.length - positives)), xs.length / (2 * Math.max(1, positives))];
  const passes = start ? WARM_PASSES : PASSES;
  for (let pass = 0; pass < passes; pass++) {
    gradient.fill(0);
    let biasGradient = 0;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      const y = ys[i] ? 1 : 0;
      const error = ((sigmoid(score({ weights, bias }, x)) - y) * classWeight[y]!) / xs.length;
      biasGradient += error;
      for (let k = 0; k < x.index.length; k++) gradient[x.index[k]!]! += error * x.value[k]!;
    }
    for (let j = 0; j < dimensions; j++) {
      const g = gradient[j]! + L2 * weights[j]!;
      if (g === 0) continue;
      squares[j]! += g * g;
      weights[j]! -= (STEP * g) / Math.sqrt(squares[j]!);
    }
    biasSquares += biasGradient * biasGradient;
    bias -= (STEP * biasGradient) / Math.sqrt(biasSquares);
  }
  return prune({ weights, bias });
}

/** Keeps the strongest weights, so the scores seen in calibration are those of the stored model. */
function prune(model: LinearModel): LinearModel {
  const order = [...model.weights.keys()]
    .filter((j) => model.weights[j] !== 0)
    .sort((a, b) => Math.abs(model.weights[b]!) - Math.abs(model.weights[a]!));
  const weights = new Float64Array(model.weights.length);
  for (const j of order.slice(0, MAX_WEIGHTS_PER_TAG)) weights[j] = model.weights[j]!;
  return { weights, bias: model.bias };
}

/** The previous model's weights placed in the new vocabulary (terms it no longer has are dropped). */
function warmStart(previous: LearnedTagModel, vocabulary: Vocabulary): Map<string, LinearModel> {
  const out = new Map<string, LinearModel>();
  for (const tag of previous.tags) {
    const weights = new Float64Array(vocabulary.terms.length);
    for (const [i, w] of tag.weights) {
      const j = vocabulary.indexOf.get(previous.terms[i]!);
      if (j !== undefined) weights[j] = w;
    }
    out.set(tag.name, { weights, bias: tag.bias });
  }
  return out;
}

/**
 * The calibration's three numbers, from scores each document got from models trained without it
 * (folds by position, so training stays deterministic). Platt's targets ((n₊+1)/(n₊+2) and
 * 1/(n₋+2)) keep a small tenant's confidences off 0 and 1.
 */
async function calibrate(
  xs: readonly SparseVector[],
  labels: readonly (readonly boolean[])[],
  dimensions: number,
  signal?: AbortSignal,
): Promise<[number, number, number, number, number]> {
  const points: { features: number[]; y: boolean }[] = [];
  for (let fold = 0; fold < CALIBRATION_FOLDS; fold++) {
    const train = xs.map((_, i) => i).filter((i) => i % CALIBRATION_FOLDS !== fold);
    const test = xs.map((_, i) => i).filter((i) => i % CALIBRATION_FOLDS === fold);
    if (test.length === 0) continue;
    const scores: number[][] = [];
    const similarities: number[][] = [];
    for (const ys of labels) {
      await breathe(signal);
      const trainXs = train.map((i) => xs[i]!);
      const trainYs = train.map((i) => ys[i]!);
      const model = fitLogistic(trainXs, trainYs, dimensions);
      const centroid = centroidOf(trainXs, trainYs);
      scores.push(test.map((i) => score(model, xs[i]!)));
      similarities.push(test.map((i) => similarity(centroid, xs[i]!)));
    }
    test.forEach((docIndex, k) => {
      const best = Math.max(...scores.map((s) => s[k]!));
      const bestSimilarity = Math.max(...similarities.map((s) => s[k]!));
      labels.forEach((ys, t) => {
        points.push({
          features: [
            scores[t]![k]!,
            scores[t]![k]! - best,
            1,
            similarities[t]![k]!,
            similarities[t]![k]! - bestSimilarity,
          ],
          y: ys[docIndex]!,
        });
      });
    });
  }
  const [a, b, c, d, e] = fitPlatt(points);
  return [a!, b!, c!, d!, e!];
}

/**
 * Logistic regression of the labels on a few features (Newton's method, a small ridge on all but
 * the intercept, the third feature), to Platt's smoothed targets.
 */
function fitPlatt(points: readonly { features: number[]; y: boolean }[]): number[] {
  const n = points[0]?.features.length ?? 4;
  const positives = points.filter((p) => p.y).length;
  const negatives = points.length - positives;
  const high = (positives + 1) / (positives + 2);
  const low = 1 / (negatives + 2);
  const RIDGE = 1e-3;
  const INTERCEPT = 2;
  const ridge = (i: number) => (i === INTERCEPT ? 1e-9 : RIDGE);
  const z = (theta: number[], x: number[]) => x.reduce((sum, v, i) => sum + v * theta[i]!, 0);
  const loss = (theta: number[]) => {
    let sum = theta.reduce((r, v, i) => r + (i === INTERCEPT ? 0 : (RIDGE / 2) * v * v), 0);
    for (const p of points) {
      const zi = z(theta, p.features);
      // log(1 + e^z) − t·z, computed without overflow.
      sum += (zi > 0 ? zi + Math.log1p(Math.exp(-zi)) : Math.log1p(Math.exp(zi))) - (p.y ? high : low) * zi;
    }
    return sum;
  };
  let theta: number[] = Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 0));
  let current = loss(theta);
  for (let iteration = 0; iteration < 100; iteration++) {
    const g = theta.map((v, i) => ridge(i) * v);
    const h = theta.map((_, i) => theta.map((__, j) => (i === j ? ridge(i) : 0)));
    for (const p of points) {
      const prob = sigmoid(z(theta, p.features));
      const error = prob - (p.y ? high : low);
      const curvature = prob * (1 - prob);
      for (let i = 0; i < n; i++) {
        g[i]! += error * p.features[i]!;
        for (let j = 0; j < n; j++) h[i]![j]! += curvature * p.features[i]! * p.features[j]!;
      }
    }
    const step = solve(h, g);
    if (!step) break;
    // Halving a step that does not lower the loss.
    let scale = 1;
    let next = theta.map((v, i) => v - step[i]!);
    let nextLoss = loss(next);
    while (!(nextLoss <= current) && scale > 1e-6) {
      scale /= 2;
      next = theta.map((v, i) => v - scale * step[i]!);
      nextLoss = loss(next);
    }
    if (!(nextLoss <= current)) break;
    const moved = current - nextLoss;
    theta = next;
    current = nextLoss;
    if (moved < 1e-10) break;
  }
  return theta.map(round);
}

/** Solves h·x = g by Gaussian elimination with partial pivoting; null when singular. */
function solve(h: number[][], g: number[]): number[] | null {
  const n = g.length;
  const m = h.map((row, i) => [...row, g[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    if (!Number.isFinite(m[pivot]![col]!) || Math.abs(m[pivot]![col]!) < 1e-15) return null;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / m[col]![col]!;
      for (let c = col; c <= n; c++) m[r]![c]! -= f * m[col]![c]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/** The stored form: the vocabulary (its terms set a document's length), each tag's kept weights, numbers rounded. */
function pack(
  vocabulary: Vocabulary,
  tags: { name: string; documents: number; model: LinearModel; centroid: Map<number, number> }[],
  calibration: [number, number, number, number, number],
  documents: number,
): LearnedTagModel {
  const packed: TagWeights[] = tags.map(({ name, documents: count, model, centroid }) => {
    const weights: [number, number][] = [];
    model.weights.forEach((w, j) => {
      if (w !== 0) weights.push([j, round(w)]);
    });
    weights.sort((p, q) => Math.abs(q[1]) - Math.abs(p[1]));
    return {
      name,
      documents: count,
      bias: round(model.bias),
      weights,
      centroid: [...centroid].map(([j, w]) => [j, round(w)] as [number, number]),
    };
  });
  return {
    version: 1,
    documents,
    terms: vocabulary.terms,
    idf: Array.from(vocabulary.idf, round),
    tags: packed,
    calibration,
  };
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** Lets the worker's other jobs and heartbeats run between tags; stops when the job is aborted. */
async function breathe(signal?: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}
