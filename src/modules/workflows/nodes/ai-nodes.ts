import type { Database } from '../../../db/database.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { AppError } from '../../../lib/errors.ts';
import type { ModuleServices } from '../../../platform/module.ts';
import { plainEntities } from '../../../providers/ai/ai-provider.ts';
import type { NodeHandler, NodeInput } from '../node-handlers.ts';
import { classify, coerceExtraction, rankByVector, type SchemaCheck } from './ai-methods.ts';

/** What the AI nodes need of other modules. */
export interface AiNodeDeps {
  database: Database;
  ai: ModuleServices['ai'];
  documents: Pick<ModuleServices['documentPipeline'], 'findContent'>;
  /** The documents module's access rules: who may read which document. */
  access: ModuleServices['documentAccess'];
  passages: ModuleServices['passages'];
  /** Validates a value against a JSON Schema; the error text, or null when it conforms. */
  checkSchema: SchemaCheck;
}

const TOP_PASSAGES = 4;

/**
 * The AI methods on one document that the AI nodes run, also offered to other modules (import
 * agents) so a document is summarised, classified or mined the same way wherever it is asked for.
 * `who` names the asker in error messages (`Node "n1"`).
 */
export interface DocumentAi {
  /**
   * The document's extracted text, read as `reader`: fails `<who>: not_found: ...` when the document
   * is missing or `reader` may not read it (one message for both, so nothing is revealed), and
   * when it has no text yet.
   */
  text(reader: AuthContext, documentId: string, who: string): Promise<string>;
  summarize(text: string, o: { maxLength?: number; signal?: AbortSignal }): Promise<{ summary: string }>;
  classify(
    text: string,
    categories: unknown,
    o: { who: string; signal?: AbortSignal },
  ): Promise<{ category: string; confidence: number; scores: Record<string, number> }>;
  extract(
    text: string,
    schema: unknown,
    o: { who: string; signal?: AbortSignal },
  ): Promise<{ data: Record<string, unknown> }>;
  tags(text: string, o: { signal?: AbortSignal }): Promise<string[]>;
}

export function documentAi(deps: Pick<AiNodeDeps, 'database' | 'ai' | 'documents' | 'access'>): DocumentAi {
  const readable = async (reader: AuthContext, id: string, who: string) => {
    const notFound = () => new Error(`${who}: not_found: document "${id}" not found`);
    if (id === '') throw notFound();
    try {
      return (await deps.access.authorize(deps.database.db, reader, id, 'read')).document;
    } catch (error) {
      throw error instanceof AppError && error.status === 404 ? notFound() : error;
    }
  };
  return {
    async text(reader, id, who) {
      const doc = await readable(reader, id, who);
      const content = await deps.documents.findContent(deps.database.db, reader.tenant.id, id);
      if (!content || content.text.trim() === '')
        throw new Error(`${who}: document "${id}" has no text yet (status ${doc.status})`);
      return content.text;
    },
    async summarize(text, o) {
      const summary = await deps.ai.summarize(text, { signal: o.signal });
      const max = o.maxLength ?? 0;
      return { summary: max > 0 && summary.length > max ? `${summary.slice(0, max - 1).trimEnd()}…` : summary };
    },
    classify: (text, categories, o) => classify(o.who, deps.ai, text, categories, o.signal),
    async extract(text, schema, o) {
      if (!schema || typeof schema !== 'object' || Array.isArray(schema))
        throw new Error(`${o.who}: extraction_schema must map field names to types`);
      // The enrichment, not the bare entities: its key fields ("total", "due_date") answer fields of those names.
      const enrichment = await deps.ai.enrich(text, { signal: o.signal });
      const found = { entities: plainEntities(enrichment.entities), fields: enrichment.fields };
      return {
        data: coerceExtraction(o.who, schema as Record<string, unknown>, text, found) as Record<string, unknown>,
      };
    },
    tags: (text, o) => deps.ai.extractTags(text, { signal: o.signal }),
  };
}

/**
 * The AI nodes of contract §10 through the tenant's AI provider (`local`: classical methods, no
 * network; `openai`: its models), each reading the text of `document_id`:
 * `ai_summarize` → {summary}, `ai_analyze` → {analysis}, `ai_extract` → {data},
 * `ai_classify` → {category, confidence, scores}, `ai_qa` → {answers}, `ai_custom` → its schema.
 */
export function aiHandlers(deps: AiNodeDeps): Record<string, NodeHandler> {
  const methods = documentAi(deps);
  // Every AI node reads its document as the execution's principal (a document they may not read fails the node `not_found`).
  const textOf = async (input: NodeInput): Promise<string> =>
    methods.text(await input.actingAs(), String(input.config.document_id ?? ''), `Node "${input.node.id}"`);
  const done = (output: unknown) => ({ kind: 'completed' as const, output });

  return {
    ai_summarize: async (input) =>
      done(
        await methods.summarize(await textOf(input), {
          maxLength: Number(input.config.max_length ?? 0),
          signal: input.signal,
        }),
      ),
    ai_analyze: async (input) => {
      const text = await textOf(input);
      const [summary, topics, entities] = await Promise.all([
        deps.ai.summarize(text, { signal: input.signal }),
        deps.ai.extractTags(text, { signal: input.signal }),
        deps.ai.extractEntities(text, { signal: input.signal }),
      ]);
      const words = text.split(/\s+/).filter(Boolean).length;
      return done({
        analysis: {
          analysis_type: String(input.config.analysis_type ?? 'general'),
          summary,
          topics,
          entities,
          word_count: words,
        },
      });
    },
    ai_extract: async (input) =>
      done(
        await methods.extract(await textOf(input), input.config.extraction_schema, {
          who: `Node "${input.node.id}"`,
          signal: input.signal,
        }),
      ),
    ai_classify: async (input) =>
      done(
        await methods.classify(await textOf(input), input.config.categories, {
          who: `Node "${input.node.id}"`,
          signal: input.signal,
        }),
      ),
    ai_qa: async (input) => {
      await textOf(input);
      const questions = Array.isArray(input.config.questions)
        ? input.config.questions.map(String)
        : [String(input.config.questions)];
      const documentId = String(input.config.document_id);
      const stored = await deps.passages.forDocument(deps.database.db, input.tenantId, documentId);
      const answers = [];
      for (const question of questions) {
        const [vector] = await deps.ai.embed([question], { purpose: 'query', signal: input.signal });
        const best = rankByVector(vector ?? null, question, stored, TOP_PASSAGES);
        const answer = await deps.ai.answer(
          question,
          best.map((p) => ({ documentId, text: p.text, page: p.page, score: p.score })),
          { signal: input.signal },
        );
        const citations = answer.used
          .map((i) => best[i])
          .filter((p) => p !== undefined)
          .map((p) => ({
            document_id: documentId,
            text: p.text,
            page: p.page,
            score: Math.round(p.score * 1000) / 1000,
          }));
        answers.push({ question, answer: answer.text, citations });
      }
      return done({ answers });
    },
    ai_custom: async (input) => {
      const text = await textOf(input);
      const prompt = String(input.config.prompt);
      const stored = await deps.passages.forDocument(
        deps.database.db,
        input.tenantId,
        String(input.config.document_id),
      );
      const [vector] = await deps.ai.embed([prompt], { purpose: 'query', signal: input.signal });
      const best = rankByVector(
        vector ?? null,
        prompt,
        stored.length > 0 ? stored : [{ index: 0, page: null, text, vector: null }],
        TOP_PASSAGES,
      );
      const answer = await deps.ai.answer(
        prompt,
        best.map((p) => ({ documentId: String(input.config.document_id), text: p.text, page: p.page, score: p.score })),
        { signal: input.signal },
      );
      const output = shapeCustom(input, answer.text, text);
      const schema = input.config.output_schema;
      if (schema && typeof schema === 'object') {
        const problem = deps.checkSchema(schema, output);
        if (problem) throw new Error(`Node "${input.node.id}": the output does not match output_schema: ${problem}`);
      }
      return done(output);
    },
  };
}

/** `ai_custom`'s output: `{result}` unless `output_schema` asks for named properties, filled from the answer and the text. */
function shapeCustom(input: NodeInput, answer: string, text: string): Record<string, unknown> {
  const schema = input.config.output_schema as { properties?: Record<string, { type?: string }> } | undefined;
  const properties = schema?.properties;
  if (!properties) return { result: answer };
  const fields = Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, p.type ?? 'string']));
  const extracted = coerceExtraction(`Node "${input.node.id}"`, fields, text, null) as Record<string, unknown>;
  for (const [name, type] of Object.entries(fields)) {
    if (extracted[name] === null && type === 'string') extracted[name] = answer;
  }
  return Object.fromEntries(Object.entries(extracted).filter(([, v]) => v !== null));
}
