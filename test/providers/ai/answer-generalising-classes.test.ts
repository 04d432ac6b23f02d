import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOT_FOUND_ANSWER } from '../../../src/providers/ai/local/extractive-answer.ts';
import { analyzeQuestion, classifyQuestion, termMatch } from '../../../src/providers/ai/question.ts';
import { segmentText } from '../../../src/providers/ai/segmentation.ts';
import { ask } from './ask-local.ts';

// Classes of chat failure sorted from the misses of the fourth fresh hold-out split (chat-34c):
// the user's word is not the document's, a short sentence after the answer decides it, an
// abbreviation, a numbered topic in sentence case, a change "from … to …", a share asked as "how much".

describe('the user says it in other words', () => {
  it('a noun matches its near neighbours in the word vectors ("ship" → "vessel")', async () => {
    const text = [
      'Dear Ms Brandt,',
      '',
      'The containers were loaded at Tema on Monday. The vessel is due to sail on 14 March 2027 and should',
      'reach Antwerp about three weeks later. Our invoice follows by separate e-mail.',
    ].join('\n');
    assert.match(await ask('When does the ship sail?', text), /14 March 2027/);
    // A near neighbour does not make the document speak of what it never mentions.
    assert.equal(await ask('What is the penalty for a late ship?', text), NOT_FOUND_ANSWER);
  });

  it('a short word matches its derivation ("tax" / "taxable", "add" / "added")', () => {
    assert.equal(termMatch('tax', new Set(['taxabl'])), 0.8);
    assert.equal(termMatch('add', new Set(['ad'])), 0.8);
    // Not "late" for "later": after a three-letter stem only the longer suffixes count.
    assert.equal(termMatch('lat', new Set(['later'])), 0);
  });

  it('"who do I call", "who is our contact" find the contact line or who "can be reached"', async () => {
    const text = [
      'Your case officer is Mirela Petrescu, who can be reached on 021 555 0199.',
      'Payment is due within 30 days.',
    ].join('\n');
    assert.match(await ask('Who is our contact?', text), /Mirela Petrescu/);
  });

  it('a party the question names is found by the role the contract defines for it ("the Buyer")', async () => {
    const text = [
      'This Supply Agreement is made between Osei Cocoa Exports Ltd, of 4 Harbour Road, Takoradi ("the Seller"), and',
      'Lindqvist Chocolatier AB, of Norra Hamngatan 8, Gothenburg ("the Buyer").',
      '1. The Seller shall deliver 40 tonnes of cocoa beans by 30 April 2027.',
      'Signed for the Seller: Kwame Mensah-Boateng, Director',
      'Signed for the Buyer: Elsa Lindqvist, Managing Director',
    ].join('\n');
    assert.match(await ask('Who signed for Lindqvist?', text), /Elsa Lindqvist/);
  });

  it('"when does it have to be paid" asks the limit, not the invoice date', async () => {
    assert.equal(analyzeQuestion('When does this bill have to be paid?').role, 'deadline');
    const text = ['Invoice date: 03.02.2027', 'Due date: 05.03.2027', 'Amount: EUR 1,200.00'].join('\n');
    assert.match(await ask('When does this bill have to be paid?', text), /05\.03\.2027/);
  });

  it('an abbreviation matches the words it stands for, a quarter either way', async () => {
    const text = [
      'The Q2 review found 212 open tickets. In the third quarter the customer satisfaction score was 87,',
      'up from 81. The on-call rota changes in October.',
    ].join('\n');
    assert.match(await ask('What was the CSS in Q3?', text), /87/);
  });
});

describe('the sentence around the answer', () => {
  it('a short follow-on sentence ("It is …") joins a yes/no answer', async () => {
    const text = [
      'Canteen vouchers',
      'Every employee receives canteen vouchers worth £4 a working day, loaded onto the staff card each month.',
      'They are not taxable.',
      '',
      'Parking',
      'Parking at the Riverside site is free for staff.',
    ].join('\n');
    assert.match(await ask('Do I pay tax on the canteen vouchers?', text), /not taxable/);
  });

  it('a numbered topic in sentence case titles the paragraph under it ("3. Website relaunch")', () => {
    const segments = segmentText(
      [
        '3. Website relaunch',
        'The group agreed a budget of £24,000 for an outside agency to rebuild the shop pages.',
      ].join('\n'),
    );
    assert.equal(segments[0]?.kind, 'heading');
    assert.equal(segments[0]?.text, 'Website relaunch');
  });

  it('"what is the new price": the figure a change goes "from … to"', async () => {
    const text = [
      'Because freight costs have risen, we must adjust the list price from EUR 12.40 to EUR 13.10 per box.',
      'The first 200 boxes of your order stay at the original price.',
    ].join('\n');
    assert.match(await ask("What's the new price per box?", text), /13\.10/);
  });

  it('"how much of …", "the higher rate": a percentage answers a how-much question', async () => {
    assert.equal(classifyQuestion('How much of the fee is invoiced on signature?'), 'amount');
    const text = [
      'Fees',
      'The total fee is GBP 48,000 for the project.',
      'An advance of 25% of the fee is invoiced on signature and the rest on delivery.',
    ].join('\n');
    assert.match(await ask('How much of the fee is invoiced on signature?', text), /25%/);
  });
});
