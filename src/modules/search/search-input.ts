import { iso } from '../../lib/clock.ts';
import { errors } from '../../lib/errors.ts';
import type { DocumentFilters } from '../documents/index.ts';
import type { RequestedFilter } from './enhanced-search.ts';

/** Request fields to the service's terms (the routes' parse step; search.presenter.ts is the other way). */

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** An ISO 8601 date or date-time as epoch ms; a date alone means its first (or, for an end, last) millisecond in UTC. */
export function parseIsoDate(value: string | undefined, field: string, end: boolean): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  let ms = Number.NaN;
  if (DATE_ONLY.test(v)) ms = Date.parse(`${v}T00:00:00Z`) + (end ? 86_400_000 - 1 : 0);
  else if (ISO_DATE_TIME.test(v)) ms = Date.parse(v);
  if (!Number.isFinite(ms))
    throw errors.field(field, 'must be an ISO 8601 date (2026-03-01) or date-time (2026-03-01T12:00:00Z)');
  return ms;
}

/** The filters every search takes (GET parameters or a body's `filters`). */
export function parseFilters(
  input: { folder_id?: string; tag_id?: string; file_type?: string; start?: string; end?: string },
  fields: { start: string; end: string },
): DocumentFilters {
  const filters: DocumentFilters = {};
  if (input.folder_id !== undefined) filters.folderId = input.folder_id;
  if (input.tag_id !== undefined) filters.tagIds = [input.tag_id];
  if (input.file_type !== undefined && input.file_type.trim() !== '') filters.fileTypes = [input.file_type];
  const from = parseIsoDate(input.start, fields.start, false);
  const to = parseIsoDate(input.end, fields.end, true);
  if (from !== undefined) filters.createdFrom = from;
  if (to !== undefined) filters.createdTo = to;
  if (from !== undefined && to !== undefined && from > to)
    throw errors.field(fields.end, 'must not be before the start');
  return filters;
}

/** Hybrid weights: defaults 0.5 / 0.5; one given, the other makes the sum 1; both given, they may not exceed 1 together or both be 0. */
export function hybridWeights(
  semantic: number | undefined,
  text: number | undefined,
): { semanticWeight: number; textWeight: number } {
  const semanticWeight = semantic ?? (text !== undefined ? 1 - text : 0.5);
  const textWeight = text ?? (semantic !== undefined ? 1 - semantic : 0.5);
  if (semanticWeight === 0 && textWeight === 0)
    throw errors.field('semantic_weight', 'semantic_weight and text_weight cannot both be 0');
  if (semanticWeight + textWeight > 1 + 1e-9)
    throw errors.field('text_weight', 'semantic_weight + text_weight must not exceed 1 (scores stay within 0 to 1)');
  return { semanticWeight, textWeight };
}

/** The request's own filters as `applied_filters` entries. */
export function requestedFilters(filters: DocumentFilters): RequestedFilter[] {
  const out: RequestedFilter[] = [];
  if (filters.createdFrom !== undefined || filters.createdTo !== undefined) {
    const value = {
      ...(filters.createdFrom !== undefined ? { start: iso(filters.createdFrom) } : {}),
      ...(filters.createdTo !== undefined ? { end: iso(filters.createdTo) } : {}),
    };
    out.push({ type: 'date_range', value });
  }
  for (const name of filters.tagNames ?? []) out.push({ type: 'tag', value: name });
  for (const c of filters.aiCategories ?? []) out.push({ type: 'ai_category', value: c });
  if (filters.folderId !== undefined) out.push({ type: 'folder', value: filters.folderId });
  return out;
}
