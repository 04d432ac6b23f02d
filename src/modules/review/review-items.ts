import { errors } from '../../lib/errors.ts';
import { DOCUMENT_TYPES } from '../../providers/ai/ai-provider.ts';
import { type AiEnrichment, type AiFieldValue, normaliseTagNames } from '../documents/index.ts';

/*
 * The rules of the AI review queue (docs/processing.md, "Review"), without I/O: which AI results a
 * document shows and which wait for a person, how a person's decision reads, and what it confirms.
 *
 * A review task's `data` holds the results it asks about, one key each: `document_type` (a type
 * name), `fields.<name>` (a field value) and `tags` (tag names). Its `editable_fields` are those
 * keys; a `modified` decision gives new values for some of them, `null` rejecting one.
 */

/** What people decided about a document's AI results, kept apart from them (a reprocess never overwrites it). */
export interface Confirmations {
  /** The type a person confirmed or corrected; `value` null: they rejected the AI's. */
  documentType?: { value: string | null };
  /** Fields a person confirmed or corrected; null: rejected. */
  fields: Record<string, AiFieldValue | null>;
  tags: { accepted: string[]; rejected: string[] };
}

export const NO_CONFIRMATIONS: Confirmations = { fields: {}, tags: { accepted: [], rejected: [] } };

/** AI results held back for a person, with their confidences. */
export interface HeldResults {
  documentType: { value: string; confidence: number } | null;
  fields: Record<string, { value: AiFieldValue; confidence: number }>;
  tags: { name: string; confidence: number; source: string }[];
}

export interface ReviewPlan {
  /** What the document shows: the AI's results at or above the threshold, and confirmed values over the AI's. */
  shown: AiEnrichment;
  /** What waits for a person; null when nothing does. */
  held: HeldResults | null;
}

const FIELD_PREFIX = 'fields.';
const lower = (names: readonly string[]) => new Set(names.map((n) => n.toLowerCase()));

/**
 * Splits an enrichment: confirmed values replace the AI's (and are never asked about again), a
 * rejected tag never comes back, and, with a threshold, a type, field or tag below it is held.
 */
export function planReview(
  enrichment: AiEnrichment,
  confirmations: Confirmations,
  threshold: number | null,
): ReviewPlan {
  const below = (confidence: number) => threshold !== null && confidence < threshold;
  const held: HeldResults = { documentType: null, fields: {}, tags: [] };

  let documentType = enrichment.documentType;
  if (confirmations.documentType) {
    const value = confirmations.documentType.value;
    documentType = value === null ? null : { value, confidence: 1, confirmed: true };
  } else if (documentType && below(documentType.confidence)) {
    held.documentType = { value: documentType.value, confidence: documentType.confidence };
    documentType = null;
  }

  const fields: AiEnrichment['fields'] = {};
  for (const [name, field] of Object.entries(enrichment.fields)) {
    if (name in confirmations.fields) continue;
    if (below(field.confidence)) held.fields[name] = { value: field.value, confidence: field.confidence };
    else fields[name] = field;
  }
  for (const [name, value] of Object.entries(confirmations.fields)) {
    if (value !== null) fields[name] = { value, confidence: 1, confirmed: true };
  }

  const rejected = lower(confirmations.tags.rejected);
  const accepted = lower(confirmations.tags.accepted);
  const tags: AiEnrichment['tags'] = [];
  for (const tag of enrichment.tags) {
    const key = tag.name.toLowerCase();
    if (rejected.has(key)) continue;
    if (!accepted.has(key) && below(tag.confidence)) held.tags.push(tag);
    else tags.push(tag);
  }

  const holds = held.documentType !== null || Object.keys(held.fields).length > 0 || held.tags.length > 0;
  return { shown: { ...enrichment, documentType, fields, tags, review: null }, held: holds ? held : null };
}

/** The names of held results as the document's `ai_review.pending` lists them. */
export function pendingNames(held: HeldResults): string[] {
  return [
    ...(held.documentType ? ['document_type'] : []),
    ...Object.keys(held.fields).map((f) => `${FIELD_PREFIX}${f}`),
    ...held.tags.map((t) => `tags.${t.name}`),
  ];
}

/** A review task's `data` (the values asked about) and `context` (their confidences). */
export function taskContent(held: HeldResults): { data: Record<string, unknown>; confidences: Record<string, number> } {
  const data: Record<string, unknown> = {};
  const confidences: Record<string, number> = {};
  if (held.documentType) {
    data['document_type'] = held.documentType.value;
    confidences['document_type'] = held.documentType.confidence;
  }
  for (const [name, field] of Object.entries(held.fields)) {
    data[`${FIELD_PREFIX}${name}`] = field.value;
    confidences[`${FIELD_PREFIX}${name}`] = field.confidence;
  }
  if (held.tags.length > 0) {
    data['tags'] = held.tags.map((t) => t.name);
    for (const t of held.tags) confidences[`tags.${t.name}`] = t.confidence;
  }
  return { data, confidences };
}

/** A decision read from a completed task: what is confirmed, corrected or rejected. */
export interface ReviewDecision {
  /** Absent: the task did not ask about the type. */
  documentType?: string | null;
  fields: Record<string, AiFieldValue | null>;
  acceptedTags: string[];
  rejectedTags: string[];
}

/**
 * Reads a task's outcome. `asked` is the task's original data (what the AI proposed), `given` the
 * data it was completed with (proposed values, merged with a reviewer's corrections). Approved:
 * everything asked is accepted as proposed; rejected: everything is rejected. Values are checked:
 * a bad one is a 400 naming `modified_data.<key>`, and the completion does not happen.
 */
export function readDecision(
  decision: 'approved' | 'rejected' | 'modified',
  asked: Record<string, unknown>,
  given: Record<string, unknown>,
): ReviewDecision {
  const out: ReviewDecision = { fields: {}, acceptedTags: [], rejectedTags: [] };
  const reject = decision === 'rejected';
  const data = decision === 'modified' ? given : asked;
  if ('document_type' in asked) out.documentType = reject ? null : documentTypeOf(data['document_type']);
  for (const key of Object.keys(asked).filter((k) => k.startsWith(FIELD_PREFIX))) {
    out.fields[key.slice(FIELD_PREFIX.length)] = reject ? null : fieldValueOf(key, data[key]);
  }
  if ('tags' in asked) {
    const proposed = tagNamesOf('tags', asked['tags']);
    const kept = reject ? [] : tagNamesOf('tags', data['tags']);
    const keptKeys = lower(kept);
    out.acceptedTags = kept;
    out.rejectedTags = proposed.filter((t) => !keptKeys.has(t.toLowerCase()));
  }
  return out;
}

/** The confirmations after a decision: new answers replace older ones of the same result. */
export function confirm(current: Confirmations, decision: ReviewDecision): Confirmations {
  const accepted = lower(decision.acceptedTags);
  const rejected = lower(decision.rejectedTags);
  return {
    ...(decision.documentType !== undefined
      ? { documentType: { value: decision.documentType } }
      : current.documentType
        ? { documentType: current.documentType }
        : {}),
    fields: { ...current.fields, ...decision.fields },
    tags: {
      accepted: [
        ...current.tags.accepted.filter((t) => !rejected.has(t.toLowerCase()) && !accepted.has(t.toLowerCase())),
        ...decision.acceptedTags,
      ],
      rejected: [
        ...current.tags.rejected.filter((t) => !accepted.has(t.toLowerCase()) && !rejected.has(t.toLowerCase())),
        ...decision.rejectedTags,
      ],
    },
  };
}

function invalid(key: string, message: string): never {
  throw errors.validation([{ field: `modified_data.${key}`, message }]);
}

function documentTypeOf(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || !(DOCUMENT_TYPES as readonly string[]).includes(value))
    invalid('document_type', `must be null or one of ${DOCUMENT_TYPES.join(', ')}`);
  return value;
}

function tagNamesOf(key: string, value: unknown): string[] {
  if (value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) invalid(key, 'must be a list of tag names');
  return normaliseTagNames(value as string[], `modified_data.${key}`);
}

const MAX_TEXT = 1_000;
const MAX_NAMES = 50;

/** A field value as a reviewer may give it: text, a list of names, money or a duration, as the AI gives them. */
function fieldValueOf(key: string, value: unknown): AiFieldValue | null {
  if (value === null) return null;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '' || text.length > MAX_TEXT) invalid(key, `must be 1 to ${MAX_TEXT} characters`);
    return text;
  }
  if (Array.isArray(value)) {
    const names = value.map((v) => (typeof v === 'string' ? v.trim() : ''));
    if (names.length === 0 || names.length > MAX_NAMES || names.some((n) => n === '' || n.length > MAX_TEXT))
      invalid(key, `must be 1 to ${MAX_NAMES} non-empty names`);
    return names;
  }
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o['value'] === 'number' && Number.isFinite(o['value'])) {
      const currency = o['currency'];
      if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
        invalid(key, 'money needs `currency`, an ISO 4217 code such as USD');
      const text =
        typeof o['text'] === 'string' && o['text'].trim() !== '' ? o['text'].trim() : `${currency} ${o['value']}`;
      const period = o['period'];
      if (
        period !== undefined &&
        (typeof period !== 'string' || !['hour', 'day', 'week', 'month', 'quarter', 'year'].includes(period))
      )
        invalid(key, '`period` must be hour, day, week, month, quarter or year');
      return { value: o['value'], currency, text, ...(period !== undefined ? { period: period as string } : {}) };
    }
    if (typeof o['value'] === 'string' && /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?$/.test(o['value'])) {
      const text = typeof o['text'] === 'string' && o['text'].trim() !== '' ? o['text'].trim() : o['value'];
      return { value: o['value'], text };
    }
  }
  return invalid(
    key,
    'must be null, text, a list of names, money {value, currency} or a duration {value: ISO 8601 such as P12M, text}',
  );
}
