/**
 * `npm test`'s global setup and teardown (node --test-global-setup), run once in the runner process:
 *
 * - at the start, drops the PostgreSQL test databases a killed earlier run left behind (only those
 *   whose process is gone and that nobody is connected to), and templates of older migrations;
 * - builds the migrated templates once, before the test processes start copying them;
 * - makes the runner the owner of every test database of the run (the test processes inherit the
 *   variable), and drops them all at the end, side by side.
 *
 * Without it (one file run with `node --test file`) each test process does the same for itself.
 */
import {
  dropOtherPgTemplates,
  ensurePgTemplate,
  ensureSqliteTemplate,
  removeOldSqliteTemplates,
} from './database-templates.ts';
import { postgresAdminUrl } from './databases.ts';
import {
  dropDatabasesOwnedBy,
  dropStaleTestDatabases,
  RUN_OWNER_ENV,
  testDatabaseName,
} from './test-databases-cleanup.ts';

function say(line: string): void {
  process.stderr.write(`test setup: ${line}\n`);
}

export async function globalSetup(): Promise<void> {
  process.env[RUN_OWNER_ENV] = String(process.pid);
  removeOldSqliteTemplates();
  await ensureSqliteTemplate();
  const adminUrl = await postgresAdminUrl();
  if (!adminUrl) return;
  const stale = await dropStaleTestDatabases(adminUrl);
  if (stale.length > 0) say(`dropped ${stale.length} test database(s) left by an interrupted run`);
  const templates = await dropOtherPgTemplates(adminUrl);
  if (templates.length > 0) say(`dropped ${templates.length} template(s) of older migrations`);
  await ensurePgTemplate(adminUrl, testDatabaseName('tmpl_setup'));
}

export async function globalTeardown(): Promise<void> {
  const adminUrl = await postgresAdminUrl();
  if (!adminUrl) return;
  await dropDatabasesOwnedBy(adminUrl, process.pid);
}
