import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isUuid, newId } from '../../src/lib/ids.ts';

it('makes UUIDv7 ids that carry their millisecond, version and variant', () => {
  const at = Date.UTC(2026, 10, 26, 12, 0, 0, 123);
  const id = newId(at);
  assert.ok(isUuid(id));
  assert.equal(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16), at);
  assert.equal(id[14], '7');
  assert.match(id[19]!, /[89ab]/);
});

it('sorts ids made in the same millisecond in the order they were made', () => {
  for (let round = 0; round < 50; round++) {
    const at = Date.UTC(2026, 10, 26) + round;
    const ids = Array.from({ length: 2_000 }, () => newId(at));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
  }
  const burst = Array.from({ length: 10_000 }, () => newId());
  assert.deepEqual([...burst].sort(), burst);
});
