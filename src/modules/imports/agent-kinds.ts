import type { DocumentAi } from '../workflows/index.ts';

/** A bad field of an agent assignment, answered as a 400 `validation_error` entry. */
export interface ConfigProblem {
  field: string;
  message: string;
}

/** What an approved proposal does to one document (DocumentsService.annotate). */
export interface DocumentChange {
  addTags?: string[];
  metadata?: Record<string, unknown>;
  summary?: string;
}

/**
 * An AI agent that works document by document: it proposes fields for each document's text, and a
 * proposal entry (as approved, perhaps edited by the reviewer) becomes a change of that document.
 */
export interface DocumentAgent {
  check(config: Record<string, unknown>): ConfigProblem[];
  propose(
    ai: DocumentAi,
    text: string,
    config: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
  /** The change an entry asks for; null when the entry carries nothing this agent applies. */
  change(entry: Record<string, unknown>, config: Record<string, unknown>): DocumentChange | null;
}

const WHO = 'Import agent';
const EXTRACTION_TYPES = new Set(['string', 'number', 'integer', 'currency', 'date', 'boolean', 'array']);
const DEFAULT_MAX_TAGS = 5;

export const DOCUMENT_AGENTS: Readonly<
  Record<'ai_tag' | 'ai_classify' | 'ai_summarize' | 'ai_extract', DocumentAgent>
> = {
  /** Tags from the text (`max_tags`, default 5), added to the document's own. */
  ai_tag: {
    check: (config) => optionalInteger(config, 'max_tags', 1, 50),
    async propose(ai, text, config, signal) {
      const tags = await ai.tags(text, { signal });
      return { tags: tags.slice(0, Number(config.max_tags ?? DEFAULT_MAX_TAGS)) };
    },
    change(entry) {
      const tags = stringList(entry.tags);
      return tags.length > 0 ? { addTags: tags } : null;
    },
  },
  /** One of `categories` (names, or `{name, description}`), stored in the metadata key `metadata_key` (default `category`). */
  ai_classify: {
    check(config) {
      const categories = config.categories;
      const named = (c: unknown) =>
        (typeof c === 'string' && c.trim() !== '') ||
        (isObject(c) && typeof c.name === 'string' && c.name.trim() !== '');
      const problems =
        Array.isArray(categories) && categories.length > 0 && categories.every(named)
          ? []
          : [{ field: 'config.categories', message: 'must be a non-empty list of names or {name, description}' }];
      return [...problems, ...optionalString(config, 'metadata_key')];
    },
    async propose(ai, text, config, signal) {
      const { category, confidence } = await ai.classify(text, config.categories, { who: WHO, signal });
      return { category, confidence };
    },
    change(entry, config) {
      return typeof entry.category === 'string' && entry.category !== ''
        ? { metadata: { [metadataKey(config, 'category')]: entry.category } }
        : null;
    },
  },
  /** A summary (`max_length` characters at most) that becomes the document's summary. */
  ai_summarize: {
    check: (config) => optionalInteger(config, 'max_length', 20, 100_000),
    async propose(ai, text, config, signal) {
      const maxLength = config.max_length === undefined ? undefined : Number(config.max_length);
      return ai.summarize(text, { ...(maxLength ? { maxLength } : {}), signal });
    },
    change(entry) {
      return typeof entry.summary === 'string' && entry.summary.trim() !== '' ? { summary: entry.summary } : null;
    },
  },
  /** Fields of `extraction_schema` (`{field: type}`) found in the text, merged into the metadata (under `metadata_key` when given). */
  ai_extract: {
    check(config) {
      const schema = config.extraction_schema;
      const typeOf = (t: unknown) => String(isObject(t) ? (t.type ?? 'string') : t).toLowerCase();
      const problems: ConfigProblem[] =
        isObject(schema) &&
        Object.keys(schema).length > 0 &&
        Object.values(schema).every((t) => EXTRACTION_TYPES.has(typeOf(t)))
          ? []
          : [
              {
                field: 'config.extraction_schema',
                message: `must map field names to types (${[...EXTRACTION_TYPES].join(', ')})`,
              },
            ];
      return [...problems, ...optionalString(config, 'metadata_key')];
    },
    propose: (ai, text, config, signal) => ai.extract(text, config.extraction_schema, { who: WHO, signal }),
    change(entry, config) {
      if (!isObject(entry.data)) return null;
      const found = Object.fromEntries(Object.entries(entry.data).filter(([, v]) => v !== null && v !== undefined));
      if (Object.keys(found).length === 0) return null;
      return { metadata: typeof config.metadata_key === 'string' ? { [config.metadata_key]: found } : found };
    },
  },
};

export function isDocumentAgent(type: string): type is keyof typeof DOCUMENT_AGENTS {
  return Object.hasOwn(DOCUMENT_AGENTS, type);
}

/** The approval task settings every agent accepts (used when `auto_approve` is false). */
export function checkApprovalConfig(config: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (config.assignee_type !== undefined && !['role', 'user', 'workspace'].includes(String(config.assignee_type))) {
    problems.push({ field: 'config.assignee_type', message: 'must be role, user or workspace' });
  }
  if (
    config.assignee_type !== undefined &&
    (typeof config.assignee_value !== 'string' || config.assignee_value === '')
  ) {
    problems.push({ field: 'config.assignee_value', message: 'is required with assignee_type' });
  }
  if (config.on_timeout !== undefined && !['approve', 'reject', 'fail'].includes(String(config.on_timeout))) {
    problems.push({ field: 'config.on_timeout', message: 'must be approve, reject or fail' });
  }
  return [...problems, ...optionalNumber(config, 'timeout_hours', 0.0001, 24 * 365)];
}

function metadataKey(config: Record<string, unknown>, fallback: string): string {
  return typeof config.metadata_key === 'string' && config.metadata_key !== '' ? config.metadata_key : fallback;
}

function optionalInteger(config: Record<string, unknown>, key: string, min: number, max: number): ConfigProblem[] {
  const v = config[key];
  return v === undefined || (Number.isInteger(v) && (v as number) >= min && (v as number) <= max)
    ? []
    : [{ field: `config.${key}`, message: `must be an integer from ${min} to ${max}` }];
}

function optionalNumber(config: Record<string, unknown>, key: string, min: number, max: number): ConfigProblem[] {
  const v = config[key];
  return v === undefined || (typeof v === 'number' && v >= min && v <= max)
    ? []
    : [{ field: `config.${key}`, message: `must be a number from ${min} to ${max}` }];
}

function optionalString(config: Record<string, unknown>, key: string): ConfigProblem[] {
  const v = config[key];
  return v === undefined || (typeof v === 'string' && v.trim() !== '' && v.length <= 100)
    ? []
    : [{ field: `config.${key}`, message: 'must be a non-empty string of at most 100 characters' }];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
