import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../../src/db/database.ts';
import { DocumentQueries } from '../../../src/modules/documents/document-queries.ts';
import { LexicalIndex } from '../../../src/modules/search/lexical-index.ts';
import { SearchRepository } from '../../../src/modules/search/search.repository.ts';
import { termOf } from '../../../src/modules/search/search-terms.ts';
import { TenantCache } from '../../../src/modules/search/tenant-cache.ts';
import { lexicalSource, type SnapshotPolicy } from '../../../src/modules/search/tenant-sources.ts';
import { DIALECTS } from '../../support/app.ts';
import { openTestDatabase } from '../../support/databases.ts';
import { documentRow } from '../../support/document-rows.ts';

const WORDS = [
  'invoice',
  'payment',
  'lease',
  'rent',
  'salary',
  'audit',
  'coffee',
  'futures',
  'report',
  'contract',
  'Zürich',
  'q3-2026',
];
const text = (i: number) =>
  Array.from({ length: 4 + (i % 9) }, (_, k) => WORDS[(i * 5 + k * 7) % WORDS.length]).join(' ');
const QUERIES = [['invoice'], ['audit', 'coffee'], ['rent', 'futures', 'salary'], ['zurich'], ['q3']];

function ranking(index: LexicalIndex, words: string[]) {
  const concepts = words.map((w) => {
    const id = index.dictionary.find(termOf(w));
    return { terms: id === undefined ? [] : [{ id, weight: 1 }] };
  });
  return index
    .score(concepts, { k1: 1.2, b: 0.75, mask: null, join: 'any', limit: 50, coordination: true })
    .map((h) => [index.documentOf(h.slot), Number(h.score.toFixed(12)), Number(h.bm25.toFixed(12))]);
}

describe('keyword index snapshots (bytes)', () => {
  it('a restored index ranks exactly as the one it was taken from, after removals, and keeps working after more changes', () => {
    const original = new LexicalIndex();
    for (let i = 0; i < 2000; i++) original.put(`d${i}`, text(i));
    for (let i = 0; i < 2000; i += 5) original.remove(`d${i}`);
    original.version = 42;
    const restored = LexicalIndex.restore(original.serialize());
    assert.ok(restored);
    assert.equal(restored.version, 42);
    assert.equal(restored.documents, original.documents);
    for (const q of QUERIES) assert.deepEqual(ranking(restored, q), ranking(original, q), q.join(' '));
    // Further puts (new terms, longer posting lists) and removals behave the same on both.
    for (const index of [original, restored]) {
      for (let i = 1; i < 400; i += 3) index.put(`d${i}`, `${text(i + 1)} audit brandnewterm`);
      index.put('extra', 'brandnewterm coffee coffee');
      index.remove('d7');
    }
    for (const q of [...QUERIES, ['brandnewterm'], ['coffee', 'brandnewterm']])
      assert.deepEqual(ranking(restored, q), ranking(original, q), q.join(' '));
  });

  it('restores from an unaligned copy of the bytes, and refuses bytes of another format or size', () => {
    const index = new LexicalIndex();
    index.put('a', 'coffee futures');
    const bytes = index.serialize();
    const unaligned = new Uint8Array(bytes.length + 3).subarray(3);
    unaligned.set(bytes);
    assert.deepEqual(ranking(LexicalIndex.restore(unaligned)!, ['coffee']), ranking(index, ['coffee']));
    const otherFormat = bytes.slice();
    otherFormat[4] = 99;
    assert.equal(LexicalIndex.restore(otherFormat), null);
    assert.equal(LexicalIndex.restore(bytes.subarray(0, bytes.length - 8)), null);
    assert.equal(LexicalIndex.restore(new Uint8Array(10)), null);
    assert.equal(LexicalIndex.restore(new LexicalIndex().serialize())?.documents, 0);
  });
});

for (const dialect of DIALECTS) {
  describe(`keyword index snapshots in the database (${dialect})`, () => {
    let database: Database;
    let close: () => Promise<void>;
    const repository = new SearchRepository();
    const documents = new DocumentQueries(dialect);
    const errors: unknown[] = [];
    const policy: SnapshotPolicy = { minDocuments: 3, changedShare: 0.5, delayMs: 0, onError: (e) => errors.push(e) };

    before(async () => {
      ({ database, close } = await openTestDatabase(dialect));
      const now = Date.now();
      for (const id of ['t1', 't2']) {
        await database.db
          .insertInto('tenants')
          .values({
            id,
            name: id,
            subdomain: id,
            tier: 'free',
            status: 'active',
            cors_origins: '[]',
            sandbox_of: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
      }
    });
    after(() => close());

    const putDocument = async (tenantId: string, id: string, content: string) => {
      await database.db.insertInto('documents').values(documentRow(tenantId, id)).execute();
      await database.db
        .insertInto('document_contents')
        .values({
          document_id: id,
          tenant_id: tenantId,
          content,
          pages: null,
          page_texts: null,
          created_at: Date.now(),
        })
        .execute();
    };
    const snapshotRows = (tenantId: string) =>
      database.db
        .selectFrom('search_snapshots')
        .select(['version', 'kind'])
        .where('tenant_id', '=', tenantId)
        .execute();
    const waitSnapshot = async (tenantId: string, version: number) => {
      for (let i = 0; i < 200; i++) {
        const rows = await snapshotRows(tenantId);
        if (rows.some((r) => Number(r.version) >= version)) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.fail(`no snapshot at version ${version}: ${JSON.stringify(errors)}`);
    };

    it('a tenant loaded from its snapshot and the changes since ranks as one built from every text; other tenants are not touched', async () => {
      for (let i = 0; i < 10; i++) await putDocument('t1', `t1d${i}`, text(i));
      await putDocument('t2', 't2d0', 'coffee coffee coffee invoice');
      const source = lexicalSource(repository, documents, policy);
      const first = await new TenantCache(repository).get(database.db, 't1', source);
      assert.equal(first.documents, 10);
      await waitSnapshot('t1', first.version);
      assert.deepEqual(await snapshotRows('t2'), [], 'a tenant under the policy minimum has no snapshot');

      // Changes after the snapshot: a new document, a changed text, a deleted document.
      await putDocument('t1', 't1new', 'coffee futures audit brandnewterm');
      await database.db
        .updateTable('document_contents')
        .set({ content: 'salary salary report' })
        .where('document_id', '=', 't1d1')
        .execute();
      await database.db.deleteFrom('documents').where('id', '=', 't1d2').execute();

      const reread: string[] = [];
      const counting = {
        ...source,
        apply: (db: typeof database.db, tenantId: string, index: LexicalIndex, ids: string[]) => {
          reread.push(...ids);
          return source.apply(db, tenantId, index, ids);
        },
      };
      const restored = await new TenantCache(repository).get(database.db, 't1', counting);
      // Only the documents changed since the snapshot were read.
      assert.deepEqual(reread.sort(), ['t1d1', 't1d2', 't1new']);
      const rebuilt = await new TenantCache(repository).get(database.db, 't1', { ...source, restore: undefined });
      assert.equal(restored.documents, rebuilt.documents);
      assert.equal(restored.slotOf('t1d2'), undefined);
      for (const q of [...QUERIES, ['brandnewterm'], ['salary', 'report'], ['coffee']])
        assert.deepEqual(ranking(restored, q), ranking(rebuilt, q), q.join(' '));
      const t2 = await new TenantCache(repository).get(database.db, 't2', source);
      assert.deepEqual(
        ranking(t2, ['coffee']).map((r) => r[0]),
        ['t2d0'],
      );
      assert.deepEqual(errors, []);
    });

    it('a snapshot newer than the tenant state (the state recreated) is not used', async () => {
      const source = lexicalSource(repository, documents, { ...policy, minDocuments: 1_000_000 });
      const current = Number(
        (
          await database.db
            .selectFrom('search_state')
            .select('version')
            .where('tenant_id', '=', 't1')
            .executeTakeFirstOrThrow()
        ).version,
      );
      const bogus = new LexicalIndex();
      bogus.put('ghost', 'coffee');
      bogus.version = current + 1000;
      await repository.saveSnapshot(database.db, 't1', 'lexical:1', bogus.version, bogus.serialize());
      const index = await new TenantCache(repository).get(database.db, 't1', source);
      assert.equal(index.slotOf('ghost'), undefined);
      assert.ok(index.slotOf('t1new') !== undefined);
    });

    it('an older snapshot never replaces a newer one', async () => {
      const newer = new LexicalIndex();
      newer.put('x', 'coffee');
      assert.equal(await repository.saveSnapshot(database.db, 't2', 'k', 10, newer.serialize()), true);
      assert.equal(await repository.saveSnapshot(database.db, 't2', 'k', 9, new LexicalIndex().serialize()), false);
      const kept = await repository.snapshot(database.db, 't2', 'k');
      assert.equal(kept?.version, 10);
      assert.equal(LexicalIndex.restore(kept!.data)?.documents, 1);
    });
  });
}
