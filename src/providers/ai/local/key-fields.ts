import type { DocumentType, DurationField, EntityDetails, FieldValue, MoneyField, Scored } from '../ai-provider.ts';
import { type AmountMention, parseNumber } from './amounts.ts';
import type { DateMention } from './dates.ts';
import type { Locale } from './locale.ts';

// The fields a reader of each kind of document looks for (docs/processing.md lists them), read
// from labelled lines ("Invoice No: INV-0142", "Bill to:" and the block under it), phrases of
// the prose ("payable by 14 April", "the position of Senior Analyst", "a term of five years")
// and, failing those, the document's layout (the issuer in the letterhead). Each field carries
// the confidence of the way it was found: a label beats a phrase, a phrase beats a guess.

export type KeyFields = Record<string, Scored<FieldValue>>;

/** What the field readers work from: the text and what the entity pass already found in it. */
export interface FieldContext {
  text: string;
  entities: EntityDetails;
  dates: DateMention[];
  amounts: AmountMention[];
  locale: Locale;
}

interface Line {
  text: string;
  start: number;
}

interface Labelled {
  label: string;
  value: string;
  /** Where the value starts in the text, and its line. */
  start: number;
  end: number;
  line: number;
}

const LABELLED = /^\s*(?:[-*•]\s*)?([\p{L}][\p{L}#.&/ ()'-]{0,40}?)\s*(?::|\s#|\t|\s{2,}|\s\|\s)\s*(.*)$/u;

/** A document's lines and its labelled values, shared by every field reader. */
class Layout {
  readonly lines: Line[] = [];
  readonly labelled: Labelled[] = [];
  readonly ctx: FieldContext;
  constructor(ctx: FieldContext) {
    this.ctx = ctx;
    let start = 0;
    for (const raw of ctx.text.split('\n')) {
      this.lines.push({ text: raw.replace(/\r$/, ''), start });
      start += raw.length + 1;
    }
    this.lines.forEach((line, index) => {
      const m = LABELLED.exec(line.text);
      if (!m || m[1]!.split(/\s+/).length > 5) return;
      let value = m[2]!.replace(/\s*\|\s*$/, '').trim();
      let valueStart = line.start + line.text.length - m[2]!.length;
      let valueLine = index;
      // "Bill to:" with the name on the next line.
      if (value === '' && this.lines[index + 1] && this.lines[index + 1]!.text.trim() !== '') {
        value = this.lines[index + 1]!.text.trim();
        valueStart = this.lines[index + 1]!.start;
        valueLine = index + 1;
      }
      if (value === '') return;
      this.labelled.push({
        label: m[1]!
          .toLowerCase()
          .replace(/[.#:]+/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
        value,
        start: valueStart,
        end: valueStart + m[2]!.length,
        line: valueLine,
      });
    });
  }

  /** The first labelled value whose label matches. */
  label(pattern: RegExp): Labelled | null {
    return this.labelled.find((l) => pattern.test(l.label)) ?? null;
  }

  /** The text of lines [from, to). */
  block(from: number, count: number): { text: string; start: number; end: number } {
    const lines = this.lines.slice(from, from + count);
    if (lines.length === 0) return { text: '', start: 0, end: 0 };
    const last = lines[lines.length - 1]!;
    return { text: lines.map((l) => l.text).join('\n'), start: lines[0]!.start, end: last.start + last.text.length };
  }

  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lines[mid]!.start <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

const scored = <T extends FieldValue>(value: T, confidence: number): Scored<FieldValue> => ({ value, confidence });
const money = (a: AmountMention): MoneyField => ({ value: a.amount, currency: a.currency, text: a.text });

const PERIODS: [RegExp, NonNullable<MoneyField['period']>][] = [
  [/^\s*(?:per|a|each|every|\/)\s*(?:calendar\s+)?month\b|^\s*(?:monthly|pcm|p\.?c\.?m\.?)\b/i, 'month'],
  [/^\s*(?:per|a|each|every|\/)\s*(?:annum|year|yr)\b|^\s*(?:annually|yearly|p\.?a\.?)(?!\p{L})/iu, 'year'],
  [/^\s*(?:per|an|each|every|\/)\s*(?:hour|hr)\b|^\s*hourly\b/i, 'hour'],
  [/^\s*(?:per|a|each|every|\/)\s*week\b|^\s*weekly\b/i, 'week'],
  [/^\s*(?:per|a|each|every|\/)\s*(?:day|night)\b|^\s*daily\b/i, 'day'],
  [/^\s*(?:per|a|each|every|\/)\s*quarter\b|^\s*quarterly\b/i, 'quarter'],
];
const PERIODS_BEFORE: [RegExp, NonNullable<MoneyField['period']>][] = [
  [/\b(?:monthly|per\s+month)\b[^.\d]{0,30}$/i, 'month'],
  [/\b(?:annual|yearly|per\s+annum)\b[^.\d]{0,30}$/i, 'year'],
  [/\b(?:hourly)\b[^.\d]{0,30}$/i, 'hour'],
  [/\b(?:weekly)\b[^.\d]{0,30}$/i, 'week'],
  [/\b(?:quarterly)\b[^.\d]{0,30}$/i, 'quarter'],
];

/** The period a recurring sum is per, from the words after it ("per calendar month"); undefined when none. */
export function periodAfter(words: string): MoneyField['period'] {
  return PERIODS.find(([re]) => re.test(words))?.[1];
}

/** A duration as a model or a person writes it ("P12M", "12 months", "five (5) years"); null when it is not one. */
export function parseDuration(raw: string): DurationField | null {
  const trimmed = raw.trim();
  if (/^P(?:\d+[YMWD])+$/.test(trimmed)) return { value: trimmed, text: trimmed };
  const m = new RegExp(`${COUNT}${UNIT}`, 'i').exec(trimmed);
  return m ? duration(m, 1) : null;
}

/** A recurring sum's period, from the words around it ("£2,150 per calendar month", "an annual salary of"). */
function withPeriod(field: Scored<FieldValue> | null, text: string): Scored<FieldValue> | null {
  if (!field || typeof field.value !== 'object' || Array.isArray(field.value) || !('currency' in field.value))
    return field;
  const at = text.indexOf(field.value.text);
  if (at < 0) return field;
  const after = text.slice(at + field.value.text.length, at + field.value.text.length + 30);
  const before = text.slice(Math.max(0, at - 60), at);
  const period = PERIODS.find(([re]) => re.test(after))?.[1] ?? PERIODS_BEFORE.find(([re]) => re.test(before))?.[1];
  return period ? { ...field, value: { ...field.value, period } } : field;
}

// --- readers shared by several kinds ---------------------------------------------------------

const NUMBER_TOKEN = /(?<![\p{L}\d-])((?:[A-Z0-9]+[-/.])*[A-Z0-9]*\d[A-Z0-9]*(?:[-/.][A-Z0-9]+)*)(?![\p{L}\d])/iu;

function documentNumber(layout: Layout, labels: RegExp, words: string): Scored<FieldValue> | null {
  const labelled = layout.labelled.find((l) => labels.test(l.label) && NUMBER_TOKEN.test(l.value));
  if (labelled) return scored(NUMBER_TOKEN.exec(labelled.value)![1]!, 0.92);
  // "Invoice INV-2026-0142", "Purchase Order No. 55120" in prose or a title.
  const phrase = new RegExp(
    `\\b(?:${words})\\s*(?:no\\.?|number|#|ref(?:erence)?\\.?)?\\s*[:#]?\\s*([A-Z0-9][A-Z0-9/-]*\\d[A-Z0-9/-]*)`,
    'i',
  ).exec(layout.ctx.text);
  return phrase && /\d/.test(phrase[1]!) && !/^(?:19|20)\d{2}$/.test(phrase[1]!)
    ? scored(phrase[1]!.replace(/[-/.]$/, ''), 0.8)
    : null;
}

/** An amount on a labelled line ("Total due: USD 7,800.00"); the line's last amount, where totals sit. */
function labelledAmount(layout: Layout, labels: RegExp, avoid?: RegExp): Scored<FieldValue> | null {
  const { amounts } = layout.ctx;
  for (let i = layout.lines.length - 1; i >= 0; i--) {
    const line = layout.lines[i]!;
    const label = /^\s*[-*•|]?\s*([\p{L}][\p{L} ()/&.'-]{0,40}?)\s*(?::|\||\t|\s{2,}|\s(?=[A-Z]{3}\s|[$€£¥₹R]|\d))/u
      .exec(line.text)?.[1]
      ?.toLowerCase();
    if (!label || !labels.test(label) || avoid?.test(label)) continue;
    const end = line.start + line.text.length;
    const onLine = amounts.filter((a) => a.start >= line.start && a.end <= end);
    if (onLine.length > 0) return scored(money(onLine[onLine.length - 1]!), 0.92);
    // A bare number under a currency the document uses elsewhere: "Total: 7,800.00".
    const bare = /(-?\d{1,3}(?:[,.\s]\d{3})*(?:[.,]\d{2})|-?\d+[.,]\d{2})\s*$/.exec(line.text.replace(/\s*\|\s*$/, ''));
    const currency = mainCurrency(layout.ctx);
    if (bare && currency) {
      const value = parseNumber(bare[1]!.replace(/^-/, ''));
      if (value !== null)
        return scored({ value: bare[1]!.startsWith('-') ? -value : value, currency, text: bare[1]! }, 0.8);
    }
  }
  return null;
}

/** An amount the prose ties to a word ("a salary of GBP 58,000 per annum", "monthly rent of R 12,500"). */
function amountNear(layout: Layout, cue: RegExp, reach = 60): Scored<FieldValue> | null {
  const { text, amounts } = layout.ctx;
  for (const a of amounts) {
    const before = text.slice(Math.max(0, a.start - reach), a.start);
    const after = text.slice(a.end, a.end + 25);
    if (cue.test(before) || cue.test(after)) return scored(money(a), 0.82);
  }
  return null;
}

function mainCurrency(ctx: FieldContext): string | null {
  const counts = new Map<string, number>();
  for (const a of ctx.amounts) counts.set(a.currency, (counts.get(a.currency) ?? 0) + 1);
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
  return best?.[0] ?? null;
}

/** The largest amount: what most documents of money are about, when no label says so. */
function largestAmount(ctx: FieldContext): Scored<FieldValue> | null {
  const currency = mainCurrency(ctx);
  const candidates = ctx.amounts.filter((a) => a.currency === currency);
  if (candidates.length === 0) return null;
  const best = candidates.reduce((m, a) => (a.amount > m.amount ? a : m));
  return scored(money(best), 0.55);
}

/** A date on a labelled line, or right after a phrase of the prose. */
function dateField(layout: Layout, labels: RegExp | null, phrase: RegExp | null): Scored<FieldValue> | null {
  const { dates, text } = layout.ctx;
  if (labels) {
    for (const l of layout.labelled) {
      if (!labels.test(l.label)) continue;
      const lineEnd = layout.lines[l.line]!.start + layout.lines[l.line]!.text.length;
      const hit = dates.find((d) => d.start >= l.start && d.start < lineEnd);
      if (hit) return scored(hit.iso, Math.min(0.93, hit.confidence));
    }
  }
  if (phrase) {
    for (const d of dates) {
      if (phrase.test(text.slice(Math.max(0, d.start - 50), d.start)))
        return scored(d.iso, Math.min(0.85, d.confidence));
    }
  }
  return null;
}

/** The document's own date: a "Date:" line, else the first date of its first lines. */
function documentDate(
  layout: Layout,
  labels = /^(?:date|dated|issue date|date of issue|invoice date|order date|quote date|receipt date|sent)$/,
): Scored<FieldValue> | null {
  const labelled = dateField(layout, labels, null);
  if (labelled) return labelled;
  const head = layout.block(0, 12);
  const first = layout.ctx.dates.find((d) => d.start < Math.max(head.end, 300));
  return first ? scored(first.iso, Math.min(0.8, first.confidence)) : null;
}

/** A name (organisation or person) the entity pass found inside a span of the text. */
function entityIn(
  ctx: FieldContext,
  start: number,
  end: number,
  kinds: ('organizations' | 'people')[] = ['organizations', 'people'],
): string | null {
  let best: { name: string; at: number } | null = null;
  const slice = ctx.text.slice(start, end);
  for (const kind of kinds) {
    for (const e of ctx.entities[kind]) {
      const at = slice.indexOf(e.name);
      if (at >= 0 && (!best || at < best.at)) best = { name: e.name, at };
    }
    if (best) return best.name;
  }
  return null;
}

/** A party named by a label ("Bill to:", "Supplier:"): an entity in the value or the block under it, else the value's first line. */
function party(layout: Layout, labels: RegExp): Scored<FieldValue> | null {
  const labelled = layout.label(labels);
  if (!labelled) return null;
  const block = layout.block(labelled.line, 3);
  const name = entityIn(layout.ctx, labelled.start, block.end);
  if (name) return scored(name, 0.9);
  const first = labelled.value.split(/,\s|\s{2,}|\t/)[0]!.trim();
  return /^\p{Lu}/u.test(first) && first.length <= 80 && !/\d{3}/.test(first) ? scored(first, 0.7) : null;
}

/** The organisation of the letterhead: the first one named in the first lines. */
function issuer(layout: Layout): Scored<FieldValue> | null {
  const head = layout.block(0, 8);
  const name = entityIn(layout.ctx, 0, head.end, ['organizations']);
  if (name) return scored(name, 0.75);
  const first = layout.ctx.entities.organizations[0];
  return first ? scored(first.name, 0.5) : null;
}

/** "between A and B": the parties of an agreement, else its first two organisations. */
function parties(layout: Layout): Scored<FieldValue> | null {
  const { text, entities } = layout.ctx;
  const between = /\bbetween\b/i.exec(text);
  const names: string[] = [];
  if (between) {
    const span = text.slice(between.index, between.index + 600);
    const found = [...entities.organizations, ...entities.people]
      .map((e) => ({ name: e.name, at: span.indexOf(e.name) }))
      .filter((e) => e.at >= 0)
      .sort((a, b) => a.at - b.at);
    for (const f of found) if (!names.some((n) => n.includes(f.name) || f.name.includes(n))) names.push(f.name);
    if (names.length >= 2) return scored(names.slice(0, 2), 0.88);
  }
  const orgs = entities.organizations.map((e) => e.name);
  return orgs.length >= 2 ? scored(orgs.slice(0, 2), 0.55) : null;
}

/** The party a contract defines by role: `Acme Ltd (the "Landlord")`, or a labelled line. */
function definedParty(layout: Layout, role: string): Scored<FieldValue> | null {
  const labelled = party(layout, new RegExp(`^(?:the\\s+)?${role}(?:'s)?(?:\\s+name)?$`));
  if (labelled) return labelled;
  const { text, entities } = layout.ctx;
  const defined = new RegExp(
    `\\(\\s*(?:the\\s+|hereinafter\\s+(?:referred\\s+to\\s+as\\s+)?(?:the\\s+)?)?["“']?${role}["”']?\\s*\\)`,
    'i',
  ).exec(text);
  if (!defined) return null;
  const before = text.slice(Math.max(0, defined.index - 160), defined.index);
  const names = [...entities.organizations, ...entities.people]
    .map((e) => ({ name: e.name, at: before.lastIndexOf(e.name) }))
    .filter((e) => e.at >= 0);
  const last = names.sort((a, b) => b.at + b.name.length - (a.at + a.name.length))[0];
  return last ? scored(last.name, 0.88) : null;
}

const WORD_NUMBERS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  eighteen: 18,
  twenty: 20,
  'twenty-four': 24,
  thirty: 30,
  'thirty-six': 36,
  sixty: 60,
  ninety: 90,
};
const COUNT = `(?:(\\d{1,3})|(${Object.keys(WORD_NUMBERS)
  .sort((a, b) => b.length - a.length)
  .join('|')}))\\s*(?:\\(\\d{1,3}\\)\\s*)?`;
const UNIT = "(year|month|week|day)s?['’]?";
const UNIT_CODES: Record<string, string> = { year: 'Y', month: 'M', week: 'W', day: 'D' };

function duration(m: RegExpExecArray, countAt: number): DurationField {
  const n = m[countAt] ? Number(m[countAt]) : WORD_NUMBERS[m[countAt + 1]!.toLowerCase()]!;
  const unit = m[countAt + 2]!.toLowerCase();
  return { value: `P${n}${UNIT_CODES[unit]}`, text: m[0].replace(/^\W+/, '').trim() };
}

/** "a term of five (5) years", "for 12 months": the term as an ISO 8601 duration. */
function term(layout: Layout): Scored<FieldValue> | null {
  const text = layout.ctx.text;
  const m =
    new RegExp(
      `\\b(?:initial\\s+)?(?:term|period|duration)\\s+(?:of\\s+|shall\\s+be\\s+|is\\s+)?(?:a\\s+)?${COUNT}${UNIT}`,
      'i',
    ).exec(text) ??
    new RegExp(`\\bfor\\s+(?:a\\s+(?:fixed\\s+)?(?:term|period)\\s+of\\s+)?${COUNT}${UNIT}`, 'i').exec(text);
  if (!m) return null;
  const d = duration(m, 1);
  const spoken = new RegExp(`${COUNT}${UNIT}`, 'i').exec(m[0]);
  return scored({ value: d.value, text: spoken ? spoken[0].trim() : d.text }, 0.8);
}

/** "three months' notice", "a notice period of 30 days". */
function noticePeriod(layout: Layout): Scored<FieldValue> | null {
  const text = layout.ctx.text;
  const before = new RegExp(`${COUNT}${UNIT}\\s*(?:prior\\s+|advance\\s+)?(?:written\\s+)?notice`, 'i').exec(text);
  const after = new RegExp(
    `\\bnotice\\s+(?:period\\s+)?(?:of\\s+|is\\s+|shall\\s+be\\s+)?(?:not\\s+less\\s+than\\s+|at\\s+least\\s+)?${COUNT}${UNIT}`,
    'i',
  ).exec(text);
  const m = before ?? after;
  if (!m) return null;
  const spoken = new RegExp(`${COUNT}${UNIT}`, 'i').exec(m[0])!;
  const d = duration(spoken, 1);
  return scored({ value: d.value, text: spoken[0].trim() }, 0.8);
}

/** "the position of Senior Data Analyst", "Job title: …", "as our new Head of Finance". */
function role(layout: Layout): Scored<FieldValue> | null {
  const labelled = layout.label(/^(?:job title|position|role|title|designation)$/);
  if (labelled && labelled.value.length <= 60) return scored(labelled.value.replace(/[.,;]+$/, ''), 0.9);
  const m =
    /\b(?:position|role|post)\s+(?:of|as)\s+(?:a\s+|an\s+|the\s+)?((?:\p{Lu}[\p{L}&/-]*|of|and|&)(?:\s+(?:\p{Lu}[\p{L}&/-]*|of|and|&)){0,6})/u.exec(
      layout.ctx.text,
    ) ??
    /\bjoin\s+(?:us|[\p{Lu}][\p{L}]+(?:\s+\p{Lu}[\p{L}]+)*)\s+as\s+(?:a\s+|an\s+|our\s+(?:new\s+)?)?((?:\p{Lu}[\p{L}&/-]*|of|and)(?:\s+(?:\p{Lu}[\p{L}&/-]*|of|and)){0,6})/u.exec(
      layout.ctx.text,
    );
  return m ? scored(m[1]!.replace(/\s+(?:of|and|&)$/, ''), 0.8) : null;
}

/** "Subject:" / "Re:" line. */
function subject(layout: Layout): Scored<FieldValue> | null {
  const labelled = layout.label(/^(?:subject|re|regarding|subj)$/);
  return labelled ? scored(labelled.value.replace(/^(?:re|fw|fwd)\s*:\s*/i, ''), 0.9) : null;
}

/** A person or organisation named on a labelled line ("From: Jane Doe <jane@…>"). */
function namedBy(layout: Layout, labels: RegExp): Scored<FieldValue> | null {
  const labelled = layout.label(labels);
  if (!labelled) return null;
  const lineEnd = layout.lines[labelled.line]!.start + layout.lines[labelled.line]!.text.length;
  const name = entityIn(layout.ctx, labelled.start, lineEnd);
  if (name) return scored(name, 0.9);
  const plain = labelled.value
    .replace(/<[^>]*>|\S+@\S+/g, '')
    .replace(/["',;]+/g, ' ')
    .trim();
  return plain && plain.length <= 80 ? scored(plain, 0.75) : null;
}

/** The signer: the name line under a letter's closing. */
function signer(layout: Layout): Scored<FieldValue> | null {
  const closing = layout.lines.findIndex((l) =>
    /^\s*(?:yours\s+(?:sincerely|faithfully|truly)|(?:kind|best|warm)\s+regards|regards|sincerely|best\s+wishes)[,.]?\s*$/i.test(
      l.text,
    ),
  );
  if (closing < 0) return null;
  const block = layout.block(closing + 1, 4);
  const name = entityIn(layout.ctx, block.start, block.end, ['people']);
  return name ? scored(name, 0.88) : null;
}

/** The reader of a letter: "Dear Ms O'Connell" (the full name where the text has it). */
function addressee(layout: Layout): Scored<FieldValue> | null {
  const dear = /^\s*dear\s+(?:(?:mr|mrs|ms|miss|mx|dr|prof)\.?\s+)?([\p{Lu}][\p{L}'’ .-]+?)\s*[,:]?\s*$/imu.exec(
    layout.ctx.text,
  );
  if (!dear || /^(?:sir|madam|sirs|all|team|colleagues|customer)/i.test(dear[1]!)) return null;
  const short = dear[1]!.trim();
  const full = layout.ctx.entities.people.find(
    (p) => p.name === short || p.name.endsWith(` ${short}`) || p.name.startsWith(`${short} `),
  );
  return scored(full?.name ?? short, full ? 0.88 : 0.75);
}

function chair(layout: Layout): Scored<FieldValue> | null {
  const labelled = namedBy(layout, /^(?:chair|chairperson|chaired by|chairman|chairwoman)$/);
  if (labelled) return labelled;
  const m = /([\p{Lu}][\p{L}'’.-]+(?:\s+[\p{Lu}][\p{L}'’.-]+){1,3})\s*\(\s*[Cc]hair(?:person|man|woman)?\s*\)/u.exec(
    layout.ctx.text,
  );
  return m ? scored(m[1]!, 0.85) : null;
}

function title(layout: Layout): Scored<FieldValue> | null {
  const first = layout.lines.map((l) => l.text.replace(/[#*=_|]+/g, ' ').trim()).find((l) => l.length >= 4);
  return first && first.length <= 120 ? scored(first, 0.7) : null;
}

function firstPerson(layout: Layout): Scored<FieldValue> | null {
  const head = layout.block(0, 4);
  const name = entityIn(layout.ctx, 0, head.end, ['people']);
  if (name) return scored(name, 0.85);
  const line = layout.lines.find((l) => l.text.trim() !== '')?.text.trim();
  return line && /^\p{Lu}[\p{L}'’.-]+(?:\s+\p{Lu}[\p{L}'’.-]+){1,3}$/u.test(line) ? scored(line, 0.7) : null;
}

// --- the fields of each kind -----------------------------------------------------------------

type Reader = (layout: Layout) => Scored<FieldValue> | null;

const TOTAL_LABELS =
  /^(?:(?:grand|invoice|order|quote|quotation|receipt)\s+)?total(?:\s+(?:due|amount|payable|value|price|incl.*|\(.*\)|[a-z]{3}))?$|^(?:amount|balance)\s+(?:due|payable)(?:\s+\(.*\))?$|^total\s+amount(?:\s+due)?$|^amount\s+paid$|^total\s+paid$|(?:zu\s+zahlender\s+betrag|rechnungsbetrag|gesamtbetrag|endbetrag|bruttobetrag|montant\s+ttc|total\s+ttc|net\s+à\s+payer|montant\s+à\s+payer|total\s+a\s+pagar|importe\s+total|totale(?:\s+fattura|\s+da\s+pagare)?|valor\s+total|totaal(?:bedrag)?|te\s+betalen)$/u;
const NOT_TOTAL = /sub\s*-?total|tax|vat|discount|shipping/;

const FIELDS: Record<DocumentType, Record<string, Reader>> = {
  invoice: {
    vendor: (l) => party(l, /^(?:from|supplier|vendor|seller|issued by|payee|remit to)$/) ?? issuer(l),
    customer: (l) => party(l, /^(?:bill(?:ed)?\s+to|invoice\s+to|customer|client|sold\s+to|to|buyer)$/),
    document_number: (l) =>
      documentNumber(
        l,
        // … and the labels of other languages: "Rechnungsnummer", "N° de facture", "Número de factura".
        /^(?:tax\s+)?invoice(?:\s+(?:no|number|num|#|id|ref))?$|^inv(?:\s+no)?$|^rechnungs?(?:nummer|-?nr|\s+nr)$|^(?:n°|no|num[ée]ro)\s+de\s+(?:la\s+)?facture$|^(?:n[úu]mero\s+de\s+)?factura(?:\s+n[ºo°])?$|^numero\s+(?:di\s+)?fattura$|^factuurnummer$/u,
        'invoice',
      ),
    issue_date: (l) =>
      documentDate(
        l,
        /^(?:date|dated|issue date|date of issue|invoice date|rechnungsdatum|datum|date de (?:la )?facture|fecha(?: de (?:la )?factura)?|data(?: (?:della )?fattura)?|factuurdatum)$/u,
      ),
    total: (l) => labelledAmount(l, TOTAL_LABELS, NOT_TOTAL) ?? largestAmount(l.ctx),
    due_date: (l) =>
      dateField(
        l,
        /^(?:due|due date|payment due|payment due date|pay by|fällig(?:keit(?:sdatum)?)?|zahlbar bis|échéance|date d'échéance|fecha de vencimiento|scadenza|vervaldatum)$/u,
        /\b(?:due|payable|pay(?:ment)?)\s+(?:on|by|before|no later than)?\s*$|\bzahlbar\b[^.]{0,90}\bbis(?:\s+(?:zum|spätestens))?\s*$/iu,
      ),
  },
  receipt: {
    vendor: (l) => party(l, /^(?:merchant|store|shop|seller|from|vendor)$/) ?? issuer(l),
    issue_date: (l) => documentDate(l, /^(?:date|paid on|payment date|transaction date|date of payment)$/),
    total: (l) => labelledAmount(l, TOTAL_LABELS, NOT_TOTAL) ?? largestAmount(l.ctx),
    customer: (l) => party(l, /^(?:customer|client|received from|guest|name|bill to|billed to|sold to)$/),
    document_number: (l) => documentNumber(l, /^(?:receipt|transaction|order)(?:\s+(?:no|number|#|id))?$/, 'receipt'),
  },
  purchase_order: {
    buyer: (l) => party(l, /^(?:buyer|ordered by|purchaser|bill to|from|customer)$/) ?? issuer(l),
    supplier: (l) => party(l, /^(?:supplier|vendor|to|seller|sold by)$/),
    document_number: (l) =>
      documentNumber(
        l,
        /^(?:purchase order|po|p o|order)(?:\s+(?:no|number|#|num|ref))?$/,
        'purchase order|P\\.?O\\.?',
      ),
    issue_date: (l) => documentDate(l, /^(?:date|po date|order date|issue date|date issued)$/),
    total: (l) => labelledAmount(l, TOTAL_LABELS, NOT_TOTAL) ?? largestAmount(l.ctx),
    delivery_date: (l) =>
      dateField(
        l,
        /^(?:delivery date|deliver by|required by|delivery|required date|need by|ship date)$/,
        /\b(?:deliver(?:ed|y)?|ship(?:ped)?|required|needed)\s+(?:on|by|before|no later than)?\s*$/i,
      ),
  },
  quote: {
    vendor: (l) => party(l, /^(?:from|supplier|vendor|prepared by)$/) ?? issuer(l),
    customer: (l) => party(l, /^(?:to|customer|client|prepared for|attention|attn|for)$/),
    issue_date: (l) => documentDate(l),
    total: (l) => labelledAmount(l, TOTAL_LABELS, NOT_TOTAL) ?? largestAmount(l.ctx),
    document_number: (l) =>
      documentNumber(
        l,
        /^(?:quote|quotation|estimate|proposal)(?:\s+(?:no|number|#|ref))?$/,
        'quotation|quote|estimate',
      ),
    valid_until: (l) =>
      dateField(
        l,
        /^(?:valid until|valid through|expiry|expires|expiry date|validity)$/,
        /\b(?:valid\s+(?:until|till|through|to)|expires?\s+on|open\s+until)\s*$/i,
      ),
  },
  contract: {
    parties: parties,
    effective_date: (l) =>
      dateField(
        l,
        /^(?:effective date|commencement date|start date)$/,
        /\b(?:effective\s+(?:from|as\s+of|on)?|commenc\w*\s+(?:on)?|dated|made\s+on|entered\s+into\s+(?:on|as\s+of))\s*$/i,
      ) ?? documentDate(l),
    title: title,
    end_date: (l) =>
      dateField(
        l,
        /^(?:end date|expiry date|termination date|expiry)$/,
        /\b(?:until|ends?\s+on|expir\w*\s+on|terminat\w*\s+on|through)\s*$/i,
      ),
    term: term,
    value: (l) =>
      withPeriod(
        labelledAmount(l, /^(?:contract\s+)?(?:value|price|fee|fees|total|consideration|contract sum)$/) ??
          amountNear(l, /\b(?:fee|fees|price|value|consideration|sum)\s+(?:of|is)\s*$/i) ??
          largestAmount(l.ctx),
        l.ctx.text,
      ),
    notice_period: noticePeriod,
    governing_law: governingLaw,
  },
  lease: {
    landlord: (l) => asNames(definedParty(l, 'landlord') ?? definedParty(l, 'lessor')),
    tenant: (l) => asNames(definedParty(l, 'tenant') ?? definedParty(l, 'lessee')),
    property: (l) => {
      const labelled = l.label(
        /^(?:property|premises|address of (?:the )?(?:property|premises)|the premises|the property)$/,
      );
      if (labelled) return scored(labelled.value.replace(/[.;]+$/, ''), 0.85);
      const m = /\b(?:premises|property)\s+(?:known\s+as|at|located\s+at|situated\s+at)\s+([^.;\n]{5,100})/i.exec(
        l.ctx.text,
      );
      return m ? scored(m[1]!.trim().replace(/\s*\(.*$/, ''), 0.78) : null;
    },
    start_date: (l) =>
      dateField(
        l,
        /^(?:start date|commencement date|term start|lease start|from)$/,
        /\b(?:commenc\w*|starting|beginning|from|start\w*\s+on|effective)\s+(?:on\s+)?$/i,
      ),
    rent: (l) =>
      withPeriod(
        labelledAmount(l, /^(?:(?:monthly|annual|yearly)\s+)?rent(?:al)?(?:\s+\(.*\))?$/) ??
          amountNear(l, /\brent(?:al)?\b[^.]{0,40}$/i),
        l.ctx.text,
      ),
    end_date: (l) =>
      dateField(
        l,
        /^(?:end date|expiry date|term end|lease end|to|until)$/,
        /\b(?:until|ending\s+on|ends\s+on|expir\w*\s+on|to\s+and\s+including|and\s+ending)\s*$/i,
      ),
    term: term,
    deposit: (l) => labelledAmount(l, /^(?:security\s+)?deposit$|^bond$/) ?? amountNear(l, /\bdeposit\b[^.]{0,30}$/i),
    notice_period: noticePeriod,
  },
  nda: {
    parties: parties,
    effective_date: (l) =>
      dateField(
        l,
        /^(?:effective date|date)$/,
        /\b(?:effective\s+(?:from|as\s+of|on)?|dated|made\s+on|entered\s+into\s+(?:on|as\s+of))\s*$/i,
      ) ?? documentDate(l),
    term: term,
    governing_law: governingLaw,
  },
  employment_letter: {
    employer: (l) => issuer(l),
    employee: (l) => party(l, /^(?:candidate|employee|employee name|name|to)$/) ?? addressee(l),
    role: role,
    issue_date: (l) => documentDate(l),
    start_date: (l) =>
      dateField(
        l,
        /^(?:start date|starting date|commencement date|date of joining|joining date)$/,
        /\b(?:start(?:ing)?(?:\s+date)?|commenc\w*|join\w*(?:\s+us)?|first\s+day)\s+(?:on|is|will\s+be|of)?\s*$/i,
      ),
    salary: (l) =>
      withPeriod(
        labelledAmount(l, /^(?:(?:annual|base|gross|starting)\s+)?(?:salary|compensation|remuneration|pay|ctc)$/) ??
          amountNear(l, /\b(?:salary|remuneration|compensation|pay|ctc)\b[^.]{0,50}$/i) ??
          amountNear(l, /^\s*(?:per\s+(?:annum|year|month)|a\s+year|annually|gross)\b/i),
        l.ctx.text,
      ),
    notice_period: noticePeriod,
  },
  policy: {
    organization: (l) => issuer(l),
    title: title,
    effective_date: (l) =>
      dateField(
        l,
        /^(?:effective date|effective from|effective|date effective|approved|date approved|issue date)$/,
        /\beffective\s+(?:from|as\s+of|on)?\s*$/i,
      ) ?? documentDate(l),
  },
  minutes: {
    meeting_date: (l) => documentDate(l, /^(?:date|meeting date|date of meeting|held on)$/),
    organization: (l) => issuer(l),
    chair: chair,
  },
  memo: {
    from: (l) => namedBy(l, /^from$/),
    to: (l) => asNames(namedBy(l, /^to$/)),
    issue_date: (l) => documentDate(l),
    subject: subject,
  },
  report: {
    title: title,
    issue_date: (l) => documentDate(l, /^(?:date|report date|prepared on|published|issued)$/),
    organization: (l) => issuer(l),
    period_start: (l) => statementPeriod(l, 0),
    period_end: (l) => statementPeriod(l, 1),
  },
  letter: {
    sender: (l) => issuer(l) ?? signer(l),
    recipient: (l) => addresseeOrganisation(l) ?? addressee(l),
    issue_date: (l) => documentDate(l),
    subject: subject,
  },
  email: {
    from: (l) => namedBy(l, /^from$/),
    to: (l) => asNames(namedBy(l, /^to$/)),
    subject: subject,
    issue_date: (l) => documentDate(l, /^(?:date|sent)$/),
  },
  cv: {
    person: firstPerson,
    role: (l) => {
      // The headline under the name, or the first position held.
      const head = l.lines
        .map((x) => x.text.trim())
        .filter((x) => x !== '')
        .slice(1, 3);
      const line = head.find(
        (x) =>
          x.length <= 60 && !/@|\d{3}|^(?:email|phone|tel|address|profile|summary)\b/i.test(x) && /^\p{Lu}/u.test(x),
      );
      return line ? scored(line.split(/\s+[|·•–-]\s+/)[0]!.trim(), 0.65) : null;
    },
  },
  statement: {
    institution: (l) => issuer(l),
    account_holder: (l) =>
      party(l, /^(?:account holder|account name|name|customer|statement for|prepared for)$/) ?? addressee(l),
    period_start: (l) => statementPeriod(l, 0),
    period_end: (l) => statementPeriod(l, 1),
    closing_balance: (l) =>
      labelledAmount(l, /^(?:closing|new|ending|current)\s+balance$|^balance\s+carried\s+forward$/),
    opening_balance: (l) =>
      labelledAmount(l, /^(?:opening|previous|starting)\s+balance$|^balance\s+(?:brought\s+)?forward$/),
  },
  other: {
    title: title,
    issue_date: (l) => documentDate(l),
    organization: (l) => issuer(l),
  },
};

function asNames(field: Scored<FieldValue> | null): Scored<FieldValue> | null {
  return field && typeof field.value === 'string' ? { ...field, value: [field.value] } : field;
}

function governingLaw(layout: Layout): Scored<FieldValue> | null {
  const m =
    /\bgoverned\s+by\s+(?:and\s+construed\s+in\s+accordance\s+with\s+)?the\s+laws?\s+of\s+(?:the\s+)?((?:State\s+of\s+)?\p{Lu}[\p{L}]+(?:\s+(?:and\s+)?\p{Lu}[\p{L}]+)*)/u.exec(
      layout.ctx.text,
    );
  return m ? scored(m[1]!, 0.85) : null;
}

/** The organisation a letter is addressed to: the first one in the address block before "Dear". */
function addresseeOrganisation(layout: Layout): Scored<FieldValue> | null {
  const dear = layout.lines.findIndex((l) => /^\s*dear\b/i.test(l.text));
  if (dear < 0) return null;
  const from = layout.lines.findIndex(
    (l, i) => i > 2 && i < dear && /^\s*(?:the\s+directors|attn|for\s+the\s+attention|to:)/i.test(l.text),
  );
  const block = layout.block(Math.max(0, from >= 0 ? from : dear - 8), from >= 0 ? dear - from : Math.min(8, dear));
  const issuerName = issuer(layout)?.value;
  const names = layout.ctx.entities.organizations
    .map((e) => ({ name: e.name, at: block.text.indexOf(e.name) }))
    .filter((e) => e.at >= 0 && e.name !== issuerName);
  const first = names.sort((a, b) => a.at - b.at)[0];
  return first ? scored(first.name, 0.75) : null;
}

function statementPeriod(layout: Layout, which: 0 | 1): Scored<FieldValue> | null {
  const labelled = layout.label(/^(?:statement period|period|statement dates?|for the period)$/);
  const { dates, text } = layout.ctx;
  let span: { start: number; end: number } | null = null;
  if (labelled)
    span = {
      start: labelled.start,
      end: layout.lines[labelled.line]!.start + layout.lines[labelled.line]!.text.length,
    };
  else {
    const m = /\b(?:period|from)\b[^\n]{0,60}?\b(?:to|until|through|-|–)\b/i.exec(text);
    if (m) span = { start: m.index, end: m.index + m[0].length + 30 };
  }
  if (!span) return null;
  const inSpan = dates.filter((d) => d.start >= span.start && d.start < span.end);
  const hit = inSpan[which];
  return hit && inSpan.length >= 2 ? scored(hit.iso, Math.min(0.9, hit.confidence)) : null;
}

/** The key fields of a document of this kind that the text gives. */
export function extractKeyFields(type: DocumentType, ctx: FieldContext): KeyFields {
  const readers = FIELDS[type];
  const layout = new Layout(ctx);
  const out: KeyFields = {};
  for (const [name, read] of Object.entries(readers)) {
    const value = read(layout);
    if (value !== null && !(Array.isArray(value.value) && value.value.length === 0))
      out[name] = { value: value.value, confidence: round(value.confidence) };
  }
  return out;
}

/** The field names each kind may carry (docs and the OpenAI schema use them). */
export const FIELD_NAMES: Record<DocumentType, string[]> = Object.fromEntries(
  (Object.keys(FIELDS) as DocumentType[]).map((t) => [t, Object.keys(FIELDS[t])]),
) as Record<DocumentType, string[]>;

const round = (x: number) => Math.round(x * 100) / 100;
