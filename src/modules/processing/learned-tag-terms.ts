import { contentStems } from '../../providers/ai/text.ts';
import type { Terms } from './learned-tag-model.ts';

/** The most frequent terms kept per document: enough for a topic, small enough to store for every document. */
const MAX_TERMS = 300;
/** Text read per document: a long report says what it is about well before its 200th kilobyte. */
const MAX_CHARS = 200_000;
/**
 * How many occurrences the document type counts as: one of the strongest signs of where a document
 * is filed (an invoice, a lease, an offer letter), worth a frequent word rather than a single one.
 */
const TYPE_WEIGHT = 3;
const TYPE_PREFIX = 'type:';

/**
 * What the learned-tag classifier reads of a document: its content stems (no stop words, numbers
 * or codes, nothing under three letters), the most frequent `MAX_TERMS` of them, and its document
 * type as the term `type:<type>` (the AI's, or the one a reviewer confirmed).
 */
export function documentTerms(text: string, documentType: string | null): Terms {
  const counts = new Map<string, number>();
  for (const stem of contentStems(text.slice(0, MAX_CHARS))) {
    if (stem.length < 3 || /\d/.test(stem)) continue;
    counts.set(stem, (counts.get(stem) ?? 0) + 1);
  }
  // Most frequent first; a tie keeps the earlier occurrence (Map order), so the cut is deterministic.
  const kept = [...counts].sort((a, b) => b[1] - a[1]).slice(0, MAX_TERMS);
  return withDocumentType(Object.fromEntries(kept), documentType);
}

/** The same terms with another document type (a reviewer's correction), or none. */
export function withDocumentType(terms: Terms, documentType: string | null): Terms {
  const out: Terms = Object.fromEntries(Object.entries(terms).filter(([term]) => !term.startsWith(TYPE_PREFIX)));
  if (documentType) out[`${TYPE_PREFIX}${documentType}`] = TYPE_WEIGHT;
  return out;
}
