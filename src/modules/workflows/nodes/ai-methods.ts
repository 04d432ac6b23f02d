import { Re2RegExp } from '../../../lib/sandbox/re2-regexp.ts';
import type { ModuleServices } from '../../../platform/module.ts';
import { type FieldValue, formatMoney, type Scored } from '../../../providers/ai/ai-provider.ts';
import { contentStems } from '../../../providers/ai/text.ts';

type Ai = ModuleServices['ai'];
type Entities = Awaited<ReturnType<Ai['extractEntities']>>;

/** What the provider found in a document: its entities and, when it enriched it, its key fields ("total", "due_date", …). */
export interface Found {
  entities: Entities;
  fields?: Record<string, Scored<FieldValue>>;
}

/** Validates a value against a JSON Schema: the error text, or null when it conforms. */
export type SchemaCheck = (schema: object, value: unknown) => string | null;

interface Passage {
  index: number;
  page: number | null;
  text: string;
  vector: Float32Array | null;
}

/**
 * The classical methods behind the AI nodes, the same on every provider: extraction by labelled
 * values and entities, classification by embedding similarity to category descriptions, passages
 * ranked by cosine similarity (word overlap when there are no vectors).
 */

/**
 * `{category, confidence, scores}`: softmax over each category's similarity to the text — half the
 * cosine of their vectors, half the share of the category's words (name and description) the text
 * holds. Vectors alone let a long text's general vocabulary outweigh the one word that names it
 * (an invoice that says "invoice" three times read as closer to "legal agreement terms").
 */
export async function classify(who: string, ai: Ai, text: string, categories: unknown, signal?: AbortSignal) {
  const list = (Array.isArray(categories) ? categories : []).map((c) =>
    typeof c === 'string'
      ? { name: c, description: c }
      : {
          name: String((c as { name?: unknown }).name),
          description: `${(c as { name?: unknown }).name} ${(c as { description?: unknown }).description ?? ''}`,
        },
  );
  if (list.length === 0) throw new Error(`${who}: categories must be a non-empty list`);
  const vectors = await ai.embed([text.slice(0, 20_000), ...list.map((c) => c.description)], {
    purpose: 'document',
    signal,
  });
  const [doc, ...cats] = vectors;
  const textStems = new Set(contentStems(text.slice(0, 20_000)));
  const similarity = cats.map((v, i) => 0.5 * cosine(doc!, v) + 0.5 * coverage(list[i]!.description, textStems));
  const exp = similarity.map((s) => Math.exp(s * 10));
  const sum = exp.reduce((a, b) => a + b, 0);
  const scores = Object.fromEntries(list.map((c, i) => [c.name, round(exp[i]! / sum)]));
  const best = list.reduce((a, c) => (scores[c.name]! > scores[a.name]! ? c : a), list[0]!);
  return { category: best.name, confidence: scores[best.name]!, scores };
}

/** The share of a category's distinct content words that the text holds. */
function coverage(description: string, textStems: Set<string>): number {
  const stems = new Set(contentStems(description));
  if (stems.size === 0) return 0;
  let held = 0;
  for (const s of stems) if (textStems.has(s)) held++;
  return held / stems.size;
}

/**
 * `{field: value}` for `{field: type}` (string, number, date, boolean, array): labelled values first,
 * then the provider's key fields and entities; types coerced, missing = null.
 */
export function coerceExtraction(
  who: string,
  schema: Record<string, unknown>,
  text: string,
  found: Found | null,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [field, typeName] of Object.entries(schema)) {
    const type = String(
      typeof typeName === 'object' && typeName !== null
        ? ((typeName as { type?: unknown }).type ?? 'string')
        : typeName,
    ).toLowerCase();
    const raw = labelled(text, field) ?? fromFound(field, type, found);
    data[field] = raw === null ? null : coerce(who, field, type, raw);
  }
  return data;
}

/** The best `top` passages for a query. */
export function rankByVector(vector: Float32Array | null, query: string, passages: readonly Passage[], top: number) {
  const terms = words(query);
  const scored = passages.map((p) => ({
    ...p,
    score: vector && p.vector ? cosine(vector, p.vector) : overlap(terms, words(p.text)),
  }));
  return scored.sort((a, b) => b.score - a.score).slice(0, top);
}

/** `Invoice number: INV-7` or `Total = 12.50` on a line of the text, for a field `invoice_number` / `total`. */
function labelled(text: string, field: string): string | null {
  // The field name is the user's: its characters are matched literally, never as a pattern, and
  // RE2 keeps the scan linear in the document's length (a run of blank lines cannot make it quadratic).
  const label = field.split(/[_-]+/).map(escapeRegExp).join('[ _-]*');
  const match = new Re2RegExp(`(?:^|\\n)\\s*${label}\\s*[:=#]\\s*(.+)`, 'i').exec(text);
  return match ? match[1]!.trim() : null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A key field as text: money as "USD 1,250.00", a duration as written, a list of names joined. */
function fieldText(value: FieldValue): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.join('; ');
  return 'currency' in value ? formatMoney(value) : value.text;
}

function fromFound(field: string, type: string, found: Found | null): string | null {
  if (!found) return null;
  const { entities, fields = {} } = found;
  const f = field.toLowerCase();
  // A key field of the same name ("due_date", "invoice_number", "vendor") is what the provider read for it.
  const own = fields[f.replace(/[\s-]+/g, '_')];
  if (own) return fieldText(own.value);
  // The document's total, not its first amount (often a line item, a deposit or a fee).
  if (/amount|total|sum/.test(f) && fields.total) return fieldText(fields.total.value);
  if (type === 'date' || /date|due|issued/.test(f)) return entities.dates[0] ?? null;
  if (/amount|total|price|sum|cost/.test(f)) return entities.amounts[0] ?? null;
  if (/vendor|company|organi[sz]ation|supplier|customer/.test(f)) return entities.organizations[0] ?? null;
  if (/name|person|contact|author|signer/.test(f)) return entities.people[0] ?? null;
  if (/place|city|location|address/.test(f)) return entities.places[0] ?? null;
  return null;
}

function coerce(who: string, field: string, type: string, raw: string): unknown {
  switch (type) {
    case 'number':
    case 'integer':
    case 'currency': {
      const n = Number(
        raw
          .replace(/[^0-9.,-]/g, '')
          .replace(/,(?=\d{3}\b)/g, '')
          .replace(',', '.'),
      );
      if (!Number.isFinite(n)) throw new Error(`${who}: field "${field}" is not a ${type}: "${raw}"`);
      return type === 'integer' ? Math.round(n) : n;
    }
    case 'date': {
      const iso =
        /\d{4}-\d{2}-\d{2}/.exec(raw)?.[0] ??
        (Number.isNaN(Date.parse(raw)) ? null : new Date(Date.parse(raw)).toISOString().slice(0, 10));
      if (!iso) throw new Error(`${who}: field "${field}" is not a date: "${raw}"`);
      return iso;
    }
    case 'boolean':
      return /^(yes|true|y|1|x)$/i.test(raw.trim());
    case 'array':
      return raw
        .split(/[,;]/)
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return raw;
  }
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
}

function overlap(query: Set<string>, passage: Set<string>): number {
  if (query.size === 0) return 0;
  let hits = 0;
  for (const w of query) if (passage.has(w)) hits++;
  return hits / query.size;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
