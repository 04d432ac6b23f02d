import type { Entities } from '../ai-provider.ts';
import { normalizeAmount } from '../local/amounts.ts';
import { normalizeDate } from '../local/dates.ts';
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
    (Array.isArray(value) ? value : []).filter((v): v is string => typeof v === 'string').map((v) => v.replace(/\s+/g, ' ').trim()).filter(Boolean);
  return {
    people: uniqueCaseless(strings(raw.people)),
    organizations: uniqueCaseless(strings(raw.organizations)),
    places: uniqueCaseless(strings(raw.places)),
    dates: uniqueCaseless(strings(raw.dates).map((d) => normalizeDate(d, referenceDate)).filter((d): d is string => d !== null)),
    amounts: uniqueCaseless(strings(raw.amounts).map((a) => normalizeAmount(a)).filter((a): a is string => a !== null)),
  };
}

/** The entities of consecutive parts, in order, each list unique. */
export function mergeEntities(parts: Entities[]): Entities {
  const merged: Entities = { people: [], organizations: [], dates: [], places: [], amounts: [] };
  for (const key of Object.keys(merged) as (keyof Entities)[]) merged[key] = uniqueCaseless(parts.flatMap((p) => p[key]));
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
