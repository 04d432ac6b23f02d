import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractEntitiesLocal } from '../../../src/providers/ai/local/entities.ts';

// People of issue 27 beyond the English lexicon, and words that are not people, on made-up text:
// African, South Asian and Arabic given names, Chinese, Korean and Vietnamese family names first,
// titles of West African usage; places, abstract nouns and streets named after people.

describe('local entities: people of many naming traditions', () => {
  it('reads given names the English lexicon does not know, with a title of West African usage dropped', () => {
    const e = extractEntitiesLocal(
      'Delivered to Kwadwo Mensah on site. Harjit Grewal is reviewing the claim. Nana Yaw Boadu opened the meeting.',
    );
    assert.deepEqual(e.people, ['Kwadwo Mensah', 'Harjit Grewal', 'Yaw Boadu']);
  });

  it('reads a Chinese, Korean or Vietnamese family name first, then given syllables', () => {
    const e = extractEntitiesLocal(
      'Present from the plant: Kang Seo-yeon (Logistics), Đặng Thị Mai (Finance) and Leung Ka Wai.',
    );
    assert.deepEqual(e.people, ['Kang Seo-yeon', 'Đặng Thị Mai', 'Leung Ka Wai']);
  });

  it('does not read a region, an abstract noun or a street named after a person as a person', () => {
    const e = extractEntitiesLocal(
      'Attn.: Ms. Ines Kohler, Customer Documentation\nDepot at Av. Winston Churchill 410, Volta Region.\nMeeting at Priya Residency.',
    );
    assert.deepEqual(e.people, ['Ines Kohler']);
  });
});

describe('local entities: sites that are not places', () => {
  it('leaves business parks, industrial areas and halls out of places, not a town named "… Park"', () => {
    const e = extractEntitiesLocal(
      'Unit 3, Brookfield Industrial Estate, Kempton Park, 1619\nOffices at Meadow Valley Park, Reading. The AGM is at the Miners Hall, Ejisu.',
    );
    assert.ok(!e.places.some((p) => /Estate|Valley Park|Hall/.test(p)), e.places.join('|'));
    assert.ok(e.places.includes('Kempton Park'), e.places.join('|'));
  });
});
