import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ColumnMap, columnsOf } from '../../src/db/column-map.ts';

interface Thing {
  id: string;
  name: string;
  tags: string[];
  enabled: boolean;
  note: string | null;
}

interface ThingsTable {
  id: string;
  name: string;
  name_key: string;
  tags: string;
  enabled: number;
  note: string | null;
}

const COLUMNS: ColumnMap<Thing, ThingsTable> = {
  id: 'id',
  name: (v) => ({ name: v, name_key: v.toLowerCase() }),
  tags: ['tags', (v) => JSON.stringify(v)],
  enabled: ['enabled', (v) => (v ? 1 : 0)],
  note: 'note',
};

describe('columnsOf', () => {
  it('maps a whole object to its row: plain, encoded and multi-column fields', () => {
    const row = columnsOf(COLUMNS, { id: 't1', name: 'Mixed Case', tags: ['a', 'b'], enabled: true, note: null });
    assert.deepEqual(row, {
      id: 't1',
      name: 'Mixed Case',
      name_key: 'mixed case',
      tags: '["a","b"]',
      enabled: 1,
      note: null,
    });
  });

  it('leaves out fields not given or undefined, and keeps null (a patch clears a column with null)', () => {
    assert.deepEqual(columnsOf(COLUMNS, { enabled: false, note: null, name: undefined }), { enabled: 0, note: null });
    assert.deepEqual(columnsOf(COLUMNS, {}), {});
  });
});
