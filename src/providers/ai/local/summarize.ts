import type { DocumentType, FieldValue, Scored } from '../ai-provider.ts';
import { formatMoney } from '../ai-provider.ts';
import { segmentText } from '../segmentation.ts';
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
  return pickSentences(text, { wanted: null, budget: MAX_CHARS });
}

/**
 * A summary that says what the document is: a first sentence built from its type and key fields
 * ("Invoice INV-0142 from Copperleaf Design Studio to Meridian Health Partners, USD 7,800.00, due
 * 2026-04-14."), then its most informative one or two sentences of prose. Without a type, the
 * extractive summary. The confidence is the lead's (type and fields) or a modest one for prose alone.
 */
export function summarizeDocument(
  text: string,
  type: Scored<DocumentType>,
  fields: Record<string, Scored<FieldValue>>,
): Scored<string> {
  const lead = type.value === 'other' ? null : leadSentence(type.value, fields, text);
  if (!lead) {
    const table = describeTable(text);
    return { value: table ?? summarizeText(text), confidence: table ? 0.8 : 0.6 };
  }
  // A short document gets a short summary: the lead and prose together stay near a quarter of it.
  const room = Math.min(MAX_CHARS - lead.text.length - 1, Math.round(text.length * 0.28) - lead.text.length);
  const body = room >= 60 ? pickSentences(text, { wanted: 2, budget: room, avoid: lead.text }) : '';
  const used = lead.fields.map((f) => fields[f]!.confidence);
  const confidence = Math.min(type.confidence, used.length > 0 ? used.reduce((a, b) => a + b, 0) / used.length : 0.6);
  return {
    value: clip(body ? `${lead.text} ${body}` : lead.text, MAX_CHARS),
    confidence: Math.round(confidence * 100) / 100,
  };
}

const TYPE_NAMES: Record<DocumentType, string> = {
  invoice: 'Invoice',
  receipt: 'Receipt',
  purchase_order: 'Purchase order',
  quote: 'Quote',
  contract: 'Contract',
  lease: 'Lease',
  nda: 'Non-disclosure agreement',
  employment_letter: 'Employment offer',
  policy: 'Policy',
  minutes: 'Minutes',
  memo: 'Memo',
  report: 'Report',
  letter: 'Letter',
  email: 'E-mail',
  cv: 'CV',
  statement: 'Statement',
  other: 'Document',
};

/** The first sentence: the type and the fields that identify it, with the fields it used. */
function leadSentence(
  type: DocumentType,
  fields: Record<string, Scored<FieldValue>>,
  text: string,
): { text: string; fields: string[] } {
  const used: string[] = [];
  const get = (name: string): string | null => {
    const f = fields[name];
    if (!f || f.confidence < 0.5) return null;
    used.push(name);
    return show(f.value);
  };
  const parts: string[] = [TYPE_NAMES[type]];
  const add = (text: string | null) => {
    if (text) parts.push(text);
  };
  const number = get('document_number');
  if (number) parts[0] += ` ${number}`;
  const from = (a: string | null, b: string | null, word = 'from') =>
    a && b ? `${word} ${a} to ${b}` : a ? `${word} ${a}` : b ? `to ${b}` : null;
  const figures: string[] = [];
  const figure = (prefix: string, name: string) => {
    const v = get(name);
    if (v) figures.push(prefix ? `${prefix} ${v}` : v);
  };
  switch (type) {
    case 'invoice':
    case 'quote':
      add(from(get('vendor'), get('customer')));
      figure('', 'total');
      figure(type === 'invoice' ? 'due' : 'valid until', type === 'invoice' ? 'due_date' : 'valid_until');
      if (!fields['due_date'] && !fields['valid_until']) figure('dated', 'issue_date');
      break;
    case 'receipt':
      add(from(get('vendor'), null));
      figure('', 'total');
      figure('paid', 'issue_date');
      break;
    case 'purchase_order':
      add(from(get('buyer'), get('supplier')));
      figure('', 'total');
      figure('delivery by', 'delivery_date');
      break;
    case 'contract':
    case 'nda': {
      const p = get('parties');
      if (p) parts.push(`between ${p}`);
      figure('effective', 'effective_date');
      figure('for', 'term');
      if (type === 'contract') figure('worth', 'value');
      break;
    }
    case 'lease': {
      const property = get('property');
      if (property) parts[0] += ` of ${property}`;
      add(from(get('landlord'), get('tenant')));
      figure('rent', 'rent');
      figure('for', 'term');
      figure('from', 'start_date');
      break;
    }
    case 'employment_letter':
      add(from(get('employer'), get('employee')));
      figure('as', 'role');
      figure('salary', 'salary');
      figure('starting', 'start_date');
      break;
    case 'policy':
    case 'report':
    case 'minutes': {
      const t = type === 'minutes' ? minutesTitle(text) : get('title');
      const own = {
        minutes: /\bminutes\b/i,
        policy: /\b(?:policy|procedure|code\s+of)\b/i,
        report: /\b(?:report|review|assessment|audit|analysis)\b/i,
      }[type];
      if (t) parts[0] = own.test(t) ? sentenceCase(t) : `${TYPE_NAMES[type]}${type === 'minutes' ? ' of' : ':'} ${t}`;
      const org = type === 'minutes' ? null : get('organization');
      if (org && !(t ?? '').includes(org)) parts.push(`(${org})`);
      figure(
        type === 'minutes' ? 'held' : type === 'policy' ? 'effective' : 'dated',
        type === 'minutes' ? 'meeting_date' : type === 'policy' ? 'effective_date' : 'issue_date',
      );
      figure('chaired by', 'chair');
      break;
    }
    case 'memo':
    case 'email':
    case 'letter': {
      add(from(get(type === 'letter' ? 'sender' : 'from'), get(type === 'letter' ? 'recipient' : 'to')));
      figure('', 'issue_date');
      const s = get('subject');
      if (s) figures.push(`about ${s}`);
      break;
    }
    case 'cv': {
      const person = get('person');
      if (person) parts.push(`of ${person}`);
      figure('', 'role');
      break;
    }
    case 'statement':
      add(get('account_holder') ? `for ${get('account_holder')}` : null);
      add(get('institution') ? `from ${get('institution')}` : null);
      if (fields['period_start'] && fields['period_end'])
        figures.push(`${get('period_start')} to ${get('period_end')}`);
      figure('closing balance', 'closing_balance');
      break;
    default:
      break;
  }
  const sentence = [parts.join(' '), ...figures].join(', ').replace(/\s+/g, ' ').trim();
  return { text: `${sentence.replace(/[.,;:]+$/, '')}.`, fields: [...new Set(used)] };
}

/** The heading of minutes ("Minutes of the Operations Committee meeting"), when its first lines have one. */
function minutesTitle(text: string): string | null {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.replace(/[#*=_|]+/g, ' ').trim())
    .filter((l) => l !== '')
    .slice(0, 3);
  return lines.find((l) => l.length <= 100 && /\b(?:minutes|meeting)\b/i.test(l)) ?? null;
}

/** "MINUTES OF THE BOARD MEETING" → "Minutes of the board meeting"; mixed case stays. */
function sentenceCase(text: string): string {
  const clean = text.replace(/[.:;,]+$/, '').trim();
  return clean === clean.toUpperCase() ? clean.charAt(0) + clean.slice(1).toLowerCase() : clean;
}

const PER: Record<string, string> = {
  hour: 'an hour',
  day: 'a day',
  week: 'a week',
  month: 'a month',
  quarter: 'a quarter',
  year: 'a year',
};

function show(value: FieldValue): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value))
    return value.length <= 2 ? value.join(' and ') : `${value.slice(0, -1).join(', ')} and ${value[value.length - 1]}`;
  if ('currency' in value) return `${formatMoney(value)}${value.period ? ` ${PER[value.period]}` : ''}`;
  return value.text;
}

// Sentences a summary does not quote: greetings, closings, headers, contact lines, legal boilerplate.
const BOILERPLATE =
  /\b(?:do not hesitate|please (?:contact|call|let us know|feel free)|thank you for your (?:business|attention|time|order|letter)|if you have any (?:questions|queries)|(?:e-?mail|message)[^.]{0,40}\b(?:confidential|intended (?:solely|only))|page \d+ of \d+|all rights reserved|registered (?:office|in)|company (?:no|number|registration)|vat (?:no|reg)|unsubscribe|printed on|look forward to (?:hearing|working)|kind regards|yours (?:sincerely|faithfully))\b/i;
const HEADER_LINE = /^(?:from|to|cc|bcc|sent|date|subject|re|attn|attention|tel|phone|fax|email|e-mail|web|www)\s*:/i;

function quotable(sentence: Sentence): boolean {
  const text = sentence.text;
  if (/\||^#|^\s*>/.test(text) || HEADER_LINE.test(text) || BOILERPLATE.test(text)) return false;
  if (/\S+@\S+\.\S+|https?:\/\//.test(text)) return false;
  if (/^(?:dear|hi|hello|hey)\b/i.test(text)) return false;
  return isProse(sentence);
}

/** The best sentences of the text (TextRank), in document order, within `budget` characters. */
function pickSentences(text: string, options: { wanted: number | null; budget: number; avoid?: string }): string {
  const strict = options.wanted !== null;
  // After a lead sentence, only prose is quoted: the shared segmentation tells headers, fields,
  // table rows and signatures apart from sentences and clauses.
  const all = (
    strict ? segmentText(text).filter((s) => s.kind === 'sentence' || s.kind === 'clause') : splitSentences(text)
  )
    .map((s) => ({ text: tidy(s.text), start: s.start, end: s.end }))
    .filter((s) => s.text.length > 0);
  const candidates = all.filter(strict ? quotable : isProse);
  const pool = (candidates.length >= 2 || strict ? candidates : all).slice(0, MAX_SENTENCES_RANKED);
  if (pool.length === 0) return '';
  if (pool.length === 1) {
    const only = pool[0]!.text;
    return strict
      ? only.length <= options.budget
        ? only
        : ''
      : clip(only, Math.min(MAX_CHARS, Math.max(80, Math.floor(text.length / 2))));
  }

  // TextRank favours sentences similar to many others; short ones ("Okay, thanks.") say little;
  // a sentence with figures (amounts, dates, counts) tells more than one without.
  const avoid = new Set(contentStems(options.avoid ?? ''));
  const scores = textRank(pool).map((score, i) => {
    const stems = contentStems(pool[i]!.text);
    const fresh = stems.length === 0 ? 0 : stems.filter((t) => !avoid.has(t)).length / stems.length;
    const figures = strict && /\d/.test(pool[i]!.text) ? 1.2 : 1;
    return score * Math.sqrt(Math.min(stems.length, 10) / 10) * (strict ? 0.4 + 0.6 * fresh : 1) * figures;
  });
  const wanted = options.wanted ?? Math.min(4, Math.max(2, Math.round(pool.length * 0.2)));
  const budget = strict ? options.budget : Math.min(MAX_CHARS, Math.max(160, Math.round(text.length * 0.25)));
  const ranked = pool.map((s, i) => ({ s, i, score: scores[i]! })).sort((a, b) => b.score - a.score || a.i - b.i);

  const chosen: typeof ranked = [];
  let length = 0;
  for (const item of ranked) {
    if (chosen.length >= wanted) break;
    const extra = item.s.text.length + (chosen.length > 0 ? 1 : 0);
    if ((chosen.length > 0 || strict) && length + extra > budget) continue;
    chosen.push(item);
    length += extra;
  }
  chosen.sort((a, b) => a.i - b.i);
  if (strict && chosen.length > 0 && chosen[0]!.s.text.length > budget) return '';
  return clip(chosen.map((c) => c.s.text).join(' '), strict ? Math.max(budget, 1) : MAX_CHARS);
}

// Sentences worth quoting: real prose, not headings, field lines, table rows or bare numbers.
function isProse(sentence: Sentence): boolean {
  const text = sentence.text;
  const letters = text.replace(/[^\p{L}]/gu, '').length;
  const wordCount = text.split(/\s+/).length;
  if (wordCount < 5 || letters < text.length * 0.55 || !/\p{Ll}/u.test(text)) return false;
  // "Subtotal | 325,700.00", "Tel: … | accounts@…": a table row or a contact line, not prose.
  if (/\s\|\s/.test(text)) return false;
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
  const delimiter = [',', '\t', ';'].find(
    (d) => lines.filter((l) => l.split(d).length >= 4).length >= lines.length * 0.5,
  );
  if (!delimiter || lines.length < 3) return null;
  const headerIndex = lines.findIndex((l) => l.split(delimiter).length >= 4);
  const header = lines[headerIndex]!.split(delimiter)
    .map((c) => c.trim())
    .filter(Boolean);
  let rows = 0;
  for (
    let i = headerIndex + 1;
    i < lines.length && lines[i]!.split(delimiter).length === lines[headerIndex]!.split(delimiter).length;
    i++
  )
    rows++;
  const title = headerIndex > 0 ? `${tidy(lines[headerIndex - 1]!).replace(/[.:]$/, '')}: ` : '';
  return clip(`${title}a table of ${rows} row${rows === 1 ? '' : 's'} with columns ${header.join(', ')}.`, MAX_CHARS);
}

/** Cuts text at a word boundary before `max` characters, marking the cut with an ellipsis. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, cut > max / 2 ? cut : max - 1).replace(/[\s,;:]+$/, '')}…`;
}
