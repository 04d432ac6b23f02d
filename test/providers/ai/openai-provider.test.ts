import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { AiProviderError } from '../../../src/providers/ai/ai-provider-error.ts';
import { createAiProvider } from '../../../src/providers/ai/create-ai-provider.ts';
import { decodeEmbedding, type OpenAiProviderConfig } from '../../../src/providers/ai/openai/openai-provider.ts';
import { type OpenAiTestServer, startOpenAiServer } from '../../support/openai-server.ts';

let server: OpenAiTestServer;
before(async () => {
  server = await startOpenAiServer();
});
after(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setBehaviour({
    fail: null,
    embeddingsEncoding: 'request',
    structuredContent: null,
    streamDelayMs: 0,
    answerText: null,
  });
});

const provider = (overrides: Partial<OpenAiProviderConfig> = {}) =>
  createAiProvider({
    provider: 'openai',
    openai: {
      baseUrl: server.url,
      apiKey: 'sk-test',
      chatModel: 'test-chat',
      embeddingModel: 'test-embedding',
      embeddingDimensions: 64,
      transcriptionModel: 'test-whisper',
      maxRetries: 2,
      retryBaseDelayMs: 10,
      ...overrides,
    },
  });

const calls = (p: string) => server.requests.filter((r) => r.path === p);
const elapsed = async (fn: () => Promise<unknown>) => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};

describe('OpenAI provider: retries', () => {
  it('retries a 429, waiting what retry-after-ms asks, then succeeds', async () => {
    server.setBehaviour({ fail: { status: 429, times: 2, retryAfterMs: 80, path: '/v1/embeddings' } });
    const ms = await elapsed(() => provider().embed(['payment terms']));
    assert.equal(calls('/v1/embeddings').length, 3);
    assert.deepEqual(
      calls('/v1/embeddings').map((r) => r.status),
      [429, 429, 200],
    );
    assert.ok(ms >= 150, `waited only ${ms.toFixed(0)} ms`);
  });

  it('honours retry-after in seconds', async () => {
    server.setBehaviour({ fail: { status: 503, times: 1, retryAfter: '1' } });
    const ms = await elapsed(() => provider().summarize('A first sentence here. A second one follows.'));
    assert.ok(ms >= 950, `waited only ${ms.toFixed(0)} ms`);
    assert.equal(calls('/v1/chat/completions').length, 2);
  });

  it('gives up after maxRetries with a retryable AiProviderError', async () => {
    server.setBehaviour({ fail: { status: 500, times: 10 } });
    await assert.rejects(provider({ maxRetries: 2 }).embed(['text']), (error: unknown) => {
      assert.ok(error instanceof AiProviderError);
      assert.equal(error.retryable, true);
      assert.equal(error.status, 500);
      assert.match(error.message, /after 3 attempts/);
      return true;
    });
    assert.equal(calls('/v1/embeddings').length, 3);
  });

  it('does not retry a bad request, and says it is not retryable', async () => {
    server.setBehaviour({ fail: { status: 400, times: 5 } });
    await assert.rejects(provider().extractTags('Some text about invoices.'), (error: unknown) => {
      assert.ok(error instanceof AiProviderError);
      assert.equal(error.retryable, false);
      assert.equal(error.status, 400);
      return true;
    });
    assert.equal(server.requests.length, 1);
  });

  it('retries a dropped connection', async () => {
    server.setBehaviour({ fail: { status: 'disconnect', times: 1 } });
    const [vector] = await provider().embed(['payment terms']);
    assert.equal(vector!.length, 64);
    assert.equal(calls('/v1/embeddings').length, 2);
  });

  it('does not wait for a retry-after beyond two minutes, and passes it on', async () => {
    server.setBehaviour({ fail: { status: 429, times: 1, retryAfter: '600' } });
    const started = performance.now();
    await assert.rejects(provider().embed(['text']), (error: unknown) => {
      assert.ok(error instanceof AiProviderError);
      assert.equal(error.retryable, true);
      assert.equal(error.retryAfterMs, 600_000);
      return true;
    });
    assert.ok(performance.now() - started < 1000);
  });

  it('stops waiting for a retry when aborted', async () => {
    server.setBehaviour({ fail: { status: 429, times: 1, retryAfterMs: 5000 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    await assert.rejects(provider().embed(['text'], { signal: controller.signal }), { name: 'AbortError' });
    assert.ok(performance.now() - started < 1000);
  });
});

describe('OpenAI provider: embeddings', () => {
  it('asks for base64 and decodes it; also takes float arrays from servers that ignore the format', async () => {
    const texts = ['Invoice payment is overdue.', 'Snow closed the mountain roads.'];
    const results: Float32Array[][] = [];
    for (const encoding of ['request', 'base64', 'float'] as const) {
      server.setBehaviour({ embeddingsEncoding: encoding });
      results.push(await provider().embed(texts));
    }
    assert.equal((calls('/v1/embeddings')[0]!.body as { encoding_format: string }).encoding_format, 'base64');
    for (const vectors of results) {
      assert.equal(vectors.length, 2);
      for (const v of vectors) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, 'unit length');
    }
    assert.deepEqual(Array.from(results[2]![0]!), Array.from(results[0]![0]!));
    assert.deepEqual(Array.from(results[1]![1]!), Array.from(results[2]![1]!));
  });

  it('decodes little-endian float32 base64, whatever the buffer alignment', () => {
    const bytes = Buffer.alloc(13);
    for (const [i, v] of [0.5, -1.25, 3].entries()) bytes.writeFloatLE(v, 1 + i * 4);
    assert.deepEqual(Array.from(decodeEmbedding(bytes.subarray(1).toString('base64'))), [0.5, -1.25, 3]);
    assert.deepEqual(Array.from(decodeEmbedding([1, 2])), [1, 2]);
    assert.throws(() => decodeEmbedding({}), AiProviderError);
  });

  it('fails, not retryably, when the model answers another size than configured', async () => {
    await assert.rejects(provider({ embeddingDimensions: 32 }).embed(['text']), (error: unknown) => {
      assert.ok(error instanceof AiProviderError);
      assert.equal(error.retryable, false);
      assert.match(error.message, /64 dimensions, configured 32/);
      return true;
    });
  });

  it('knows the size of well-known models and insists on it for others', () => {
    assert.equal(
      provider({ embeddingModel: 'text-embedding-3-small', embeddingDimensions: undefined }).embeddingDimensions,
      1536,
    );
    assert.throws(
      () => provider({ embeddingModel: 'my-embedder', embeddingDimensions: undefined }),
      /embeddingDimensions is required/,
    );
  });

  it('sends the API key and batches many texts', async () => {
    const texts = Array.from({ length: 130 }, (_, i) => `text number ${i}`);
    const vectors = await provider().embed(texts);
    assert.equal(vectors.length, 130);
    assert.equal(calls('/v1/embeddings').length, 3);
    assert.equal(server.requests[0]!.headers.authorization, 'Bearer sk-test');
  });
});

describe('OpenAI provider: token budget', () => {
  it('delays a call while the tokens-per-minute budget is spent', async () => {
    const p = provider({ tokensPerMinute: 6000 });
    // 24,000 characters ≈ 6,000 tokens: the whole minute's budget, taken at once.
    const first = await elapsed(() => p.embed(['word '.repeat(4800)]));
    // 50 more tokens come back at 100 a second: about half a second.
    const second = await elapsed(() => p.embed(['x'.repeat(200)]));
    assert.ok(first < 400, `first call waited ${first.toFixed(0)} ms`);
    assert.ok(second >= 400, `second call waited only ${second.toFixed(0)} ms`);
  });
});

describe('OpenAI provider: structured output', () => {
  it('asks for strict JSON-schema output and normalises dates and amounts', async () => {
    const entities = await provider().extractEntities(
      'Signed by Dr. Ada Stone for Globex Corporation on March 3, 2026 for $1,200.',
    );
    const body = calls('/v1/chat/completions')[0]!.body as {
      response_format: { type: string; json_schema: { strict: boolean } };
    };
    assert.equal(body.response_format.type, 'json_schema');
    assert.equal(body.response_format.json_schema.strict, true);
    assert.deepEqual(entities.people, ['Ada Stone']);
    assert.deepEqual(entities.organizations, ['Globex Corporation']);
    assert.deepEqual(entities.dates, ['2026-03-03']);
    assert.deepEqual(entities.amounts, ['USD 1,200.00']);
  });

  it('enriches in one strict JSON-schema call, holding the answer to the local shapes', async () => {
    server.setBehaviour({
      structuredContent: JSON.stringify({
        document_type: 'lease',
        document_type_confidence: 1.7,
        fields: [
          { name: 'rent', value: 'GBP 1,250.00 per month', confidence: 0.9 },
          { name: 'start_date', value: '1 May 2025', confidence: 0.8 },
          { name: 'term', value: '12 months', confidence: 0.8 },
          { name: 'landlord', value: 'Elm Estates Ltd; J. Smith', confidence: 0.85 },
          { name: 'total', value: 'GBP 9.00', confidence: 0.9 },
          { name: 'end_date', value: 'soon', confidence: 0.5 },
        ],
        summary: 'Lease of 4 Elm Road, GBP 1,250.00 a month.',
        summary_confidence: 0.8,
        tags: [
          { name: 'Residential Lease', confidence: 0.9 },
          { name: 'residential leases', confidence: 0.5 },
        ],
        people: [{ name: 'J. Smith', confidence: 0.9 }],
        organizations: [{ name: 'Elm Estates Ltd', confidence: 0.95 }],
        locations: [{ name: 'London', confidence: 0.7 }],
        dates: [
          { value: '2025-05-01', text: '1 May 2025', confidence: 0.9 },
          { value: 'next week', text: 'next week', confidence: 0.3 },
        ],
        amounts: [{ value: 'GBP -1,250.00', text: '-£1,250', confidence: 0.9 }],
      }),
    });
    const e = await provider().enrich('TENANCY AGREEMENT for 4 Elm Road, London.', {
      referenceDate: new Date('2025-04-20'),
      knownTags: ['Residential lease'],
    });
    const body = calls('/v1/chat/completions')[0]!.body as {
      response_format: { json_schema: { name: string; strict: boolean } };
      messages: { content: string }[];
    };
    assert.equal(body.response_format.json_schema.name, 'document_enrichment');
    assert.equal(body.response_format.json_schema.strict, true);
    assert.match(body.messages[0]!.content, /Residential lease/);
    assert.deepEqual(e.documentType, { value: 'lease', confidence: 1 });
    assert.deepEqual(e.fields, {
      rent: { value: { value: 1250, currency: 'GBP', text: 'GBP 1,250.00', period: 'month' }, confidence: 0.9 },
      start_date: { value: '2025-05-01', confidence: 0.8 },
      term: { value: { value: 'P12M', text: '12 months' }, confidence: 0.8 },
      landlord: { value: ['Elm Estates Ltd', 'J. Smith'], confidence: 0.85 },
    });
    assert.deepEqual(e.tags, [{ name: 'residential lease', confidence: 0.9, source: 'extracted' }]);
    assert.deepEqual(e.entities.dates, [{ value: '2025-05-01', text: '1 May 2025', confidence: 0.9 }]);
    assert.deepEqual(e.entities.amounts, [{ value: -1250, currency: 'GBP', text: '-£1,250', confidence: 0.9 }]);
    assert.deepEqual(e.summary, { value: 'Lease of 4 Elm Road, GBP 1,250.00 a month.', confidence: 0.8 });
  });

  it('answers an unknown type as other, without fields', async () => {
    server.setBehaviour({
      structuredContent: JSON.stringify({
        document_type: 'poem',
        document_type_confidence: 0.9,
        fields: [{ name: 'total', value: 'USD 5', confidence: 1 }],
        summary: 'x',
        summary_confidence: 0.5,
        tags: [],
        people: [],
        organizations: [],
        locations: [],
        dates: [],
        amounts: [],
      }),
    });
    const e = await provider().enrich('Roses are red.');
    assert.equal(e.documentType.value, 'other');
    assert.deepEqual(e.fields, {});
  });

  it('enriches a long document part by part and merges the parts', async () => {
    const paragraph = 'Invoice payment is due from Globex Corporation on March 3, 2026 for $1,200. ';
    const e = await provider({ maxInputTokens: 1000 }).enrich(paragraph.repeat(120));
    const chats = calls('/v1/chat/completions');
    assert.ok(chats.length >= 3, `${chats.length} calls`);
    assert.equal(e.documentType.value, 'invoice');
    assert.deepEqual(
      e.entities.organizations.map((o) => o.name),
      ['Globex Corporation'],
    );
    assert.deepEqual(
      e.entities.dates.map((d) => d.value),
      ['2026-03-03'],
    );
    assert.ok(e.summary.value.length > 0);
  });

  it('summarises a long document map-reduce: parts first, then their summaries', async () => {
    const paragraph =
      'The warehouse team counted every pallet in the northern hall. Damaged goods were set aside for the insurer. ';
    const text = paragraph.repeat(120);
    const summary = await provider({ maxInputTokens: 1000 }).summarize(text);
    const chats = calls('/v1/chat/completions');
    assert.ok(chats.length >= 4, `${chats.length} chat calls`);
    for (const r of chats) {
      const messages = (r.body as { messages: { content: string }[] }).messages;
      assert.ok(messages[1]!.content.length <= 1000 * 4, 'each request fits the input budget');
    }
    const last = (chats[chats.length - 1]!.body as { messages: { content: string }[] }).messages;
    assert.match(last[0]!.content, /summaries of consecutive parts/);
    assert.ok(summary.length > 0 && summary.length < text.length);
  });

  it('merges entities of the parts of a long document', async () => {
    const text = `${'Filler sentence about logistics. '.repeat(150)}Approved on 2026-01-05 by Mr. Ken Adams. ${'More filler text here. '.repeat(150)}Paid on 2026-02-07 to Initech LLC.`;
    const entities = await provider({ maxInputTokens: 1000 }).extractEntities(text);
    assert.deepEqual(entities.dates, ['2026-01-05', '2026-02-07']);
    assert.deepEqual(entities.people, ['Ken Adams']);
    assert.deepEqual(entities.organizations, ['Initech LLC']);
  });

  it('reranks tags by the tenant corpus', async () => {
    const text = 'invoice invoice invoice invoice shipping shipping shipping pallets pallets';
    const plain = await provider().extractTags(text, { limit: 3 });
    assert.equal(plain[0], 'invoice');
    const reranked = await provider().extractTags(text, {
      limit: 3,
      documentFrequency: (t) => (t === 'invoice' ? 1 : 0.05),
    });
    assert.notEqual(reranked[0], 'invoice');
  });

  it('reports output that is not JSON as a retryable error', async () => {
    server.setBehaviour({ structuredContent: '{"summary": "cut off' });
    await assert.rejects(provider().summarize('One sentence. Two sentences.'), (error: unknown) => {
      assert.ok(error instanceof AiProviderError);
      assert.equal(error.retryable, true);
      return true;
    });
  });
});

describe('OpenAI provider: answers and transcription', () => {
  it('streams the answer and sends the history and numbered passages', async () => {
    const deltas: string[] = [];
    const result = await provider().answer(
      'And the late fee?',
      [{ documentId: 'doc-9', page: 3, score: 1, text: 'Late payments bear interest at 1.5% per month.' }],
      {
        onDelta: (d) => deltas.push(d),
        history: [
          { role: 'user', content: 'When are invoices due?' },
          { role: 'assistant', content: 'Within 30 days [1].' },
        ],
      },
    );
    assert.ok(deltas.length > 3);
    assert.deepEqual(result.used, [0]);
    const body = calls('/v1/chat/completions')[0]!.body as {
      stream: boolean;
      messages: { role: string; content: string }[];
    };
    assert.equal(body.stream, true);
    assert.deepEqual(
      body.messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'user'],
    );
    assert.match(body.messages[3]!.content, /\[1\] \(document doc-9, page 3\)/);
  });

  it('keeps only citations of passages that exist', async () => {
    server.setBehaviour({ answerText: 'It is 1.5% [1][7], see also [2].' });
    const result = await provider().answer('Late fee?', [
      { documentId: 'a', score: 1, text: 'Late payments bear interest at 1.5% per month.' },
      { documentId: 'b', score: 0.5, text: 'Other text.' },
    ]);
    assert.deepEqual(result.used, [0, 1]);
  });

  it('stops reading the stream when aborted', async () => {
    server.setBehaviour({ streamDelayMs: 40 });
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 60);
    await assert.rejects(
      provider().answer(
        'Late fee?',
        [{ documentId: 'a', score: 1, text: 'Late payments bear interest at 1.5% per month, compounded.' }],
        {
          signal: controller.signal,
        },
      ),
      { name: 'AbortError' },
    );
    assert.ok(performance.now() - started < 300);
  });

  it('uploads the audio file as multipart with the model and language', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ai-openai-'));
    const audio = path.join(dir, 'call.mp3');
    await fsp.writeFile(audio, Buffer.alloc(5000, 7));
    try {
      server.setBehaviour({ transcript: 'Good morning, this is the weekly call.' });
      assert.equal(await provider().transcribe(audio, { language: 'en' }), 'Good morning, this is the weekly call.');
      const body = calls('/v1/audio/transcriptions')[0]!.body as Record<string, unknown>;
      assert.equal(body['model'], 'test-whisper');
      assert.equal(body['language'], 'en');
      assert.deepEqual(body['file'], { filename: 'call.mp3', size: 5000 });
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });

  it('does not transcribe without a transcription model', async () => {
    const p = provider({ transcriptionModel: undefined });
    assert.equal(p.canTranscribe, false);
    assert.equal(await p.transcribe('/nonexistent.wav'), null);
    assert.equal(server.requests.length, 0);
  });
});
