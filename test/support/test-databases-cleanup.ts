/**
 * Names of the PostgreSQL databases tests create, and the clean-up of those a run left behind.
 *
 * A name says which machine and which process answers for the database:
 * `dms_test_h<host>_p<pid>_<random>`. The owner is the test process itself, or, under `npm test`,
 * the runner process (test/support/global-setup.ts), which drops every database of the run at its
 * end in parallel: each DROP DATABASE forces a checkpoint, and one at a time they cost seconds each
 * under load while side by side they share checkpoints. A run killed before its end leaves them: the next
 * run's start drops those whose owner process is gone and to which nobody is connected.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';

/** Set by the global setup for the processes of one `npm test` run: the runner's pid, which drops their databases at the end. */
export const RUN_OWNER_ENV = 'DMS_TEST_DATABASE_OWNER';

const HOST = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 6);

/** `dms_test_h<host>_p<pid>_<rest>`, and the older `dms_test_<pid>_<rest>` (always of this machine). */
const NAME = /^dms_test_(?:h([0-9a-f]{6})_p)?(\d+)_[a-z0-9_]+$/;

/** The pid that answers for the databases this process creates. */
export function databaseOwnerPid(): number {
  const fromRun = Number(process.env[RUN_OWNER_ENV]);
  return Number.isInteger(fromRun) && fromRun > 0 ? fromRun : process.pid;
}

/** Whether the run's owner (not this process) drops this process's databases at the end. */
export function dropsDeferredToRun(): boolean {
  return databaseOwnerPid() !== process.pid;
}

export function testDatabaseName(
  suffix: string = Math.random().toString(36).slice(2, 10),
  owner: number = databaseOwnerPid(),
): string {
  return `dms_test_h${HOST}_p${owner}_${suffix}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a live process of another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The owner pid of a test database of this machine, or null for any other database. */
export function localOwner(name: string): number | null {
  const match = NAME.exec(name);
  if (!match) return null;
  if (match[1] !== undefined && match[1] !== HOST) return null;
  return Number(match[2]);
}

async function dropAll(adminUrl: string, names: string[], parallel = 8): Promise<void> {
  const queue = [...names];
  await Promise.all(
    Array.from({ length: Math.min(parallel, queue.length) }, async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        for (let name = queue.shift(); name; name = queue.shift()) {
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        }
      } finally {
        await client.end().catch(() => {});
      }
    }),
  );
}

async function testDatabases(adminUrl: string): Promise<{ name: string; connections: number }[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string; connections: string }>(
      `select d.datname, (select count(*) from pg_stat_activity a where a.datname = d.datname) as connections
         from pg_database d where d.datname like 'dms\\_test\\_%'`,
    );
    return rows.map((r) => ({ name: r.datname, connections: Number(r.connections) }));
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Drops the test databases of this machine whose owner process has exited and to which no session
 * is connected: what a killed run left. Those of live processes (another run, a one-file run
 * beside this one) and of other machines sharing the server are left alone.
 */
export async function dropStaleTestDatabases(adminUrl: string): Promise<string[]> {
  const stale = (await testDatabases(adminUrl))
    .filter((d) => {
      const owner = localOwner(d.name);
      return owner !== null && d.connections === 0 && !alive(owner);
    })
    .map((d) => d.name);
  await dropAll(adminUrl, stale);
  return stale;
}

/** Drops every database owned by `ownerPid` on this machine (the run's own, at its end). */
export async function dropDatabasesOwnedBy(adminUrl: string, ownerPid: number): Promise<string[]> {
  const owned = (await testDatabases(adminUrl)).filter((d) => localOwner(d.name) === ownerPid).map((d) => d.name);
  await dropAll(adminUrl, owned);
  return owned;
}
