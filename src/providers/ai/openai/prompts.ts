import type { Passage } from '../ai-provider.ts';

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
  const reference = referenceDate ? ` Resolve dates written without a year relative to ${referenceDate.toISOString().slice(0, 10)}.` : '';
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
