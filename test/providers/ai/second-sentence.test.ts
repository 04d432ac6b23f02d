import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Candidate } from '../../../src/providers/ai/local/answer-candidate.ts';
import { NO_NAMES } from '../../../src/providers/ai/local/answer-candidate.ts';
import { NOT_FOUND_ANSWER } from '../../../src/providers/ai/local/extractive-answer.ts';
import { ANSWER_BUDGET, runnerUp, trimAround, wordCount } from '../../../src/providers/ai/local/second-sentence.ts';
import { ask } from './ask-local.ts';

const candidate = (text: string, score: number, typed: number, order: number, passage = 0): Candidate => ({
  passage,
  segment: { kind: 'sentence', text, start: 0, end: 0, page: null },
  order,
  stems: new Set(),
  context: new Set(),
  typed,
  weight: 1,
  names: NO_NAMES,
  coverage: 0.5,
  score,
});

describe('the runner-up sentence (eleventh chat pass)', () => {
  const best = candidate('The deposit is held by the agent.', 1, 1, 0);

  it('is added when it scores close to the winner', () => {
    const close = candidate('It is returned within ten days.', 0.75, 1, 1);
    assert.equal(runnerUp({ type: 'duration' }, best, [best, close]), close);
  });

  it('is not added when it scores well under the winner', () => {
    const far = candidate('The agent is registered.', 0.4, 1, 1);
    assert.equal(runnerUp({ type: 'duration' }, best, [best, far]), undefined);
  });

  it('is added when the winner lacks the asked kind of fact and the runner-up holds it, however far', () => {
    const untyped = candidate('Deposits are covered below.', 1, 0, 0);
    const typed = candidate('Return within 10 days.', 0.3, 1, 1);
    assert.equal(runnerUp({ type: 'duration' }, untyped, [untyped, typed]), typed);
  });

  it('is not added when the winner holds the asked kind of fact and the runner-up does not', () => {
    const untyped = candidate('The deposit terms are below.', 0.95, 0, 1);
    assert.equal(runnerUp({ type: 'duration' }, best, [best, untyped]), undefined);
  });

  it('is added within a wider margin for yes/no, why and what-for questions', () => {
    const middling = candidate('It may not be used for rent.', 0.55, 0, 1);
    assert.equal(runnerUp({ type: 'text' }, best, [best, middling]), middling);
    assert.equal(runnerUp({ type: 'reason' }, best, [best, middling]), middling);
    assert.equal(runnerUp({ type: 'amount' }, best, [best, middling]), undefined);
  });

  it('is never the same sentence, nor a heading', () => {
    const same = candidate(best.segment.text, 0.99, 1, 3, 1);
    const heading = { ...candidate('Deposit', 0.98, 1, 1), segment: { ...best.segment, kind: 'heading' as const } };
    assert.equal(runnerUp({ type: 'text' }, best, [best, same, heading]), undefined);
  });

  it('a long second sentence is cut around its best-matching words and figures', () => {
    const text =
      'The parties have agreed many things over the years about the building and the garden and the car park, and the tenant must repaint the windows every 5 years at its own cost.';
    const cut = trimAround(
      text,
      new Map([
        ['repaint', 1],
        ['window', 1],
      ]),
      12,
    );
    assert.ok(wordCount(cut) <= 14, cut);
    assert.match(cut, /repaint the windows every 5 years/);
    assert.match(cut, /^… /);
  });
});

describe('answers with the runner-up sentence', () => {
  it('a yes/no question quotes both sentences when neither clearly decides it, in document order', async () => {
    const text = [
      'Employees may work from home on up to two days a week with their manager\u2019s agreement.',
      'Working from home is not permitted during the probation period.',
      'The office is open from 7 am to 8 pm.',
    ].join(' ');
    const answer = await ask('Can I work from home while on probation?', text);
    assert.match(answer, /not permitted during the probation period/);
    assert.match(answer, /from home on up to two days/);
    assert.ok(answer.indexOf('two days') < answer.indexOf('probation period'), answer);
    assert.ok(wordCount(answer) <= ANSWER_BUDGET + 4, answer);
  });

  it('a clear-cut fact question keeps its one sentence', async () => {
    const text = [
      'Brightwater Leisure Ltd of 4 Quay Street, Bristol BS1 4DJ.',
      'The annual membership fee is GBP 480, payable in advance.',
      'Members may bring up to two guests a month.',
    ].join('\n\n');
    const answer = await ask('How much is the membership fee?', text);
    assert.match(answer, /GBP 480/);
    assert.doesNotMatch(answer, /guests|Quay Street/);
  });

  it('a question the document does not answer still says so', async () => {
    const text =
      'The annual membership fee is GBP 480, payable in advance. Members may bring up to two guests a month.';
    assert.equal(await ask('What is the parking permit number?', text), NOT_FOUND_ANSWER);
  });
});
