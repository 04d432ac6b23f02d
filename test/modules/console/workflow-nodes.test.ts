import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { layout, placeNew } from '../../../src/modules/console/app/routes/workflow-graph.ts';
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

  it("builds each form from the catalogue's typed fields: the widget by type and format, the console's words where it has them", () => {
    const typed = Object.entries(NODE_TYPES).map(([type, spec]) => ({
      type,
      required: [...spec.required],
      label: spec.label,
      group: spec.group,
      fields: spec.fields.map((f) => ({ ...f })),
    }));
    for (const info of typed) {
      const kind = kindOf(info.type, info)!;
      assert.deepEqual(
        kind.fields.map((f) => [f.key, Boolean(f.required)]),
        info.fields.map((f) => [f.key, f.required]),
        `${info.type}: every field of the catalogue, in its order`,
      );
      assert.equal(kind.group, info.group);
    }
    const approval = kindOf(
      'human_approval',
      typed.find((t) => t.type === 'human_approval'),
    )!;
    const field = (key: string) => approval.fields.find((f) => f.key === key)!;
    assert.deepEqual(
      [field('on_timeout').kind, field('on_timeout').options],
      ['select', ['fail', 'approve', 'reject']],
    );
    assert.match(field('on_timeout').hint ?? '', /default: fail/);
    assert.equal(field('data').kind, 'json');
    assert.equal(field('editable_fields').kind, 'list');
    assert.equal(field('description').kind, 'textarea');
    assert.equal(field('title').label, 'Task title', "the console's own label");
    const condition = kindOf(
      'condition',
      typed.find((t) => t.type === 'condition'),
    )!;
    assert.equal(condition.fields[0]!.kind, 'expr');
    // A type the console never knew, typed by the service: its own label, group and widgets.
    const future = kindOf('future_step', {
      type: 'future_step',
      required: ['count'],
      label: 'Future step',
      group: 'data',
      fields: [
        { key: 'count', type: 'integer', required: true, label: 'How many' },
        { key: 'mode', type: 'string', enum: ['a', 'b'], default: 'a', required: false, label: 'Mode' },
      ],
    })!;
    assert.deepEqual(
      [future.label, future.group, future.fields.map((f) => [f.key, f.kind, f.label, Boolean(f.required)])],
      [
        'Future step',
        'data',
        [
          ['count', 'number', 'How many', true],
          ['mode', 'select', 'Mode', false],
        ],
      ],
    );
  });
});

describe('console workflow graph: positions', () => {
  it('draws each step at its position, the others by depth, and places a new step right of its parent', () => {
    const nodes = [
      { id: 'a', type: 'end', position: { x: 300, y: 200 } },
      { id: 'b', type: 'end', depends_on: ['a'] },
    ];
    const { at, width, height } = layout(nodes);
    assert.deepEqual(at.get('a'), { x: 300, y: 200 });
    assert.deepEqual(at.get('b'), { x: 16 + 168 + 64, y: 16 }, 'by depth: the second column');
    assert.ok(width >= 300 + 168 && height >= 200 + 56);
    // Nothing drawn above or left of the padding: the whole drawing is shifted.
    const shifted = layout([{ id: 'a', type: 'end', position: { x: -50, y: 4 } }]).at.get('a');
    assert.deepEqual(shifted, { x: 16, y: 16 });
    // A narrow screen ignores the positions (they were laid out for a wide canvas).
    assert.deepEqual(layout(nodes, true).at.get('a'), { x: 16, y: 16 });
    assert.deepEqual(placeNew(nodes, 'a'), { x: 300 + 168 + 64, y: 200 });
    assert.equal(placeNew([{ id: 'x', type: 'end' }], 'x'), undefined, 'no positions: laid out by depth');
  });
});
