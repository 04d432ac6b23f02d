import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { factEvidence } from '../../../src/providers/ai/question.ts';
import { ask } from './ask-local.ts';

// The twelfth pass (chat-34e): "when" is often answered by an event or an hour, not a calendar date.

describe('"when" answered by an event or a time of day', () => {
  it('a time tied to an event or an hour is a weaker date', () => {
    assert.equal(factEvidence('date', 'The balance is payable on 14 March 2027.'), 1);
    assert.equal(factEvidence('date', 'Each certified valuation is paid within 21 days of certification.'), 0.5);
    assert.equal(factEvidence('date', 'Half of the retention is released at practical completion.'), 0.5);
    assert.equal(factEvidence('date', 'Payment terms: 30 days from the bill of lading date.'), 0.5);
    assert.equal(factEvidence('date', 'Taxis are reimbursed between 22:00 and 06:00 only.'), 0.5);
    // A span alone, or a decimal that is no hour, says no time.
    assert.equal(factEvidence('date', 'The warranty lasts 24 months.'), 0);
    assert.equal(factEvidence('date', 'Each meal costs 12.50 francs.'), 0);
  });

  it('the sentence tying the asked thing to an event wins over a date about something else', async () => {
    const text = [
      '3. Payment',
      '3.1 The Subcontractor shall start work on 1 February 2027 and complete the Works by 31 July 2027.',
      '3.2 A retention of 5% is deducted from each payment. Half of the retention is released at practical completion and the balance at the end of the defects liability period.',
    ].join('\n');
    assert.match(await ask('When do we get the retention back?', text), /practical completion/);
    // A question the calendar date answers still gets it.
    assert.match(await ask('When must the works be complete?', text), /31 July 2027/);
  });

  it('a time tied to an event says no role: the dated limit answers "when must …" alone', async () => {
    const text = [
      'Purchase Order 7731 for surgical supplies',
      'Required Delivery Date: 04/15/2025',
      '',
      '4. Sterile products. All sterile supplies must have twelve (12) months of shelf life on delivery and carry labels as required by the U.S. Food and Drug Administration.',
    ].join('\n');
    const answer = await ask('When must the surgical supplies be delivered?', text);
    assert.match(answer, /04\/15\/2025/);
    // "on delivery", and "by" before a capital, give the sentence no role of a limit to compete with.
    assert.doesNotMatch(answer, /shelf life/);
  });

  it('a time range answers "when can I …"', async () => {
    const text = [
      'Local transport',
      '',
      'Use public transport where you can. Taxis are reimbursed only between 22:00 and 06:00 or when you carry equipment over 20 kg.',
      'This policy was approved by the board on 3 May 2027.',
    ].join('\n');
    assert.match(await ask('When can I take a taxi on expenses?', text), /22:00/);
  });
});
