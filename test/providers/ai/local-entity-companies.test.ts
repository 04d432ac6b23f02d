import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractEntitiesLocal } from '../../../src/providers/ai/local/entities.ts';
import { findCompanyName } from '../../../src/providers/ai/local/gazetteer.ts';

// Organisations without a legal form (issue 27): firms that sell to firms from the hand-kept list,
// a body's name of the form "X of A and B", a possessive closing a company's name, and an amount's
// currency code after one. Made-up text.

describe('local entities: well-known firms and names of bodies', () => {
  it('knows firms that sell to firms, but no one-word name that is a word of the language', () => {
    assert.ok(findCompanyName(['Tokopedia']));
    assert.ok(findCompanyName(['Bureau', 'Veritas']));
    assert.equal(findCompanyName(['Grab']), null);
    assert.equal(findCompanyName(['Orange']), null);
    const e = extractEntitiesLocal('Inspection by Intertek, then Bureau Veritas; freight quoted by Evergreen Marine.');
    assert.deepEqual(e.organizations, ['Intertek', 'Bureau Veritas', 'Evergreen Marine']);
  });

  it('keeps "and" inside a body named "X of A and B", and still splits two names', () => {
    const e = extractEntitiesLocal(
      'A grant from the Ministry of Trade and Industry. She joined the University of Arts and Design. We bank with Barclays and HSBC.',
    );
    assert.deepEqual(e.organizations, [
      'Ministry of Trade and Industry',
      'University of Arts and Design',
      'Barclays',
      'HSBC',
    ]);
  });

  it("ends a company name at a possessive, and not on an amount's currency code", () => {
    const e = extractEntitiesLocal(
      "We moved to Intertek's Basel lab. Evergreen Marine USD 1,900 per box was accepted.",
    );
    assert.deepEqual(e.organizations, ['Intertek', 'Evergreen Marine']);
    assert.deepEqual(e.amounts, ['USD 1,900.00']);
  });

  it('does not take venues, internal bodies or an ordinary word after a person as organisations', () => {
    const e = extractEntitiesLocal(
      'The fair is at the Ridgeway Exhibition Centre.\nThe Executive Committee met.\nRota:\n- Tomasz Nowicki, Maintenance\n- Ifeoma Obi, Accounts\nAudit by Intertek Ltd.',
    );
    assert.deepEqual(e.organizations, ['Intertek Ltd.']);
  });
});
