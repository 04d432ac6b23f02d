import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kindOf, NODE_KINDS, paletteOf } from '../../../src/modules/console/app/routes/workflow-nodes.ts';
import { NODE_TYPES } from '../../../src/modules/workflows/engine/node-types.ts';

// The editor's palette and forms from the service's node-type catalogue (GET /dag/node-types).
const catalogue = Object.entries(NODE_TYPES).map(([type, spec]) => ({ type, required: [...spec.required] }));

describe('console workflow editor: node types from the service', () => {
  it('has a form for every type the engine knows, marking every key the engine requires', () => {
    for (const info of catalogue) {
      const kind = kindOf(info.type, info);
      assert.notEqual(kind?.group, 'other', `${info.type} has the console's own form`);
      for (const key of info.required)
        assert.equal(kind?.fields.find((f) => f.key === key)?.required, true, `${info.type}.${key} is marked required`);
    }
  });

  it("offers the catalogue's types only: the known in the console's order, then a new one with a field per required key", () => {
    const served = [
      ...catalogue.filter((t) => t.type !== 'delay'),
      { type: 'future_step', required: ['target', 'mode'] },
    ];
    const palette = paletteOf(served);
    assert.deepEqual(
      palette.map(([type]) => type),
      [...Object.keys(NODE_KINDS).filter((t) => t !== 'delay'), 'future_step'],
    );
    const [, future] = palette.at(-1)!;
    assert.equal(future.group, 'other');
    assert.equal(future.label, 'future step');
    assert.deepEqual(
      future.fields.map((f) => [f.key, f.required]),
      [
        ['target', true],
        ['mode', true],
      ],
    );
    assert.deepEqual(
      paletteOf(null).map(([type]) => type),
      Object.keys(NODE_KINDS),
      'until the service answers (or if it fails), the console offers its own list',
    );
  });
});
