import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Passage } from '../../../src/providers/ai/ai-provider.ts';
import { chunkText } from '../../../src/providers/ai/chunking.ts';
import { NOT_FOUND_ANSWER } from '../../../src/providers/ai/local/extractive-answer.ts';
import { LocalAiProvider } from '../../../src/providers/ai/local/local-provider.ts';
import { classifyQuestion } from '../../../src/providers/ai/question.ts';

// Question-type aware answers of the local provider, on small documents written here and cut into
// passages as processing cuts them.

const provider = new LocalAiProvider();
const passagesOf = (text: string, pages?: string[]): Passage[] =>
  chunkText(pages ? pages.join('\n\n') : text, { pages, targetTokens: 60, overlapTokens: 10 }).map((c) => ({
    documentId: 'doc',
    text: c.text,
    page: c.page,
    score: 0.5,
  }));
const words = (text: string) => text.split(/\s+/).length;

const LEASE = [
  'OFFICE LEASE',
  'This lease is made between Harrow Estates Ltd (the Landlord) and Quillfeather Studio (the Tenant) for the second floor of 18 Canal Street, Manchester.',
  '1. Term',
  '1.1 The lease begins on 1 April 2025 and ends on',
  '31 March 2028, unless terminated earlier under clause 6.',
  '2. Rent',
  '2.1 The Tenant shall pay a rent of GBP 4,250.00 per month, in advance on the first day of each month.',
  '2.2 A deposit of GBP 12,750.00 is held by the Landlord.',
  '6. Termination',
  '6.1 Either party may end this lease on six months\u2019 written notice.',
  'Signed for the Landlord by Priya Raman, Director.',
].join('\n');

const INVOICE = [
  'Invoice 2025-117',
  'Date: 14 May 2025',
  'Description Hours Rate Amount',
  'Consulting 12 EUR 150.00 EUR 1,800.00',
  'Design review 4 EUR 215.00 EUR 860.00',
  'Total due: EUR 2,660.00',
  'Payment is due within 14 days of the invoice date.',
].join('\n');

describe('question types', () => {
  it('reads what kind of fact a question asks for', () => {
    assert.equal(classifyQuestion('When does it end?'), 'date');
    assert.equal(classifyQuestion('How much is the rent?'), 'amount');
    assert.equal(classifyQuestion('What is the total due?'), 'amount');
    assert.equal(classifyQuestion('Who signed for the landlord?'), 'party');
    assert.equal(classifyQuestion('Which company is the tenant?'), 'party');
    assert.equal(classifyQuestion('Where is the office?'), 'place');
    assert.equal(classifyQuestion('How long is the notice period?'), 'duration');
    assert.equal(classifyQuestion('How much notice must be given?'), 'duration');
    assert.equal(classifyQuestion('Within how many days is payment due?'), 'duration');
    assert.equal(classifyQuestion('How many hours of consulting were billed?'), 'duration');
    assert.equal(classifyQuestion('How many boxes were ordered?'), 'number');
    assert.equal(classifyQuestion('What is the governing law?'), 'law');
    assert.equal(classifyQuestion('What is the purpose of the agreement?'), 'purpose');
    assert.equal(classifyQuestion('What does the agreement say about confidentiality?'), 'text');
  });
});

describe('local provider: question-type aware answers', () => {
  it('when → the clause with the date, across the line wrap of a numbered clause ("When does it end?")', async () => {
    const answer = await provider.answer('When does it end?', passagesOf(LEASE));
    assert.match(answer.text, /31 March 2028/);
    assert.doesNotMatch(answer.text, /Harrow Estates/);
    assert.equal(answer.used.length, 1);
  });

  it('how much → the amount with the question\u2019s words', async () => {
    const rent = await provider.answer('How much is the monthly rent?', passagesOf(LEASE));
    assert.match(rent.text, /GBP 4,250\.00/);
    const deposit = await provider.answer('How much is the deposit?', passagesOf(LEASE));
    assert.match(deposit.text, /GBP 12,750\.00/);
  });

  it('how much / total → a "Total due: EUR 2,660.00" line of its own, not "could not find"', async () => {
    const answer = await provider.answer('What is the total due?', passagesOf(INVOICE));
    assert.match(answer.text, /EUR 2,660\.00/);
    const row = await provider.answer('How much was charged for the design review?', passagesOf(INVOICE));
    assert.match(row.text, /EUR 860\.00/);
  });

  it('who → the sentence naming the person or organisation', async () => {
    const answer = await provider.answer('Who signed for the landlord?', passagesOf(LEASE));
    assert.match(answer.text, /Priya Raman/);
    const tenant = await provider.answer('Who is the tenant?', passagesOf(LEASE));
    assert.match(tenant.text, /Quillfeather Studio/);
  });

  it('where → the place', async () => {
    const answer = await provider.answer('Where are the leased premises?', passagesOf(LEASE));
    assert.match(answer.text, /18 Canal Street, Manchester/);
  });

  it('how long / within → the duration', async () => {
    const notice = await provider.answer('How much notice is needed to end the lease?', passagesOf(LEASE));
    assert.match(notice.text, /six months/);
    const within = await provider.answer('Within how many days must the invoice be paid?', passagesOf(INVOICE));
    assert.match(within.text, /14 days/);
  });

  it('what → the best matching segment', async () => {
    const answer = await provider.answer('What is the invoice number?', passagesOf(INVOICE));
    assert.match(answer.text, /2025-117/);
  });

  it('answers in one or two sentences, citing the passage and its page', async () => {
    const pages = [
      'CONSULTING AGREEMENT\nThe parties are Northwind Ltd and Ada Okafor.',
      'The agreement ends on 30 June 2026.\nFees are payable monthly.',
    ];
    const answer = await provider.answer('When does the agreement end?', passagesOf('', pages));
    assert.match(answer.text, /30 June 2026/);
    assert.match(answer.text, /\[\d\] \(page 2\)$/);
    assert.ok(words(answer.text) <= 45, answer.text);
  });

  it('cuts a long sentence to the part holding the fact', async () => {
    const text =
      'This Agreement, which the parties have negotiated in good faith over several months with the help of their respective advisers, legal counsel and accountants, and which replaces every earlier understanding between them whether written or oral, shall commence on 1 September 2025 and shall remain in force for the initial period stated in the schedule attached to it, subject to the renewal provisions below.';
    const answer = await provider.answer('When does the agreement commence?', passagesOf(text));
    assert.match(answer.text, /1 September 2025/);
    assert.ok(words(answer.text) <= 45, `${words(answer.text)} words: ${answer.text}`);
  });

  it('says "not in the document" only when nothing scores', async () => {
    assert.equal(
      (await provider.answer('What is the boiling point of mercury?', passagesOf(LEASE))).text,
      NOT_FOUND_ANSWER,
    );
    assert.deepEqual((await provider.answer('What is the boiling point of mercury?', passagesOf(LEASE))).used, []);
  });

  it('streams the answer in pieces that add up to it', async () => {
    const pieces: string[] = [];
    const answer = await provider.answer('When does it end?', passagesOf(LEASE), { onDelta: (d) => pieces.push(d) });
    assert.ok(pieces.length >= 2);
    assert.equal(pieces.join(''), answer.text);
  });
});
