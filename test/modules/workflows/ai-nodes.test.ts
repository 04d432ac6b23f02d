import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { uploadOk } from '../documents/helpers.ts';
import { waitFor } from '../../jobs/helpers.ts';
import { describeEachDialect, type TestApp } from '../../support/app.ts';
import { createTenant, type TestTenant } from '../../support/fixtures.ts';
import { startOpenAiServer } from '../../support/openai-server.ts';
import { workflowApi } from './helpers.ts';

const INVOICE = [
  'Invoice number: INV-2044',
  'Vendor: Acme Corporation',
  'Total: USD 1,250.00',
  'Due date: 2026-03-15',
  'The invoice covers consulting services delivered by Maria Keller in Berlin.',
  'Payment is due within 30 days of the invoice date. Late payment incurs a fee of two percent.',
].join('\n');

const CATEGORIES = [
  { name: 'invoice', description: 'invoice bill payment due total amount vendor' },
  { name: 'contract', description: 'agreement terms parties signed clauses obligations' },
  { name: 'recipe', description: 'cooking ingredients oven bake flour sugar' },
];

/** A workflow with one node of each AI type over the document of the trigger. */
const aiWorkflow = {
  name: 'AI nodes',
  nodes: [
    {
      id: 'summary',
      type: 'ai_summarize',
      timeout_seconds: 60,
      config: { document_id: '{{trigger.document_id}}', max_length: 400 },
    },
    {
      id: 'analysis',
      type: 'ai_analyze',
      timeout_seconds: 60,
      config: { document_id: '{{trigger.document_id}}', analysis_type: 'general' },
    },
    {
      id: 'fields',
      type: 'ai_extract',
      timeout_seconds: 60,
      config: {
        document_id: '{{trigger.document_id}}',
        extraction_schema: { invoice_number: 'string', total: 'number', due_date: 'date', vendor: 'string' },
      },
    },
    {
      id: 'kind',
      type: 'ai_classify',
      timeout_seconds: 60,
      config: { document_id: '{{trigger.document_id}}', categories: CATEGORIES },
    },
    {
      id: 'qa',
      type: 'ai_qa',
      timeout_seconds: 60,
      config: { document_id: '{{trigger.document_id}}', questions: ['When is payment due?'] },
    },
    {
      id: 'custom',
      type: 'ai_custom',
      timeout_seconds: 60,
      config: {
        document_id: '{{trigger.document_id}}',
        prompt: 'Which invoice number is billed?',
        output_schema: {
          type: 'object',
          required: ['invoice_number'],
          properties: { invoice_number: { type: 'string', pattern: '^INV-' } },
        },
      },
    },
  ],
};

async function processedInvoice(t: TestApp, tenant: TestTenant): Promise<string> {
  const id = await uploadOk(t, tenant.headers, { filename: 'invoice.txt', content: Buffer.from(INVOICE) });
  await waitFor(
    async () =>
      (await t.container.database.db.selectFrom('documents').select('status').where('id', '=', id).executeTakeFirst())
        ?.status === 'completed',
    'the invoice to be processed',
    30_000,
  );
  return id;
}

function checkOutputs(results: Record<string, { status: string; output: Record<string, unknown>; error?: string }>) {
  for (const [node, r] of Object.entries(results)) assert.equal(r.status, 'completed', `${node}: ${r.error}`);
  assert.equal(typeof results.summary!.output.summary, 'string');
  assert.ok((results.summary!.output.summary as string).length <= 400);
  const analysis = results.analysis!.output.analysis as Record<string, unknown>;
  assert.ok(Array.isArray(analysis.topics) && typeof analysis.word_count === 'number');
  const kind = results.kind!.output as { category: string; confidence: number; scores: Record<string, number> };
  assert.deepEqual(Object.keys(kind.scores).sort(), ['contract', 'invoice', 'recipe']);
  assert.ok(Math.abs(Object.values(kind.scores).reduce((a, b) => a + b, 0) - 1) < 0.01);
  assert.equal(kind.confidence, kind.scores[kind.category]);
  const qa = results.qa!.output.answers as { question: string; answer: string; citations: unknown[] }[];
  assert.equal(qa[0]!.question, 'When is payment due?');
  assert.equal(typeof qa[0]!.answer, 'string');
  assert.match(String(results.custom!.output.invoice_number), /^INV-/);
}

describeEachDialect(
  'workflow AI nodes (local provider)',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
    });

    it('every AI node runs on the local provider; extraction is typed; classification picks the invoice', async () => {
      const documentId = await processedInvoice(ctx(), tenant);
      const id = await api.create(aiWorkflow);
      const done = await api.finished(await api.run(id, { document_id: documentId }), 60_000);
      checkOutputs(done.node_results);
      assert.deepEqual(done.node_results.fields.output.data, {
        invoice_number: 'INV-2044',
        total: 1250,
        due_date: '2026-03-15',
        vendor: 'Acme Corporation',
      });
      assert.equal(done.node_results.kind.output.category, 'invoice');
      assert.ok(done.node_results.qa.output.answers[0].citations.length > 0, 'the answer cites the document');
    });

    it('a missing document or an output that breaks output_schema fails the node with its message', async () => {
      const documentId = await processedInvoice(ctx(), tenant);
      const id = await api.create({
        name: 'AI failures',
        error_handling: { on_failure: 'continue' },
        nodes: [
          {
            id: 'missing',
            type: 'ai_summarize',
            timeout_seconds: 30,
            config: { document_id: '01a00000-0000-7000-8000-000000000000' },
          },
          {
            id: 'strict',
            type: 'ai_custom',
            timeout_seconds: 30,
            config: {
              document_id: documentId,
              prompt: 'Give the order code',
              output_schema: { type: 'object', required: ['code'], properties: { code: { type: 'integer' } } },
            },
          },
        ],
      });
      const done = await api.finished(await api.run(id, {}), 60_000);
      assert.match(
        done.node_results.missing.error,
        /Node "missing": not_found: document "01a00000-0000-7000-8000-000000000000" not found/,
      );
      assert.match(done.node_results.strict.error, /Node "strict": the output does not match output_schema/);
    });
  },
  { worker: true },
);

const openai = await startOpenAiServer();
after(() => openai.close());

describeEachDialect(
  'workflow AI nodes (openai provider)',
  (ctx) => {
    let tenant: TestTenant;
    const api = workflowApi(ctx, () => tenant.headers);
    before(async () => {
      tenant = await createTenant(ctx(), { tier: 'team' });
    });

    it('every AI node runs through an OpenAI-compatible server', async () => {
      const documentId = await processedInvoice(ctx(), tenant);
      const before = openai.requests.length;
      const id = await api.create(aiWorkflow);
      const done = await api.finished(await api.run(id, { document_id: documentId }), 60_000);
      checkOutputs(done.node_results);
      const calls = openai.requests.slice(before).map((r) => r.path);
      assert.ok(calls.includes('/v1/chat/completions') && calls.includes('/v1/embeddings'), calls.join());
    });
  },
  {
    worker: true,
    env: {
      AI_PROVIDER: 'openai',
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_EMBEDDING_DIMENSIONS: '64',
      OPENAI_MAX_RETRIES: '0',
    },
  },
);
