import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { askedPeriod, derivedSum, periodAmounts } from '../../../src/providers/ai/local/amount-periods.ts';
import { analyzeQuestion, classifyQuestion } from '../../../src/providers/ai/question.ts';
import { ask } from './ask-local.ts';

// Classes of chat question added by the chat-34b pass (issue 34 item 3), each on a small text
// written here: what money is for, a sum for another period than the document gives, who came to
// a meeting and who did not, "which bank / which carrier" as a party.

const AWARD = [
  'Award of funding, reference HX-19.',
  'We are pleased to award the Orchard Street Choir £9,200 for the coming season.',
  'The award is to cover the hire of the church hall and the fees of a visiting accompanist.',
  'It cannot be spent on travel or on refreshments.',
  'The money will be paid in two parts: £5,000 on signing and £4,200 in January.',
].join('\n');

describe('purpose questions', () => {
  it('reads "what is it for / spent on / what does it cover" as asking a purpose, not a sum', () => {
    for (const q of [
      'What is the funding for?',
      'What will the money pay for?',
      'What can the award be spent on?',
      'What does the service charge cover?',
      'What is the deposit meant to cover?',
    ])
      assert.equal(classifyQuestion(q), 'purpose', q);
    // A sum asked for something stays a sum; a yes/no question stays one.
    assert.equal(classifyQuestion('How much do I pay for the hire?'), 'amount');
    assert.equal(classifyQuestion('What is the fee for late payment?'), 'amount');
    assert.equal(classifyQuestion('Can we spend it on travel?'), 'text');
  });

  it('answers with the sentence saying what the money is for, not the one that only names the money', async () => {
    for (const q of ['What is the funding for?', 'What will the money pay for?', 'What can the award be spent on?']) {
      const answer = await ask(q, AWARD);
      assert.match(answer, /church hall/, `${q} → ${answer}`);
    }
  });

  it('does not count the verb of the question ("pay for") as a word the answer must hold', () => {
    assert.ok(!analyzeQuestion('What will the money pay for?').terms.has('pay'));
  });
});

describe('sums for another period than the document gives', () => {
  it('reads the period a question asks and the period a sum is given for', () => {
    assert.equal(askedPeriod('What does the licence cost per year?'), 'year');
    assert.equal(askedPeriod('What is the annual service charge?'), 'year');
    assert.equal(askedPeriod('How much is the monthly fee?'), 'month');
    assert.equal(askedPeriod('How much is the fee?'), null);
    const periods = (text: string) => periodAmounts({ text }).map((a) => a.period);
    assert.deepEqual(periods('A fee of GBP 4,250 per month (excluding VAT) and a set-up fee of GBP 300.'), [
      'month',
      null,
    ]);
    assert.deepEqual(periods('The Lessee shall pay a monthly rental of EUR 1,900.00 plus VAT.'), ['month']);
    assert.deepEqual(periods('Cleaning costs £310 a quarter.'), ['quarter']);
    // A rate per something else first is no sum for a period.
    assert.deepEqual(periods('250 users at USD 36.00 per user per month'), [null]);
  });

  it('works the asked period out from the one given, in the document’s way of writing the sum', () => {
    assert.equal(
      derivedSum({ text: 'A fee of GBP 4,250 per month.' }, 'year'),
      'GBP 51,000 a year (12 × GBP 4,250 a month)',
    );
    assert.equal(derivedSum({ text: 'An allowance of £26 a month.' }, 'year'), '£312 a year (12 × £26 a month)');
    assert.equal(
      derivedSum({ text: 'Rent is EUR 24,000.00 per year.' }, 'month'),
      'EUR 2,000.00 a month (EUR 24,000.00 ÷ 12 a year)',
    );
    // Nothing to work out: the period asked is given, or none is.
    assert.equal(derivedSum({ text: 'GBP 4,250 per month, GBP 51,000 per year.' }, 'year'), null);
    assert.equal(derivedSum({ text: 'A one-off fee of GBP 450.' }, 'year'), null);
  });

  it('answers a yearly question from a monthly sum with the worked-out figure and the quoted sentence', async () => {
    const text = [
      '1. Fees',
      '1.1 The Client shall pay a licence fee of EUR 2,300 per month for Suite 14.',
      '1.2 A one-off set-up fee of EUR 450 is payable on signing.',
    ].join('\n');
    const answer = await ask('What is the licence fee per year?', text);
    assert.match(answer, /EUR 27,600 a year/);
    assert.match(answer, /"[^"]*EUR 2,300 per month[^"]*"/);
  });

  it('finds "the weekly charge" written "per week" (the adjective is not a word the document must hold)', async () => {
    const text = [
      '1. The Owner shall deliver the crane to the site.',
      '2. The hire charge is GBP 1,850 per week.',
    ].join('\n');
    assert.match(await ask('What is the weekly charge?', text), /GBP 1,850 per week/);
    assert.match(await ask('What is the quarterly charge?', text), /GBP 24,050 a quarter/);
  });

  it('prefers a sum given for the asked period to one given for another', async () => {
    const text = [
      'Current plan: 40 seats at USD 12.00 per seat per month.',
      'Renewal total: USD 5,760.00 per year, billed as USD 480.00 per month.',
    ].join('\n');
    assert.match(await ask('What is the yearly total of the renewal?', text), /USD 5,760\.00 per year/);
  });
});

describe('who came to a meeting and who did not', () => {
  const MINUTES = [
    'Garden committee, 3 May 2027, village hall',
    'Present: Olga Petrenko (Chair), David Mbeki, Hamid Farouk',
    'Apologies: Jenny Walsh',
    '1. Plant sale',
    'The plant sale raised £640.',
    'Next meeting: 7 June 2027.',
  ].join('\n');

  it('answers "who attended" with the people listed as present', async () => {
    const answer = await ask('Who attended the meeting?', MINUTES);
    for (const name of ['Olga Petrenko', 'David Mbeki', 'Hamid Farouk']) assert.ok(answer.includes(name), answer);
  });

  it('answers "who couldn’t come" with the apologies', async () => {
    assert.match(await ask("Who couldn't come?", MINUTES), /Jenny Walsh/);
    assert.match(await ask('Who missed the meeting?', MINUTES), /Jenny Walsh/);
  });
});

describe('which bank, which carrier', () => {
  it('reads "which bank / carrier / supplier" as asking a party, whatever money the question names', () => {
    assert.equal(classifyQuestion('Which bank is the rent paid into?'), 'party');
    assert.equal(classifyQuestion('Which carrier shipped the goods?'), 'party');
    assert.equal(classifyQuestion('Which supplier charged the most?'), 'party');
  });
});

describe('lists named by a heading', () => {
  it('answers "what are the …" with the list under the heading that names it, not a sentence naming one item', async () => {
    const text = [
      '2. Deliverables',
      'The contractor will deliver the following:',
      'a) a site survey report;',
      'b) a drainage design;',
      'c) a planning application pack.',
      '3. Acceptance',
      'The client will review each deliverable within 10 business days of receipt.',
    ].join('\n');
    const answer = await ask('What are the deliverables?', text);
    for (const item of ['site survey report', 'drainage design', 'planning application pack'])
      assert.ok(answer.includes(item), answer);
  });

  it('does not need the question’s generic noun ("the action items") in the document', async () => {
    const text = [
      'Actions',
      '- Hamid Farouk: get three quotes by 1 February.',
      '- Olga Petrenko: write to parents.',
    ].join('\n');
    const answer = await ask('What are the action items?', text);
    assert.match(answer, /Hamid Farouk/);
    assert.match(answer, /Olga Petrenko/);
  });
});

describe('defined terms, appointments, wrapped Word paragraphs', () => {
  it('answers a purpose given by a defined term with the sentence defining it', async () => {
    const text = [
      '1. The Grant. The Trust awards a grant of £12,000 towards the purchase of an electric minibus (the "Project").',
      '2. Reports. The Grantee will report every six months.',
      '3. Use of funds. The grant may only be used for the Project.',
    ].join('\n');
    assert.match(await ask('What is the money for?', text), /electric minibus/);
  });

  it('answers "who is the new …" with the person appointed, not one holding the post before', async () => {
    const text = [
      'Present: Anna Kowal (Chair), Peter Lind (Secretary), 14 members.',
      '3. Officers',
      'Maria Santos was elected Secretary from 1 May, replacing Peter Lind.',
    ].join('\n');
    assert.match(await ask('Who is the new secretary?', text), /Maria Santos/);
  });

  it('reads a sentence a Word file split into one paragraph per line as one sentence', async () => {
    const text = [
      'Cancellations received before 1 March are refunded in full less an',
      '',
      'administration charge of EUR 60.',
    ].join('\n');
    assert.match(await ask('Is there a charge if we cancel early?', text), /administration charge of EUR 60/);
  });

  it('adds the sentence further on that holds the asked fact when the best one has none', async () => {
    const text = [
      'Training sessions',
      'Training will be given by Northgate Safety Ltd in the canteen on the first floor.',
      'Each session lasts 90 minutes and covers the alarm, extinguishers and the assembly points.',
      'Sessions run on 15 July and 16 July at 06:30 and 14:30, so that every shift can attend.',
    ].join('\n');
    assert.match(await ask('When are the safety training sessions?', text), /15 July/);
  });
});

describe('reasons said without "because"', () => {
  const LETTER = [
    'Your annual premium will rise to £684 from 1 March.',
    'The increase reflects higher repair costs across the motor market.',
    'Our office in Leeds will close on 24 December following the move of our claims team to Bradford.',
    'Deliveries are suspended this week owing to the strike at the port.',
  ].join('\n');

  it('answers "why" with the sentence giving the reason ("reflects", "following the"), not another reason', async () => {
    assert.match(await ask('Why is my premium going up?', LETTER), /repair costs/);
    assert.match(await ask('Why is the Leeds office closing?', LETTER), /move of our claims team/);
    assert.match(await ask('What caused the price rise?', LETTER), /repair costs/);
  });
});

describe('who sent it', () => {
  it('answers "who sent …" with the name under the closing, not a company the body names', async () => {
    const text = [
      'From: Customer Care <care@example.com>',
      'To: All retail partners',
      'Subject: Recall of the Breeze 2000 fan',
      '',
      'Northwind Appliances Ltd is recalling the Breeze 2000 desk fan made in March 2027.',
      'Please remove all affected units from sale.',
      '',
      'Best regards,',
      'Tove Lindahl',
      'Head of Product Safety',
    ].join('\n');
    assert.match(await ask('Who sent the recall notice?', text), /Tove Lindahl/);
    // "Who do I send it to?" asks a recipient, not the sender.
    assert.equal(classifyQuestion('Who do I send my appeal to?'), 'party');
  });
});
