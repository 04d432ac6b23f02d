import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { LocalAiProvider } from '../../../src/providers/ai/local/local-provider.ts';
import { NOT_FOUND_ANSWER } from '../../../src/providers/ai/local/extractive-answer.ts';
import { splitSentences } from '../../../src/providers/ai/text.ts';

const provider = new LocalAiProvider();
const fixturesDir = new URL('../../fixtures/quality/', import.meta.url);
const fixture = (name: string) => fs.readFileSync(new URL(name, fixturesDir), 'utf8');

const ARTICLE = [
  'The city council approved a new cycling network for the harbour district on Monday.',
  'The network adds twelve kilometres of protected cycle lanes between the station and the ferry terminal.',
  'Construction of the first cycle lanes starts in April and the whole network should open next year.',
  'Local shop owners worried about parking, but the council kept two delivery bays on each street.',
  'A survey found that most residents would cycle more if the lanes were protected from traffic.',
  'The weather on Monday was mild.',
  'Funding comes from a national transport grant and the council budget for roads.',
  'Cycling groups welcomed the decision and asked the council to extend the network to the university.',
].join(' ');

describe('local provider: summary', () => {
  it('picks two to four sentences of the text, in document order, within 600 characters', async () => {
    const summary = await provider.summarize(ARTICLE);
    const picked = splitSentences(summary).map((s) => s.text);
    const original = splitSentences(ARTICLE).map((s) => s.text);
    assert.ok(picked.length >= 2 && picked.length <= 4, `${picked.length} sentences`);
    assert.ok(summary.length <= 600);
    const positions = picked.map((s) => original.indexOf(s));
    assert.ok(
      positions.every((p) => p >= 0),
      'every sentence comes from the text',
    );
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
    );
    assert.ok(!summary.includes('weather'), 'an off-topic sentence is not picked');
  });

  it('is deterministic and keeps short texts short', async () => {
    assert.equal(await provider.summarize(ARTICLE), await provider.summarize(ARTICLE));
    for (const name of ['contract.txt', 'memo.txt', 'letter.txt', 'press-release.txt']) {
      const text = fixture(name);
      const ratio = (await provider.summarize(text)).length / text.length;
      assert.ok(ratio > 0.05 && ratio <= 0.3, `${name}: ratio ${ratio.toFixed(2)}`);
    }
  });

  it('describes a spreadsheet instead of quoting rows', async () => {
    const summary = await provider.summarize(fixture('spreadsheet.txt'));
    assert.match(summary, /table of 6 rows with columns Vendor, Service/);
  });

  it('returns an empty summary for an empty text', async () => {
    assert.equal(await provider.summarize('   '), '');
  });
});

describe('local provider: tags', () => {
  it('ranks the topic first, without stop words, numbers, people or plural duplicates', async () => {
    const tags = await provider.extractTags(ARTICLE);
    assert.ok(tags.includes('cycle lanes') || tags.includes('cycling network'), tags.join(', '));
    assert.ok(
      tags.slice(0, 3).some((t) => t.includes('network') || t.includes('lane')),
      tags.join(', '),
    );
    const stems = tags.map((t) => t.replace(/s\b/g, ''));
    assert.equal(new Set(stems).size, stems.length, `singular/plural duplicates: ${tags}`);
    for (const tag of tags) assert.doesNotMatch(tag, /^\d+$|\b(?:the|and|of)\b/);
    const minutes = await provider.extractTags(fixture('minutes.txt'), { limit: 10 });
    assert.ok(!minutes.some((t) => /david|kim|priya|helen/.test(t)), minutes.join(', '));
  });

  it('weights tags against the tenant corpus', async () => {
    const plain = await provider.extractTags(ARTICLE, { limit: 3 });
    const everywhere = plain[0]!;
    const weighted = await provider.extractTags(ARTICLE, {
      limit: 3,
      documentFrequency: (t) => (t === everywhere ? 1 : 0.01),
    });
    assert.notEqual(weighted[0], everywhere);
  });

  it('honours the limit', async () => {
    assert.equal((await provider.extractTags(fixture('contract.txt'), { limit: 3 })).length, 3);
  });
});

describe('local provider: embeddings', () => {
  it('scores texts about the same thing clearly above unrelated ones', async () => {
    const [query, relevant, unrelated] = await provider.embed(
      [
        'termination notice period',
        'Either party may terminate the agreement on ninety days written notice.',
        'The cafeteria serves soup.',
      ],
      { purpose: 'query' },
    );
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    assert.ok(dot(query!, relevant!) > 0.2, `relevant ${dot(query!, relevant!)}`);
    assert.ok(dot(query!, unrelated!) < 0.1, `unrelated ${dot(query!, unrelated!)}`);
  });

  it('matches word forms through stems and character trigrams', async () => {
    const [a, b] = await provider.embed(['invoicing schedule', 'invoices scheduled']);
    assert.ok(a!.reduce((s, x, i) => s + x * b![i]!, 0) > 0.5);
  });
});

describe('local provider: answers', () => {
  const passages = [
    { documentId: 'd1', page: 1, score: 0.8, text: fixture('contract.txt') },
    { documentId: 'd2', page: null, score: 0.5, text: fixture('memo.txt') },
  ];

  it('quotes the best sentences with markers of their passages', async () => {
    const result = await provider.answer('How much notice is needed to terminate for convenience?', passages);
    assert.match(result.text, /ninety days' written notice/);
    assert.match(result.text, /\[1\]/);
    assert.deepEqual(result.used, [0]);
  });

  it('says plainly when the passages do not answer', async () => {
    const result = await provider.answer('What is the capital of Australia?', passages);
    assert.equal(result.text, NOT_FOUND_ANSWER);
    assert.deepEqual(result.used, []);
  });

  it('reads a short follow-up with the previous question', async () => {
    const result = await provider.answer('And the weekend?', passages, {
      history: [{ role: 'user', content: 'When does the office move take place?' }],
    });
    assert.match(result.text, /weekend of Saturday, May 16, 2026/);
    assert.deepEqual(result.used, [1]);
  });
});

describe('local provider: speed', () => {
  it('processes a five-page document well within the budget', async () => {
    const names = fs.readdirSync(fixturesDir).filter((n) => n.endsWith('.txt'));
    const text = names.map(fixture).join('\n\n').repeat(2).slice(0, 15_000);
    await provider.summarize(text); // warm-up: first calls compile the regular expressions
    const started = performance.now();
    await provider.summarize(text);
    await provider.extractTags(text);
    await provider.extractEntities(text);
    await provider.embed([text]);
    const ms = performance.now() - started;
    // The target is well under 100 ms (see bench/quality.bench.ts); the bound here allows a busy CI machine.
    assert.ok(ms < 1000, `${ms.toFixed(0)} ms`);
  });

  it('is deterministic', async () => {
    const text = fixture('press-release.txt');
    assert.deepEqual(await provider.extractEntities(text), await new LocalAiProvider().extractEntities(text));
    assert.deepEqual(await provider.extractTags(text), await new LocalAiProvider().extractTags(text));
  });
});
