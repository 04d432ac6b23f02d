import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOT_FOUND_ANSWER } from '../../../src/providers/ai/local/extractive-answer.ts';
import { softTerms } from '../../../src/providers/ai/local/soft-terms.ts';
import { loadWordVectors } from '../../../src/providers/ai/local/word-vectors.ts';
import { analyzeQuestion } from '../../../src/providers/ai/question.ts';
import { ask } from './ask-local.ts';

// The twelfth pass (chat-34e): a question word also matches the passages' own words near it in the
// word vectors, compared one by one, not only the vocabulary's fifteen nearest of a rarer noun.

const neighboursOf = async (question: string, text: string) => {
  const vectors = await loadWordVectors();
  assert.ok(vectors, 'the word vectors are built (npm ci builds them)');
  return softTerms(question, analyzeQuestion(question), vectors, [text]);
};

describe("the passages' own words near the question's", () => {
  it('a frequent question word finds its near word in the document ("deal" → "agreement")', async () => {
    const text = 'This Agreement runs for seven (7) years from the opening date of the café.';
    // "deal" is among the 1,000 most frequent words: the vocabulary's neighbours leave it out.
    assert.equal((await neighboursOf('How long does the deal last?', '')).get('deal')?.size ?? 0, 0);
    assert.ok(((await neighboursOf('How long does the deal last?', text)).get('deal')?.get('agreement') ?? 0) > 0);
    assert.match(await ask('How long does the deal last?', text), /seven \(7\) years/);
  });

  it('a word that is no noun of the question is matched too ("what information" → "data")', async () => {
    const text = [
      'Notice of an incident',
      '',
      'Our support team reported a broken printer on Monday. The copied data holds your name and your e-mail address.',
    ].join('\n');
    const near = (await neighboursOf('What information was copied?', text)).get('information');
    assert.ok((near?.get('data') ?? 0) > 0);
    assert.match(await ask('What information do you hold?', text), /name and your e-mail address/);
  });

  it("leaves out the document's most frequent words and a participle's neighbours", async () => {
    const text = 'Payment is due within 30 days. Nothing else was not paid on time, and the good news follows.';
    const late = (await neighboursOf('What is the fee for paying late?', text)).get('lat');
    assert.equal(late?.get('day') ?? 0, 0, '"days" is near everything');
    // "taken" drifts to "not": a participle gets no document neighbours.
    assert.equal((await neighboursOf('What was taken?', text)).get('taken')?.size ?? 0, 0);
  });

  it('a related word does not make the document speak of what it never mentions', async () => {
    const text = [
      'Travel and expenses',
      '',
      'Flights are booked through the travel desk at least 14 days before departure. Hotel costs are reimbursed up to EUR 160 a night.',
    ].join('\n');
    // "visa" is near "travel" (0.56) but no more: still not found.
    assert.equal(await ask('Does the policy cover visa fees?', text), NOT_FOUND_ANSWER);
  });
});
