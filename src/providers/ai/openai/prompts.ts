import { DOCUMENT_TYPES, type Passage } from '../ai-provider.ts';
import { FIELD_NAMES } from '../local/key-fields.ts';

// Prompts and strict JSON schemas for the OpenAI-compatible provider. Strict structured output
// needs every property listed in `required` and `additionalProperties: false` at every level.

/** A named JSON schema for `response_format: { type: 'json_schema' }`. */
export interface StructuredTask {
  name: string;
  system: string;
  schema: Record<string, unknown>;
}

const stringArray = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

export const SUMMARY_TASK: StructuredTask = {
  name: 'document_summary',
  system:
    'You summarise documents for a document management system. Write a faithful summary of 2 to 4 ' +
    'sentences (at most 600 characters) in the language of the document: what it is, who is involved, ' +
    'the key facts, amounts and dates. Use only information in the text. Answer with JSON.',
  schema: {
    type: 'object',
    properties: { summary: { type: 'string', description: 'The summary, plain text.' } },
    required: ['summary'],
    additionalProperties: false,
  },
};

/** For the reduce step of a long document: the parts' summaries become one. */
export const COMBINE_SUMMARIES_SYSTEM =
  'The user message holds summaries of consecutive parts of one long document. Combine them into one ' +
  'faithful summary of 2 to 4 sentences (at most 600 characters) of the whole document. Answer with JSON.';

export function tagsTask(limit: number): StructuredTask {
  return {
    name: 'document_tags',
    system:
      `Suggest up to ${limit} tags for the document, best first: lower-case key phrases of 1 to 3 words ` +
      'naming its topics (not people, not dates, not numbers, no duplicates or plural variants). Answer with JSON.',
    schema: {
      type: 'object',
      properties: { tags: stringArray('Lower-case key phrases, best first.') },
      required: ['tags'],
      additionalProperties: false,
    },
  };
}

export function entitiesTask(referenceDate: Date | undefined): StructuredTask {
  const reference = referenceDate
    ? ` Resolve dates written without a year relative to ${referenceDate.toISOString().slice(0, 10)}.`
    : '';
  return {
    name: 'document_entities',
    system:
      'Extract the named entities of the document. people: full names of persons without titles. ' +
      'organizations: companies, institutions and public bodies as written. places: cities, regions and ' +
      'countries (not street addresses). dates: calendar days mentioned, as YYYY-MM-DD (omit months, ' +
      'quarters and relative dates you cannot pin to a day). amounts: money as "<ISO 4217 code> <amount ' +
      `with thousands separators and 2 decimals>", e.g. "USD 12,500.00". Each list unique, in order of first appearance.${reference} ` +
      'Answer with JSON.',
    schema: {
      type: 'object',
      properties: {
        people: stringArray('Persons.'),
        organizations: stringArray('Organisations.'),
        places: stringArray('Places.'),
        dates: stringArray('Dates, YYYY-MM-DD.'),
        amounts: stringArray('Money amounts, "USD 12,500.00".'),
      },
      required: ['people', 'organizations', 'places', 'dates', 'amounts'],
      additionalProperties: false,
    },
  };
}

export const ANSWER_SYSTEM =
  'You answer questions about documents using only the numbered passages in the user message. ' +
  'Cite the passages you use with their markers, like [1] or [2][3], right after the statement they support. ' +
  'If the passages do not contain the answer, say plainly that the document does not say, and do not guess. ' +
  'Answer in the language of the question, in one or two sentences that state the asked fact (the date, amount, ' +
  'name, place or period) as the passage writes it.';

/** The user message of an answer: numbered passages, then the question. */
export function answerPrompt(question: string, passages: Passage[]): string {
  const blocks = passages.map((p, i) => {
    const page = p.page != null ? `, page ${p.page}` : '';
    return `[${i + 1}] (document ${p.documentId}${page})\n${p.text.trim()}`;
  });
  return `Passages:\n\n${blocks.join('\n\n')}\n\nQuestion: ${question.trim()}`;
}

const confidence = { type: 'number', description: 'How sure you are, from 0 to 1.' };
const scoredList = (description: string, value: 'name' | 'value', extra: Record<string, unknown> = {}) => ({
  type: 'array',
  description,
  items: {
    type: 'object',
    properties: { [value]: { type: 'string' }, ...extra, confidence },
    required: [value, ...Object.keys(extra), 'confidence'],
    additionalProperties: false,
  },
});

/** Every field name any document type may carry, for the schema's enum. */
const ALL_FIELDS = [...new Set(Object.values(FIELD_NAMES).flat())];

/** Summary, type, key fields, tags and entities in one answer (what `enrich` asks). */
export function enrichTask(referenceDate: Date | undefined, tagLimit: number, knownTags: string[]): StructuredTask {
  const reference = referenceDate
    ? ` Resolve dates written without a year against the document's own date, else ${referenceDate.toISOString().slice(0, 10)}.`
    : '';
  const fieldGuide = (Object.entries(FIELD_NAMES) as [string, string[]][])
    .filter(([, names]) => names.length > 0)
    .map(([type, names]) => `${type}: ${names.join(', ')}`)
    .join('; ');
  const known =
    knownTags.length > 0
      ? ` Prefer these existing tags of the library when they fit: ${knownTags.slice(0, 200).join(', ')}.`
      : '';
  return {
    name: 'document_enrichment',
    system:
      'You file documents for a document management system. Answer with JSON. ' +
      `document_type: one of ${DOCUMENT_TYPES.join(', ')} (other when none fits). ` +
      `fields: the key fields of that type that the text gives (${fieldGuide}); dates as YYYY-MM-DD, money as "<ISO 4217 code> <amount>" ` +
      '(with "per month" or "per year" for rent, salary and fees), durations as ISO 8601 (P12M), lists (parties, landlord, tenant, to) joined with "; ". ' +
      'summary: at most 600 characters; the first sentence states the type and its key fields (e.g. "Purchase order RVMC-PO-55120 from ' +
      'Redwood Valley Medical Center to Cascade Surgical Supply, USD 32,078.75, delivery by 2025-04-15."), then the most informative one or two ' +
      'sentences; no headers, greetings or signatures. ' +
      `tags: up to ${tagLimit} lower-case topical noun phrases of 1 to 3 words (no names of people, companies or places, no dates or numbers).${known} ` +
      'people (full names without titles), organizations, locations (cities, regions, countries; not street addresses), dates (calendar days, ' +
      "value YYYY-MM-DD, text as written; read numeric dates day-first or month-first as the document's country does) and amounts (value " +
      '"<ISO 4217 code> <amount>", negative with a minus, text as written), each unique. Every confidence is from 0 to 1.' +
      reference,
    schema: {
      type: 'object',
      properties: {
        document_type: { type: 'string', enum: [...DOCUMENT_TYPES] },
        document_type_confidence: confidence,
        fields: scoredList('Key fields of the document type.', 'value', { name: { type: 'string', enum: ALL_FIELDS } }),
        summary: { type: 'string' },
        summary_confidence: confidence,
        tags: scoredList('Topical tags, best first.', 'name'),
        people: scoredList('Persons.', 'name'),
        organizations: scoredList('Organisations.', 'name'),
        locations: scoredList('Places.', 'name'),
        dates: scoredList('Calendar days.', 'value', { text: { type: 'string' } }),
        amounts: scoredList('Money.', 'value', { text: { type: 'string' } }),
      },
      required: [
        'document_type',
        'document_type_confidence',
        'fields',
        'summary',
        'summary_confidence',
        'tags',
        'people',
        'organizations',
        'locations',
        'dates',
        'amounts',
      ],
      additionalProperties: false,
    },
  };
}
