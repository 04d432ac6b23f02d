/**
 * Guards the local provider's entity extraction against regression (issue 27): precision and recall
 * per type on the ten labelled splits, each at most 0.02 below what docs/benchmarks.md records for
 * it ("Entities on new held-out documents" and its fourth to eighth passes). The holdout splits are guarded by their totals only;
 * nothing here prints a holdout document's errors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENTITY_TYPES, type EntityType, scoreEntities } from '../fixtures/entities/score.ts';
import { loadSplits, type SplitName } from '../fixtures/entities/splits.ts';

// [precision, recall] recorded per split and type, less 0.02 of slack.
const FLOORS: Record<SplitName, Record<EntityType, [number, number]>> = {
  tune: {
    people: [0.97, 0.96],
    organizations: [0.9, 0.85],
    places: [0.95, 0.92],
    dates: [0.98, 0.98],
    amounts: [0.98, 0.97],
  },
  holdout: {
    people: [0.93, 0.97],
    organizations: [0.71, 0.78],
    places: [0.93, 0.83],
    dates: [0.97, 0.97],
    amounts: [0.98, 0.94],
  },
  'new-dev': {
    people: [0.95, 0.95],
    organizations: [0.87, 0.95],
    places: [0.91, 0.85],
    dates: [0.98, 0.98],
    amounts: [0.98, 0.98],
  },
  'new-holdout': {
    people: [0.92, 0.88],
    organizations: [0.87, 0.81],
    places: [0.9, 0.8],
    dates: [0.98, 0.97],
    amounts: [0.98, 0.98],
  },
  // Fourth pass (2026-11-28): nine documents written before that pass's rules, totals only.
  fresh: {
    people: [0.9, 0.9],
    organizations: [0.94, 0.72],
    places: [0.85, 0.94],
    dates: [0.83, 0.86],
    amounts: [0.98, 0.98],
  },
  // Fifth pass (2026-11-29): sixteen documents written before that pass's rules, totals only.
  blind: {
    people: [0.98, 0.98],
    organizations: [0.89, 0.89],
    places: [0.94, 0.88],
    dates: [0.98, 0.98],
    amounts: [0.98, 0.98],
  },
  // Sixth pass (2026-11-29): fifteen documents written and measured before that pass read the extractor; the
  // seventh pass read their errors and fixed classes (floors from its after-figure).
  sealed: {
    people: [0.98, 0.93],
    organizations: [0.92, 0.95],
    places: [0.94, 0.95],
    dates: [0.98, 0.98],
    amounts: [0.98, 0.98],
  },
  // Seventh pass (2026-11-29): sixteen documents written and measured before that pass read the extractor; the
  // eighth pass read their errors and fixed classes (floors from its after-figure).
  'sealed-2': {
    people: [0.92, 0.89],
    organizations: [0.85, 0.78],
    places: [0.93, 0.83],
    dates: [0.98, 0.9],
    amounts: [0.97, 0.98],
  },
  // Eighth pass (2026-11-29): fourteen documents written and measured before that pass changed a rule, totals only;
  // floors from the pass's after-figure. Since the tenth pass its amounts are development material (floors from
  // that pass's after-figure).
  'sealed-3': {
    people: [0.83, 0.83],
    organizations: [0.64, 0.56],
    places: [0.96, 0.72],
    dates: [0.98, 0.98],
    amounts: [0.98, 0.98],
  },
  // Ninth pass (2026-11-29): seventeen documents written and measured before that pass read the extractor, totals
  // only; floors from that first measurement (the tagger tried against it was not merged), amounts from the
  // tenth pass's closing measurement (totals only).
  'sealed-4': {
    people: [0.81, 0.81],
    organizations: [0.81, 0.49],
    places: [0.86, 0.61],
    dates: [0.96, 0.79],
    amounts: [0.9, 0.71],
  },
};

describe('entity extraction quality (local provider)', () => {
  const splits = loadSplits();
  for (const split of Object.keys(FLOORS) as SplitName[]) {
    it(`holds its precision and recall on ${split}`, () => {
      assert.ok(splits[split].length >= 8, `${split}: ${splits[split].length} documents`);
      const { scores } = scoreEntities(splits[split]);
      const below = ENTITY_TYPES.flatMap((type) => {
        const [p, r] = FLOORS[split][type];
        const s = scores[type];
        return s.precision < p || s.recall < r
          ? [`${type}: P ${s.precision} (floor ${p}), R ${s.recall} (floor ${r})`]
          : [];
      });
      assert.deepEqual(below, []);
    });
  }

  it('has new held-out documents labelled in every entity type', () => {
    const held = splits['new-holdout'];
    assert.ok(held.length >= 20, `${held.length} new held-out documents`);
    for (const type of ENTITY_TYPES)
      assert.ok(held.reduce((n, d) => n + d.entities[type].length, 0) >= 20, `${type} labels`);
  });
});
