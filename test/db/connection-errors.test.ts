import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connectionFailure } from '../../src/db/connection-errors.ts';
import { postgresAdminUrl } from '../support/databases.ts';

const pg = await postgresAdminUrl();
const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.ts');

/** `node src/main.ts migrate` against a DATABASE_URL; answers its exit code and standard error. */
function migrate(databaseUrl: string): { status: number | null; stderr: string } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-dburl-'));
  try {
    const run = spawnSync(process.execPath, [MAIN, 'migrate'], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        ADMIN_API_KEY: 'connection-test-admin-key-0123',
        LOG_LEVEL: 'warn',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: run.status, stderr: run.stderr };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('what a wrong DATABASE_URL prints at start (issue 26 item 8)', () => {
  it('says the connection was refused, naming host and port, without a stack or the password', async () => {
    const port = await closedPort();
    const { status, stderr } = migrate(`postgres://app:hunter2-secret@127.0.0.1:${port}/docs`);
    assert.equal(status, 1);
    assert.match(stderr, new RegExp(`fatal: cannot use the database: connection refused by 127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(stderr, /\(unknown\)|hunter2|\n\s+at /);
  });

  it('says the database is missing, or the role refused', { skip: pg ? false : 'no PostgreSQL here' }, () => {
    const missing = new URL(pg!);
    missing.pathname = `/no_such_database_${process.pid}`;
    assert.match(
      migrate(missing.toString()).stderr,
      /fatal: cannot use the database: database missing: database "no_such_database_\d+" does not exist/,
    );
    const stranger = new URL(pg!);
    stranger.username = `no_such_role_${process.pid}`;
    stranger.password = 'x';
    assert.match(
      migrate(stranger.toString()).stderr,
      /fatal: cannot use the database: authentication (refused|failed): .*no_such_role_\d+/,
    );
  });

  it('describes each connection-level failure, and leaves other errors alone', () => {
    const refused = Object.assign(new AggregateError([], ''), {
      code: 'ECONNREFUSED',
      errors: [
        Object.assign(new Error('a'), { code: 'ECONNREFUSED', address: '::1', port: 5432 }),
        Object.assign(new Error('b'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 5432 }),
      ],
    });
    assert.equal(
      connectionFailure(refused),
      'connection refused by [::1]:5432, 127.0.0.1:5432 (is PostgreSQL running there? check DATABASE_URL)',
    );
    assert.equal(
      connectionFailure(Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND', hostname: 'db' })),
      'database host "db" not found (DNS ENOTFOUND; check DATABASE_URL)',
    );
    assert.equal(
      connectionFailure(Object.assign(new Error('password authentication failed for user "app"'), { code: '28P01' })),
      'authentication failed: password authentication failed for user "app"',
    );
    assert.equal(
      connectionFailure(new Error('Connection terminated due to connection timeout')),
      'no answer from the database server (Connection terminated due to connection timeout)',
    );
    assert.equal(connectionFailure(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' })), null);
  });
});
