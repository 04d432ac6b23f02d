import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'increment.ts');
const PER_PROCESS = 1_500;

function runChild(dataDir: string): Promise<{ failed: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dataDir, String(PER_PROCESS)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`))));
  });
}

describe('SQLite shared by several processes', () => {
  it('serialises read-then-write transactions instead of failing them (BEGIN IMMEDIATE)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-sqlite-'));
    try {
      const setup = openDatabase({ url: null, dataDir });
      await sql`create table counter (id integer primary key, n integer not null)`.execute(setup.db);
      await sql`insert into counter values (1, 0)`.execute(setup.db);
      await setup.destroy();

      const results = await Promise.all([runChild(dataDir), runChild(dataDir), runChild(dataDir)]);
      assert.deepEqual(results, [{ failed: 0 }, { failed: 0 }, { failed: 0 }]);
      const check = openDatabase({ url: null, dataDir });
      const row = await sql<{ n: number }>`select n from counter where id = 1`.execute(check.db);
      await check.destroy();
      assert.equal(row.rows[0]!.n, 3 * PER_PROCESS, 'no update was lost');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
