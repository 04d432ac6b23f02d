import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/database.ts';
import { migrateToLatest } from '../../../src/db/migrator.ts';
import { TransferRefused } from '../../../src/db/transfer/transfer.ts';
import { transferInstance } from '../../../src/modules/transfer/instance-transfer.ts';

const refused = (pattern: RegExp) => (e: unknown) => e instanceof TransferRefused && pattern.test(e.message);

describe('db:transfer refusals before anything is written (SQLite to SQLite)', () => {
  let root: string;
  let source: string;
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-transfer-refusals-'));
    source = path.join(root, 'source');
    const database = openDatabase({ url: null, dataDir: source });
    await migrateToLatest(database.db);
    await database.destroy();
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('the same database as source and target', async () => {
    await assert.rejects(
      transferInstance({ from: { dataDir: source }, to: { dataDir: source } }),
      refused(/the source and the target are the same database/),
    );
  });

  it('a DATA_DIR without a database', async () => {
    await assert.rejects(
      transferInstance({ from: { dataDir: path.join(root, 'nothing') }, to: { dataDir: path.join(root, 't1') } }),
      refused(/there is no database at .*nothing.*service\.db/),
    );
    assert.equal(fs.existsSync(path.join(root, 'nothing', 'service.db')), false, 'not created by the attempt');
  });

  it('a source on an older schema: migrate it first', async () => {
    const raw = new DatabaseSync(path.join(source, 'service.db'));
    const last = (raw.prepare('select max(name) as name from kysely_migration').get() as { name: string }).name;
    raw.prepare('delete from kysely_migration where name = ?').run(last);
    try {
      await assert.rejects(
        transferInstance({ from: { dataDir: source }, to: { dataDir: path.join(root, 't2') } }),
        refused(new RegExp(`older schema \\(missing ${last}\\): run \`npm run migrate\``)),
      );
    } finally {
      raw.prepare("insert into kysely_migration (name, timestamp) values (?, '2026-01-01T00:00:00.000Z')").run(last);
      raw.close();
    }
  });

  it('a copy between two SQLite folders works too (a plain clone of an instance)', async () => {
    const reports = await transferInstance({ from: { dataDir: source }, to: { dataDir: path.join(root, 't3') } });
    assert.ok(reports.every((r) => r.ok));
    assert.ok(reports.some((r) => r.table === 'search_documents' && r.checksum === 'rebuilt'));
  });
});
