import type { Enrichment, TagSuggestion } from '../ai-provider.ts';
import { findAmounts } from './amounts.ts';
import { findDates } from './dates.ts';
import { classifyDocument } from './document-types.ts';
import { extractEntityDetails } from './entities.ts';
import { extractKeyFields } from './key-fields.ts';
import { scoreKeyPhrases } from './keywords.ts';
import { detectLocale } from './locale.ts';
import { summarizeDocument } from './summarize.ts';

export { extractEntitiesLocal } from './entities.ts';

/** Options of `enrichLocal`. */
export interface LocalEnrichOptions {
  referenceDate?: Date;
  tagLimit?: number;
  knownTags?: string[];
  documentFrequency?: (term: string) => number;
}

// What a document with no topical phrase of its own is at least about.
const TYPE_TAGS: Record<string, string> = {
  invoice: 'invoice',
  receipt: 'receipt',
  purchase_order: 'purchase order',
  quote: 'quotation',
  contract: 'contract',
  lease: 'lease',
  nda: 'confidentiality',
  employment_letter: 'employment',
  policy: 'policy',
  minutes: 'meeting minutes',
  statement: 'account statement',
  cv: 'cv',
};

/**
 * The local provider's whole enrichment of one text: locale cues, then entities (dates and
 * amounts read by the locale), the document type, its key fields, a summary that says what it
 * is, and topical tags that leave the entities' names out.
 */
export function enrichLocal(text: string, options: LocalEnrichOptions = {}): Enrichment {
  const locale = detectLocale(text);
  const dates = findDates(text, { referenceDate: options.referenceDate, locale });
  const amounts = findAmounts(text, locale.amounts);
  const entities = extractEntityDetails(text, { referenceDate: options.referenceDate, locale, dates, amounts });
  const documentType = classifyDocument(text);
  const type = { value: documentType.value, confidence: documentType.confidence };
  const fields = extractKeyFields(type.value, { text, entities, dates, amounts, locale });
  const summary = summarizeDocument(text, type, fields);
  const names = [...entities.people, ...entities.organizations, ...entities.locations].map((e) => e.name);
  const tags: TagSuggestion[] = scoreKeyPhrases(text, {
    limit: options.tagLimit,
    documentFrequency: options.documentFrequency,
    people: entities.people.map((p) => p.name),
    names,
    knownTags: options.knownTags,
  }).map((t) => ({ name: t.name, confidence: t.confidence, source: 'extracted' }));
  const fallback = TYPE_TAGS[type.value];
  if (tags.length === 0 && fallback && text.trim() !== '')
    tags.push({ name: fallback, confidence: Math.min(0.6, type.confidence), source: 'extracted' });
  return { summary, documentType: type, fields, tags, entities };
}
