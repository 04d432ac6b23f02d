import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type AiProvider, DOCUMENT_TYPES, type Passage } from '../../../src/providers/ai/ai-provider.ts';
import { FIELD_NAMES } from '../../../src/providers/ai/local/key-fields.ts';
import { createAiProvider } from '../../../src/providers/ai/create-ai-provider.ts';
import { type OpenAiTestServer, startOpenAiServer } from '../../support/openai-server.ts';

// One contract, every implementation: what callers may rely on whichever AI provider is configured.

interface Harness {
  provider: AiProvider;
  close(): Promise<void>;
}

const FACTORIES: { name: string; create(): Promise<Harness> }[] = [
  {
    name: 'local',
    create: async () => ({ provider: createAiProvider({ provider: 'local' }), close: async () => {} }),
  },
  {
    name: 'openai',
    async create() {
      const server: OpenAiTestServer = await startOpenAiServer();
      const provider = createAiProvider({
        provider: 'openai',
        openai: {
          baseUrl: server.url,
          apiKey: 'test-key',
          chatModel: 'test-chat',
          embeddingModel: 'test-embedding',
          embeddingDimensions: 64,
          transcriptionModel: 'test-whisper',
          maxRetries: 1,
          retryBaseDelayMs: 5,
        },
      });
      return { provider, close: () => server.close() };
    },
  },
];

const fixture = (name: string) => fs.readFileSync(new URL(`../../fixtures/quality/${name}`, import.meta.url), 'utf8');

const ENTITY_TEXT =
  'This order was placed on March 3, 2026 with Acme Robotics Inc. for $12,500. ' +
  'Dr. Jane Holloway approved it the same day and asked for delivery to the Leeds warehouse.';

const PASSAGES: Passage[] = [
  {
    documentId: 'doc-1',
    page: 2,
    score: 0.9,
    text: 'Invoices are payable within thirty days of receipt. Late payments bear interest at 1.5% per month.',
  },
  { documentId: 'doc-2', page: null, score: 0.4, text: 'The office cafeteria serves vegetarian lunches on Fridays.' },
];

const isoDate = /^\d{4}-\d{2}-\d{2}$/;
const amount = /^[A-Z]{3} \d{1,3}(?:,\d{3})*\.\d{2}$/;
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

for (const factory of FACTORIES) {
  describe(`AiProvider contract: ${factory.name}`, () => {
    let harness: Harness;
    let provider: AiProvider;
    before(async () => {
      harness = await factory.create();
      provider = harness.provider;
    });
    after(() => harness.close());

    it('names itself and its embedding model', () => {
      assert.equal(provider.name, factory.name);
      assert.ok(provider.embeddingModel.length > 0);
      assert.ok(Number.isInteger(provider.embeddingDimensions) && provider.embeddingDimensions > 0);
    });

    it('summarises a document into a non-empty text shorter than the document', async () => {
      const text = fixture('memo.txt');
      const summary = await provider.summarize(text);
      assert.ok(summary.trim().length > 0, 'summary is empty');
      assert.ok(summary.length < text.length, `summary (${summary.length}) not shorter than text (${text.length})`);
    });

    it('extracts unique lower-case tags of one to three words, at most the limit', async () => {
      const tags = await provider.extractTags(fixture('contract.txt'), { limit: 5 });
      assert.ok(tags.length > 0 && tags.length <= 5, `got ${tags.length} tags`);
      assert.equal(new Set(tags).size, tags.length, 'tags repeat');
      for (const tag of tags) {
        assert.equal(tag, tag.toLowerCase());
        assert.ok(tag.split(' ').length <= 3, `tag too long: ${tag}`);
        assert.ok(/\p{L}/u.test(tag), `tag without letters: ${tag}`);
      }
    });

    it('extracts entities in the documented shape, dates in ISO form and amounts normalised', async () => {
      const entities = await provider.extractEntities(ENTITY_TEXT, { referenceDate: new Date('2026-03-04') });
      for (const key of ['people', 'organizations', 'dates', 'places', 'amounts'] as const) {
        assert.ok(Array.isArray(entities[key]), `${key} is not an array`);
        assert.ok(entities[key].every((v) => typeof v === 'string'));
        assert.equal(new Set(entities[key]).size, entities[key].length, `${key} repeat`);
      }
      assert.ok(
        entities.dates.every((d) => isoDate.test(d)),
        `dates: ${entities.dates}`,
      );
      assert.ok(
        entities.amounts.every((a) => amount.test(a)),
        `amounts: ${entities.amounts}`,
      );
      assert.ok(entities.people.includes('Jane Holloway'), `people: ${entities.people}`);
      assert.ok(entities.organizations.includes('Acme Robotics Inc.'), `organizations: ${entities.organizations}`);
      assert.deepEqual(entities.dates, ['2026-03-03']);
      assert.deepEqual(entities.amounts, ['USD 12,500.00']);
    });

    it('enriches in the documented shape: a known type, key fields of it, tags and entities, every confidence in [0, 1]', async () => {
      const e = await provider.enrich(`INVOICE\n${ENTITY_TEXT}`, {
        referenceDate: new Date('2026-03-04'),
        tagLimit: 5,
      });
      const inRange = (c: number) => typeof c === 'number' && c >= 0 && c <= 1;
      assert.ok((DOCUMENT_TYPES as readonly string[]).includes(e.documentType.value), e.documentType.value);
      assert.ok(inRange(e.documentType.confidence) && inRange(e.summary.confidence));
      assert.ok(e.summary.value.length > 0);
      for (const [name, f] of Object.entries(e.fields)) {
        assert.ok(
          FIELD_NAMES[e.documentType.value].includes(name),
          `${name} is not a field of ${e.documentType.value}`,
        );
        assert.ok(inRange(f.confidence));
      }
      assert.ok(e.tags.length > 0 && e.tags.length <= 5, `${e.tags.length} tags`);
      for (const t of e.tags) {
        assert.equal(t.source, 'extracted');
        assert.ok(inRange(t.confidence) && t.name === t.name.toLowerCase());
      }
      for (const list of [e.entities.people, e.entities.organizations, e.entities.locations])
        for (const x of list) assert.ok(x.name && inRange(x.confidence));
      assert.ok(
        e.entities.people.some((p) => p.name === 'Jane Holloway'),
        JSON.stringify(e.entities.people),
      );
      assert.deepEqual(
        e.entities.dates.map((d) => d.value),
        ['2026-03-03'],
      );
      assert.ok(e.entities.dates.every((d) => inRange(d.confidence) && d.text.length > 0));
      assert.deepEqual(
        e.entities.amounts.map((a) => [a.value, a.currency]),
        [[12500, 'USD']],
      );
      assert.ok(e.entities.amounts.every((a) => inRange(a.confidence) && a.text.includes('12,500')));
    });

    it('embeds into unit vectors of embeddingDimensions, similar texts closer than unrelated ones', async () => {
      const [invoice, invoiceAgain, weather, empty] = await provider.embed(
        [
          'Invoice payment is overdue; please pay the outstanding invoice balance.',
          'The outstanding balance of this invoice is overdue for payment.',
          'Heavy snowfall closed mountain roads and delayed alpine ski trains.',
          '',
        ],
        { purpose: 'document' },
      );
      for (const v of [invoice!, invoiceAgain!, weather!]) {
        assert.equal(v.length, provider.embeddingDimensions);
        assert.ok(Math.abs(norm(v) - 1) < 1e-4, `norm ${norm(v)}`);
      }
      assert.equal(empty!.length, provider.embeddingDimensions);
      assert.ok(
        empty!.every((x) => x === 0),
        'an empty text embeds to zeros',
      );
      const related = cosine(invoice!, invoiceAgain!);
      const unrelated = cosine(invoice!, weather!);
      assert.ok(related > unrelated + 0.2, `related ${related.toFixed(3)} vs unrelated ${unrelated.toFixed(3)}`);
    });

    it('returns one vector per text, in order, for a query too', async () => {
      const vectors = await provider.embed(['payment terms', 'payment terms'], { purpose: 'query' });
      assert.equal(vectors.length, 2);
      assert.deepEqual(Array.from(vectors[0]!), Array.from(vectors[1]!));
    });

    it('answers from the passages, citing them, streaming the text through onDelta', async () => {
      const deltas: string[] = [];
      const result = await provider.answer('Within how many days are invoices payable?', PASSAGES, {
        onDelta: (d) => deltas.push(d),
      });
      assert.match(result.text, /\[1\]/);
      assert.ok(result.used.includes(0), `used: ${result.used}`);
      assert.ok(result.used.every((i) => i >= 0 && i < PASSAGES.length));
      assert.ok(deltas.length > 0);
      assert.equal(deltas.join('').trim(), result.text);
    });

    it('transcribes when it says it can, and answers null when it cannot', async () => {
      const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'ai-contract-'));
      const audio = path.join(dir, 'clip.wav');
      await fsp.writeFile(audio, Buffer.alloc(2048, 1));
      try {
        const text = await provider.transcribe(audio, { language: 'en' });
        if (provider.canTranscribe) assert.ok(typeof text === 'string' && text.length > 0);
        else assert.equal(text, null);
      } finally {
        await fsp.rm(dir, { recursive: true, force: true });
      }
    });

    it('rejects with AbortError when the signal is already aborted', async () => {
      const signal = AbortSignal.abort();
      await assert.rejects(provider.summarize('Some text. More text here.', { signal }), { name: 'AbortError' });
      await assert.rejects(provider.extractTags('Some text.', { signal }), { name: 'AbortError' });
      await assert.rejects(provider.extractEntities('Some text.', { signal }), { name: 'AbortError' });
      await assert.rejects(provider.enrich('Some text.', { signal }), { name: 'AbortError' });
      await assert.rejects(provider.embed(['Some text.'], { signal }), { name: 'AbortError' });
      await assert.rejects(provider.answer('What?', PASSAGES, { signal }), { name: 'AbortError' });
    });

    it('stops answering when aborted while streaming', async () => {
      const controller = new AbortController();
      const deltas: string[] = [];
      await assert.rejects(
        provider.answer('Within how many days are invoices payable?', PASSAGES, {
          signal: controller.signal,
          onDelta: (d) => {
            deltas.push(d);
            controller.abort();
          },
        }),
        { name: 'AbortError' },
      );
      assert.equal(deltas.length, 1);
    });
  });
}
