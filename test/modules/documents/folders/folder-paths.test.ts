import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../../../src/lib/ids.ts';
import { FoldersRepository } from '../../../../src/modules/documents/folders/folders.repository.ts';
import { availableDialects, openTestDatabase } from '../../../support/databases.ts';

// A folder's path (what a workflow's `folder_path` condition matches), read in one recursive
// query: the ancestors' names from the top, `/` for the top level, and another tenant's folder
// is not found.

for (const dialect of await availableDialects()) {
  describe(`folder paths on ${dialect}`, () => {
    let t: Awaited<ReturnType<typeof openTestDatabase>>;
    const folders = new FoldersRepository();
    const tenants = [newId(), newId()];
    before(async () => {
      t = await openTestDatabase(dialect);
      const now = Date.now();
      for (const [i, id] of tenants.entries()) {
        await t.database.db
          .insertInto('tenants')
          .values({
            id,
            name: `t${i}`,
            subdomain: `paths-${i}-${now}`,
            tier: 'team',
            status: 'active',
            cors_origins: '[]',
            sandbox_of: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
      }
    });
    after(() => t.close());

    async function chain(tenantId: string, names: string[]): Promise<string> {
      let parentId: string | null = null;
      let id = '';
      for (const name of names) {
        const now = Date.now();
        id = newId(now);
        await folders.insert(t.database.db, {
          id,
          tenantId,
          parentId,
          name,
          color: '#000000',
          icon: 'folder',
          createdBy: null,
          documentCount: 0,
          createdAt: now,
          updatedAt: now,
        });
        parentId = id;
      }
      return id;
    }

    it('names every ancestor from the top, and the top level is /', async () => {
      const [mine] = tenants as [string, string];
      const deepest = await chain(mine, ['Invoices', '2025', 'Q1']);
      assert.equal(await folders.pathOf(t.database.db, mine, deepest), '/Invoices/2025/Q1');
      const top = await chain(mine, ['Top']);
      assert.equal(await folders.pathOf(t.database.db, mine, top), '/Top');
      assert.equal(await folders.pathOf(t.database.db, mine, null), '/');
    });

    it("does not follow another tenant's folder", async () => {
      const [mine, theirs] = tenants as [string, string];
      const other = await chain(theirs, ['Secret']);
      assert.equal(await folders.pathOf(t.database.db, mine, other), '/');
    });
  });
}
