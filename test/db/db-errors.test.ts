import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isForeignKeyViolation, isUniqueViolation } from '../../src/db/db-errors.ts';
import { DIALECTS } from '../support/app.ts';
import { openTestDatabase } from '../support/databases.ts';

for (const dialect of DIALECTS) {
  describe(`database error classification [${dialect}]`, () => {
    it('tells unique and foreign-key violations apart', async () => {
      const { database, close } = await openTestDatabase(dialect);
      try {
        const now = Date.now();
        const tenant = {
          id: 't1',
          name: 'T',
          subdomain: 't1',
          tier: 'free',
          status: 'active',
          cors_origins: '[]',
          sandbox_of: null,
          created_at: now,
          updated_at: now,
        };
        await database.db.insertInto('tenants').values(tenant).execute();
        const duplicate = await database.db
          .insertInto('tenants')
          .values(tenant)
          .execute()
          .catch((e: unknown) => e);
        assert.ok(isUniqueViolation(duplicate));
        assert.ok(!isForeignKeyViolation(duplicate));
        const orphan = await database.db
          .insertInto('workspaces')
          .values({
            id: 'w1',
            tenant_id: 'no-such-tenant',
            name: 'W',
            name_key: 'w',
            description: null,
            created_by: null,
            created_at: now,
            updated_at: now,
          })
          .execute()
          .catch((e: unknown) => e);
        assert.ok(isForeignKeyViolation(orphan), String(orphan));
        assert.ok(!isUniqueViolation(orphan));
      } finally {
        await close();
      }
    });
  });
}
