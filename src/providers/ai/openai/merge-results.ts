import {
  type AmountEntity,
  DOCUMENT_TYPES,
  type DateEntity,
  type DocumentType,
  type Enrichment,
  type Entities,
  type FieldValue,
  type NamedEntity,
  type Scored,
  type TagSuggestion,
} from '../ai-provider.ts';
import { normalizeAmount, parseMoney } from '../local/amounts.ts';
import { normalizeDate } from '../local/dates.ts';
import { FIELD_NAMES, parseDuration, periodAfter } from '../local/key-fields.ts';
import { stem } from '../text.ts';

// Model answers made to keep the interface's promises (lower-case tags of 1–3 words, ISO dates,
// "USD 1.00" amounts, unique lists) and merged across the parts of a long document.

/** A model's tag, cleaned; null when it is not a usable tag. */
function cleanTag(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const tag = raw
    .toLowerCase()
    .replace(/^#/, '')
    .replace(/[^\p{L}\p{N}\s&'-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const count = tag.split(' ').length;
  if (tag.length < 2 || count > 3 || !/\p{L}/u.test(tag)) return null;
  return tag;
}

const tagKey = (tag: string) => tag.split(' ').map(stem).join(' ');

/**
 * Tags from several lists (one per part of a document): a tag earns 1/(rank+1) in each list,
 * weighted by rarity in the tenant's corpus when `documentFrequency` is given; singular and
 * plural forms count as one.
 */
export function mergeTags(lists: unknown[][], limit: number, documentFrequency?: (term: string) => number): string[] {
  const scores = new Map<string, { tag: string; score: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    list.forEach((raw, rank) => {
      const tag = cleanTag(raw);
      if (!tag) return;
      const key = tagKey(tag);
      const entry = scores.get(key) ?? { tag, score: 0, first: order++ };
      entry.score += 1 / (rank + 1);
      scores.set(key, entry);
    });
  }
  const weighted = [...scores.values()].map((e) => {
    const df = documentFrequency ? Math.min(1, Math.max(0, Number(documentFrequency(e.tag)) || 0)) : null;
    return { ...e, score: df === null ? e.score : e.score * Math.log(2 / (df + 0.02)) };
  });
  weighted.sort((a, b) => b.score - a.score || a.first - b.first);
  return weighted.slice(0, limit).map((e) => e.tag);
}

/** A model's entities, cleaned: strings only, dates in ISO form, amounts normalised, duplicates out. */
export function normaliseEntities(raw: Partial<Record<keyof Entities, unknown>>, referenceDate?: Date): Entities {
  const strings = (value: unknown) =>
    (Array.isArray(value) ? value : [])
      .filter((v): v is string => typeof v === 'string')
      .map((v) => v.replace(/\s+/g, ' ').trim())
      .filter(Boolean);
  return {
    people: uniqueCaseless(strings(raw.people)),
    organizations: uniqueCaseless(strings(raw.organizations)),
    places: uniqueCaseless(strings(raw.places)),
    dates: uniqueCaseless(
      strings(raw.dates)
        .map((d) => normalizeDate(d, referenceDate))
        .filter((d): d is string => d !== null),
    ),
    amounts: uniqueCaseless(
      strings(raw.amounts)
        .map((a) => normalizeAmount(a))
        .filter((a): a is string => a !== null),
    ),
  };
}

/** The entities of consecutive parts, in order, each list unique. */
export function mergeEntities(parts: Entities[]): Entities {
  const merged: Entities = { people: [], organizations: [], dates: [], places: [], amounts: [] };
  for (const key of Object.keys(merged) as (keyof Entities)[])
    merged[key] = uniqueCaseless(parts.flatMap((p) => p[key]));
  return merged;
}

function uniqueCaseless(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = v.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const MONEY_FIELDS = new Set(['total', 'value', 'rent', 'deposit', 'salary', 'opening_balance', 'closing_balance']);
const LIST_FIELDS = new Set(['parties', 'landlord', 'tenant', 'to']);
const DURATION_FIELDS = new Set(['term', 'notice_period']);
const isDateField = (name: string) => /(?:^|_)date$|^date$|^valid_until$|^period_(?:start|end)$/.test(name);

/** A confidence as the model gave it, kept in [0, 1]; 0.5 when it gave none. */
function confidenceOf(raw: unknown): number {
  const n = typeof raw === 'number' ? raw : Number.NaN;
  return Number.isFinite(n) ? Math.round(Math.min(1, Math.max(0, n)) * 100) / 100 : 0.5;
}

const text = (raw: unknown) => (typeof raw === 'string' ? raw.replace(/\s+/g, ' ').trim() : '');
const items = (raw: unknown): Record<string, unknown>[] =>
  (Array.isArray(raw) ? raw : []).filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null);

function named(raw: unknown): NamedEntity[] {
  const seen = new Set<string>();
  const out: NamedEntity[] = [];
  for (const item of items(raw)) {
    const name = text(item['name']);
    if (!name || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push({ name, confidence: confidenceOf(item['confidence']) });
  }
  return out;
}

/** One field's value in the shape its name promises: a date, money, a list or text; null when it is not one. */
function fieldValue(name: string, raw: string, referenceDate?: Date): FieldValue | null {
  if (!raw) return null;
  if (isDateField(name)) return normalizeDate(raw, referenceDate);
  if (MONEY_FIELDS.has(name)) {
    const money = parseMoney(raw);
    if (!money) return null;
    const period = periodAfter(raw.slice(raw.indexOf(money.text) + money.text.length));
    return { value: money.amount, currency: money.currency, text: money.text, ...(period ? { period } : {}) };
  }
  if (DURATION_FIELDS.has(name)) return parseDuration(raw);
  if (LIST_FIELDS.has(name)) {
    const list = raw
      .split(/\s*;\s*/)
      .map((v) => v.trim())
      .filter(Boolean);
    return list.length > 0 ? list : null;
  }
  return raw;
}

/**
 * A model's enrichment, held to the local provider's promises: a known type, only that type's
 * fields with values of their shape, ISO dates, amounts as money, tags cleaned and at most
 * `tagLimit`, every confidence in [0, 1].
 */
export function normaliseEnrichment(
  raw: Record<string, unknown>,
  options: { referenceDate?: Date; tagLimit: number },
): Enrichment {
  const type = (DOCUMENT_TYPES as readonly string[]).includes(String(raw['document_type']))
    ? (raw['document_type'] as DocumentType)
    : 'other';
  const allowed = new Set(FIELD_NAMES[type]);
  const fields: Record<string, Scored<FieldValue>> = {};
  for (const item of items(raw['fields'])) {
    const name = text(item['name']);
    if (!allowed.has(name) || fields[name]) continue;
    const value = fieldValue(name, text(item['value']), options.referenceDate);
    if (value !== null) fields[name] = { value, confidence: confidenceOf(item['confidence']) };
  }
  const tags: TagSuggestion[] = [];
  for (const item of items(raw['tags'])) {
    const name = cleanTag(item['name']);
    if (name && !tags.some((t) => tagKey(t.name) === tagKey(name)) && tags.length < options.tagLimit) {
      tags.push({ name, confidence: confidenceOf(item['confidence']), source: 'extracted' });
    }
  }
  const dates: DateEntity[] = [];
  for (const item of items(raw['dates'])) {
    const value = normalizeDate(text(item['value']), options.referenceDate);
    if (value && !dates.some((d) => d.value === value))
      dates.push({ value, text: text(item['text']) || value, confidence: confidenceOf(item['confidence']) });
  }
  const amounts: AmountEntity[] = [];
  for (const item of items(raw['amounts'])) {
    const money = parseMoney(text(item['value'])) ?? parseMoney(text(item['text']));
    if (money && !amounts.some((a) => a.currency === money.currency && a.value === money.amount)) {
      amounts.push({
        value: money.amount,
        currency: money.currency,
        text: text(item['text']) || money.text,
        confidence: confidenceOf(item['confidence']),
      });
    }
  }
  return {
    summary: { value: text(raw['summary']), confidence: confidenceOf(raw['summary_confidence']) },
    documentType: { value: type, confidence: confidenceOf(raw['document_type_confidence']) },
    fields,
    tags,
    entities: {
      people: named(raw['people']),
      organizations: named(raw['organizations']),
      locations: named(raw['locations']),
      dates,
      amounts,
    },
  };
}

/**
 * The enrichments of consecutive parts of a long document as one: the type the parts agree on
 * most (by confidence), each field from the surest part of that type, tags by rank, entities in
 * order; `summary` is the combined summary the caller made.
 */
export function mergeEnrichments(parts: Enrichment[], summary: Scored<string>, tagLimit: number): Enrichment {
  const votes = new Map<DocumentType, number>();
  for (const p of parts)
    votes.set(p.documentType.value, (votes.get(p.documentType.value) ?? 0) + p.documentType.confidence);
  const [type, weight] = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]!;
  const fields: Record<string, Scored<FieldValue>> = {};
  for (const p of parts.filter((x) => x.documentType.value === type)) {
    for (const [name, f] of Object.entries(p.fields))
      if (!fields[name] || fields[name]!.confidence < f.confidence) fields[name] = f;
  }
  const tagNames = mergeTags(
    parts.map((p) => p.tags.map((t) => t.name)),
    tagLimit,
  );
  const bestTag = (name: string) =>
    Math.max(...parts.flatMap((p) => p.tags.filter((t) => t.name === name).map((t) => t.confidence)), 0);
  const mergeNamed = (lists: NamedEntity[][]) => {
    const out = new Map<string, NamedEntity>();
    for (const e of lists.flat()) {
      const current = out.get(e.name.toLowerCase());
      if (!current || current.confidence < e.confidence)
        out.set(e.name.toLowerCase(), current ? { ...current, confidence: e.confidence } : e);
    }
    return [...out.values()];
  };
  const dates = new Map<string, DateEntity>();
  for (const d of parts.flatMap((p) => p.entities.dates)) if (!dates.has(d.value)) dates.set(d.value, d);
  const amounts = new Map<string, AmountEntity>();
  for (const a of parts.flatMap((p) => p.entities.amounts))
    if (!amounts.has(`${a.currency} ${a.value}`)) amounts.set(`${a.currency} ${a.value}`, a);
  return {
    summary,
    documentType: { value: type, confidence: Math.round((weight / parts.length) * 100) / 100 },
    fields,
    tags: tagNames.map((name) => ({ name, confidence: bestTag(name), source: 'extracted' as const })),
    entities: {
      people: mergeNamed(parts.map((p) => p.entities.people)),
      organizations: mergeNamed(parts.map((p) => p.entities.organizations)),
      locations: mergeNamed(parts.map((p) => p.entities.locations)),
      dates: [...dates.values()],
      amounts: [...amounts.values()],
    },
  };
}
