import { contentStems, type Sentence, splitSentences } from '../text.ts';

const MAX_CHARS = 600;
const MAX_SENTENCES_RANKED = 400;

/**
 * Extractive summary: sentences ranked by TextRank over a tf-idf cosine similarity graph, with a
 * mild preference for early sentences (documents tend to state their point first). Returns 2–4 of
 * them in document order, about a fifth of a short text and never more than ~600 characters.
 */
export function summarizeText(text: string): string {
  const table = describeTable(text);
  if (table) return table;
  const all = splitSentences(text).map((s) => ({ ...s, text: tidy(s.text) })).filter((s) => s.text.length > 0);
  const candidates = all.filter(isProse);
  const pool = (candidates.length >= 2 ? candidates : all).slice(0, MAX_SENTENCES_RANKED);
  if (pool.length === 0) return '';
  if (pool.length === 1) return clip(pool[0]!.text, Math.min(MAX_CHARS, Math.max(80, Math.floor(text.length / 2))));

  // TextRank favours sentences similar to many others; short ones ("Okay, thanks.") say little.
  const scores = textRank(pool).map((score, i) => score * Math.sqrt(Math.min(contentStems(pool[i]!.text).length, 10) / 10));
  const wanted = Math.min(4, Math.max(2, Math.round(pool.length * 0.2)));
  const budget = Math.min(MAX_CHARS, Math.max(160, Math.round(text.length * 0.25)));
  const ranked = pool.map((s, i) => ({ s, i, score: scores[i]! })).sort((a, b) => b.score - a.score || a.i - b.i);

  const chosen: typeof ranked = [];
  let length = 0;
  for (const item of ranked) {
    if (chosen.length >= wanted) break;
    const extra = item.s.text.length + (chosen.length > 0 ? 1 : 0);
    if (chosen.length > 0 && length + extra > budget) continue;
    chosen.push(item);
    length += extra;
  }
  chosen.sort((a, b) => a.i - b.i);
  return clip(chosen.map((c) => c.s.text).join(' '), MAX_CHARS);
}

// Sentences worth quoting: real prose, not headings, field lines, table rows or bare numbers.
function isProse(sentence: Sentence): boolean {
  const text = sentence.text;
  const letters = text.replace(/[^\p{L}]/gu, '').length;
  const wordCount = text.split(/\s+/).length;
  if (wordCount < 5 || letters < text.length * 0.55 || !/\p{Ll}/u.test(text)) return false;
  if (/[,;\t].*[,;\t].*[,;\t].*[,;\t]/.test(text) && !/\s(?:the|and|of|to|is|are|was|will)\s/i.test(text)) return false;
  // A line without a full stop is a heading or a field unless it is long enough to be prose.
  return /[.!?]["')\]]?$/.test(text) || wordCount >= 14;
}

// One line of text for the summary: wrapped lines joined, transcript timestamps dropped.
function tidy(text: string): string {
  return text
    .replace(/\[\d{1,2}:\d{2}(?::\d{2})?\]\s*/g, '')
    .replace(/^\s*[-*•·▪◦–]\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** PageRank over sentence similarities; returns one score per sentence. */
function textRank(sentences: Sentence[]): number[] {
  const n = sentences.length;
  const bags = sentences.map((s) => termCounts(contentStems(s.text)));
  const df = new Map<string, number>();
  for (const bag of bags) for (const term of bag.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const vectors = bags.map((bag) => {
    const v = new Map<string, number>();
    let norm = 0;
    for (const [term, count] of bag) {
      const w = (1 + Math.log(count)) * Math.log(1 + n / (df.get(term) ?? 1));
      v.set(term, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [term, w] of v) v.set(term, w / norm);
    return v;
  });

  const edges: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const outWeight = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const sim = cosine(vectors[i]!, vectors[j]!);
      if (sim <= 0.01) continue;
      edges[i]![j] = sim;
      edges[j]![i] = sim;
      outWeight[i]! += sim;
      outWeight[j]! += sim;
    }
  }

  // Lead bias as the teleport distribution: sentence i gets weight 1/sqrt(i+1).
  const prior = sentences.map((_, i) => 1 / Math.sqrt(i + 1));
  const priorSum = prior.reduce((a, b) => a + b, 0);
  for (let i = 0; i < n; i++) prior[i]! /= priorSum;

  const damping = 0.85;
  let scores = prior.slice();
  for (let iteration = 0; iteration < 40; iteration++) {
    const next = prior.map((p) => (1 - damping) * p);
    for (let j = 0; j < n; j++) {
      if (outWeight[j] === 0) {
        // A sentence similar to nothing gives its score back through the prior.
        for (let i = 0; i < n; i++) next[i]! += damping * scores[j]! * prior[i]!;
        continue;
      }
      const row = edges[j]!;
      const share = (damping * scores[j]!) / outWeight[j]!;
      for (let i = 0; i < n; i++) if (row[i]! > 0) next[i]! += share * row[i]!;
    }
    let delta = 0;
    for (let i = 0; i < n; i++) delta += Math.abs(next[i]! - scores[i]!);
    scores = next;
    if (delta < 1e-6) break;
  }
  return scores;
}

function termCounts(terms: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, w] of small) {
    const other = large.get(term);
    if (other !== undefined) dot += w * other;
  }
  return dot;
}

/**
 * A text made mostly of delimited rows (a spreadsheet or CSV export) has no sentences to pick:
 * it is described instead, by its title line and the columns of its first table.
 */
function describeTable(text: string): string | null {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const delimiter = [',', '\t', ';'].find((d) => lines.filter((l) => l.split(d).length >= 4).length >= lines.length * 0.5);
  if (!delimiter || lines.length < 3) return null;
  const headerIndex = lines.findIndex((l) => l.split(delimiter).length >= 4);
  const header = lines[headerIndex]!.split(delimiter).map((c) => c.trim()).filter(Boolean);
  let rows = 0;
  for (let i = headerIndex + 1; i < lines.length && lines[i]!.split(delimiter).length === lines[headerIndex]!.split(delimiter).length; i++) rows++;
  const title = headerIndex > 0 ? `${tidy(lines[headerIndex - 1]!).replace(/[.:]$/, '')}: ` : '';
  return clip(`${title}a table of ${rows} row${rows === 1 ? '' : 's'} with columns ${header.join(', ')}.`, MAX_CHARS);
}

/** Cuts text at a word boundary before `max` characters, marking the cut with an ellipsis. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, cut > max / 2 ? cut : max - 1).replace(/[\s,;:]+$/, '')}…`;
}
