import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dependencyOrder, type TableInfo } from '../../../src/db/transfer/catalog.ts';
import { canonical, rowDigest, toPostgres, toSqlite } from '../../../src/db/transfer/values.ts';

const table = (name: string, references: string[] = []): TableInfo => ({
  name,
  columns: [],
  primaryKey: ['id'],
  references,
});

describe('instance transfer: values between dialects', () => {
  it('booleans: SQLite 0/1 become PostgreSQL booleans and back', () => {
    assert.equal(toPostgres(1, 'boolean'), true);
    assert.equal(toPostgres(0, 'boolean'), false);
    assert.equal(toSqlite(true, 'integer'), 1);
    assert.equal(toSqlite(false, 'integer'), 0);
    assert.equal(canonical(true, 'boolean'), canonical(1, 'integer'));
  });

  it('timestamps: epoch milliseconds become timestamptz, and a Date comes back as milliseconds in an integer column', () => {
    const ms = Date.UTC(2026, 10, 27, 12, 30, 0, 250);
    assert.equal(toPostgres(ms, 'timestamp with time zone'), '2026-11-27T12:30:00.250Z');
    assert.equal(toSqlite(new Date(ms), 'bigint'), ms);
    assert.equal(toSqlite(new Date(ms), 'text'), '2026-11-27T12:30:00.250Z');
    assert.equal(canonical(new Date(ms), 'timestamp with time zone'), canonical(ms, 'bigint'));
  });

  it('JSON: text goes into json/jsonb as it is; parsed jsonb comes back as text; checksums ignore key order and spacing', () => {
    assert.equal(toPostgres('{"b":1, "a":[1,2]}', 'jsonb'), '{"b":1, "a":[1,2]}');
    assert.equal(toSqlite({ a: [1, 2], b: 1 }, 'text'), '{"a":[1,2],"b":1}');
    assert.equal(canonical('{"b":1, "a":[1,2]}', 'jsonb'), canonical({ a: [1, 2], b: 1 }, 'jsonb'));
  });

  it('blobs: bytes become a Buffer for bytea; a float32 embedding becomes a pgvector and back', () => {
    const bytes = new Uint8Array([0, 1, 2, 255]);
    const out = toPostgres(bytes, 'bytea') as Buffer;
    assert.ok(Buffer.isBuffer(out));
    assert.deepEqual([...out], [0, 1, 2, 255]);
    const embedding = new Uint8Array(new Float32Array([0.5, -1.25, 3]).buffer);
    assert.equal(toPostgres(embedding, 'vector(3)'), '[0.5,-1.25,3]');
    assert.deepEqual([...new Float32Array((toSqlite('[0.5,-1.25,3]', 'blob') as Uint8Array).buffer)], [0.5, -1.25, 3]);
    assert.equal(canonical(Buffer.from(bytes), 'bytea'), canonical(bytes, 'blob'));
  });

  it('numbers in text columns and nulls: text gets the decimal, null stays null and differs from an empty string', () => {
    assert.equal(toPostgres(42, 'text'), '42');
    assert.equal(toPostgres(null, 'boolean'), null);
    assert.notEqual(canonical(null, 'text'), canonical('', 'text'));
  });

  it('row digests change with any value and not with the dialect', () => {
    const columns = [
      { name: 'id', type: 'text' },
      { name: 'on', type: 'boolean' },
    ];
    assert.equal(rowDigest(['a', 1], columns), rowDigest(['a', true], columns));
    assert.notEqual(rowDigest(['a', 1], columns), rowDigest(['a', 0], columns));
    assert.notEqual(rowDigest(['ab', null], columns), rowDigest(['a', 'b'], columns));
  });

  it('tables come after the tables they reference; a self-reference does not block', () => {
    const order = dependencyOrder([
      table('documents', ['folders', 'tenants']),
      table('folders', ['folders', 'tenants']),
      table('tenants', ['tenants']),
      table('tags', ['tenants']),
    ]).map((t) => t.name);
    assert.ok(order.indexOf('tenants') < order.indexOf('folders'));
    assert.ok(order.indexOf('folders') < order.indexOf('documents'));
    assert.ok(order.indexOf('tenants') < order.indexOf('tags'));
    assert.equal(order.length, 4);
  });
});
