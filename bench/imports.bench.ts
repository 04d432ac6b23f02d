/*
 * Import projects benchmark (issue 17), on SQLite and (when it answers) PostgreSQL, each in a fresh
 * database, against the local Drive v3 server (test/support/google-drive-server.ts) running in this
 * process, IMPORT_CONCURRENCY=4 lanes, AI off:
 *   scan:            a tree of 500 folders (20 top-level folders of 24 subfolders each, under one
 *                    root) holding 10,000 files, from `POST .../scan` until `ready` (target: < 60 s);
 *   importerAlone:   N distinct text files of S KiB imported by a worker that runs only the
 *                    importer's jobs (processing stays queued), `start` → `completed`;
 *   processingAlone: that backlog processed afterwards by a full worker;
 *   withProcessing:  N other files imported by the full worker, processing running alongside, to
 *                    `completed` and until every document is processed;
 *   raw:             the same files written straight into the blob store (`blobs.put`, 4 at a time)
 *                    in the same run: the baseline the importer is compared with.
 * Run: npm run bench imports   (or node bench/imports.bench.ts [--files 200] [--kib 256] [--scan-files 10000] [--dialect sqlite|postgres])
 */
import os from 'node:os';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { DialectName } from '../src/db/database.ts';
import { Worker } from '../src/jobs/worker.ts';
import { action, BASE, createProject, credentials, driveEnv, type Json } from '../test/modules/imports/helpers.ts';
import { startTestApp, type TestApp } from '../test/support/app.ts';
import { availableDialects } from '../test/support/databases.ts';
import { createTenant } from '../test/support/fixtures.ts';
import { type DriveTestServer, FOLDER, startDriveServer } from '../test/support/google-drive-server.ts';

const MiB = 1024 * 1024;

export interface ImportsBenchOptions {
  /** Files of the scan tree (spread over 500 folders). */
  scanFiles?: number;
  /** Files of the import run and their size. */
  files?: number;
  kib?: number;
  dialect?: DialectName;
  log?: (line: string) => void;
}

type Pace = { seconds: number; filesPerSecond: number; mibPerSecond: number };

export interface ImportsBenchResult {
  dialect: DialectName;
  lanes: number;
  files: number;
  fileKiB: number;
  scan: {
    folders: number;
    files: number;
    seconds: number;
    filesPerSecond: number;
    listRequests: number;
    targetSeconds: 60;
    met: boolean;
  };
  /** The same files straight into the blob store, `lanes` at a time. */
  raw: Pace;
  /** The import with only the importer's jobs running (processing left queued). */
  importerAlone: Pace;
  /** Processing that backlog with a full worker. */
  processingAlone: Pace;
  /** Other files imported with the full worker (processing running alongside), to `completed` and until all are processed. */
  withProcessing: Pace & { untilAllProcessed: Pace };
  /** raw seconds ÷ importer-alone seconds (1 = the importer as fast as writing the bytes). */
  importerOverRaw: number;
  loadAverage: number[];
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const seconds = (since: number) => (performance.now() - since) / 1000;

/** root → 20 folders → 24 subfolders each (500 folders), `files` spread evenly over them. */
function scanTree(drive: DriveTestServer, files: number): { rootId: string; folders: number } {
  const rootId = 'bench-scan-root';
  drive.add({ id: rootId, name: 'Scan root', mimeType: FOLDER, parents: ['my-drive'] });
  const folders: string[] = [];
  for (let top = 0; top < 20; top++) {
    const topId = `bench-top-${top}`;
    drive.add({ id: topId, name: `Department ${top}`, mimeType: FOLDER, parents: [rootId] });
    folders.push(topId);
    for (let sub = 0; sub < 24; sub++) {
      const subId = `${topId}-sub-${sub}`;
      drive.add({ id: subId, name: `Project ${sub}`, mimeType: FOLDER, parents: [topId] });
      folders.push(subId);
    }
  }
  const small = Buffer.from('x');
  for (let i = 0; i < files; i++) {
    drive.add({
      id: `bench-scan-file-${i}`,
      name: `report-${i}.pdf`,
      mimeType: 'application/pdf',
      parents: [folders[i % folders.length]!],
      content: small,
    });
  }
  return { rootId, folders: folders.length };
}

/** `count` distinct text files of `bytes` each in one folder (distinct from every other tree's too). */
function importTree(
  drive: DriveTestServer,
  tag: string,
  count: number,
  bytes: number,
): { rootId: string; contents: Buffer[] } {
  const rootId = `bench-import-${tag}`;
  drive.add({ id: rootId, name: 'Import root', mimeType: FOLDER, parents: ['my-drive'] });
  const contents: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const line = `File ${i} of the import benchmark (${tag}). Quarterly figures, minutes and notes.\n`;
    const content = Buffer.from(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
    contents.push(content);
    drive.add({
      id: `${rootId}-file-${i}`,
      name: `notes-${i}.txt`,
      mimeType: 'text/plain',
      parents: [rootId],
      content,
    });
  }
  return { rootId, contents };
}

/** Polls the project row itself every 100 ms (cheaper than the API's view with its counts, which would load the run). */
async function waitStatus(
  t: TestApp,
  projectId: string,
  statuses: string[],
  headers: Record<string, string>,
): Promise<Json> {
  const db = t.container.database.db;
  for (;;) {
    const row = await db
      .selectFrom('import_projects')
      .select('status')
      .where('id', '=', projectId)
      .executeTakeFirstOrThrow();
    if (statuses.includes(row.status)) return (await t.app.inject({ url: `${BASE}/${projectId}`, headers })).json();
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitProcessed(t: TestApp, tenantId: string, count: number): Promise<void> {
  const db = t.container.database.db;
  for (;;) {
    const { n } = await db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('status', 'in', ['completed', 'failed'])
      .executeTakeFirstOrThrow();
    if (Number(n) >= count) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The same bytes through `blobs.put`, `lanes` at a time. */
async function rawWrites(t: TestApp, contents: Buffer[], lanes: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < contents.length; i = next++)
      await t.container.blobs.put(`bench/raw/${i}`, Readable.from([contents[i]!]));
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  const took = seconds(started);
  await Promise.all(contents.map((_, i) => t.container.blobs.delete(`bench/raw/${i}`)));
  return took;
}

/** A worker that runs only the importer's jobs (scan, lanes): the documents' processing waits in the queue. */
function importerOnlyWorker(t: TestApp, lanes: number): Worker {
  return new Worker({
    database: t.container.database,
    queue: t.container.jobs,
    definitions: t.container.jobDefinitions().filter((d) => d.kind.startsWith('imports.')),
    concurrency: lanes + 1,
    pollIntervalMs: 50,
    leaseMs: 30_000,
  });
}

/** Scans and imports a tree, timing `start` → terminal; returns seconds and the project. */
async function importRun(
  t: TestApp,
  drive: DriveTestServer,
  headers: Record<string, string>,
  rootId: string,
  name: string,
) {
  const project = await createProject(
    t,
    headers,
    { folder_ids: [rootId], credentials: credentials(drive), enable_ai: false },
    name,
  );
  await action(t, headers, project.id, 'scan');
  await waitStatus(t, project.id, ['ready', 'failed'], headers);
  const started = performance.now();
  await action(t, headers, project.id, 'start');
  const done = await waitStatus(t, project.id, ['completed', 'completed_with_errors', 'failed'], headers);
  return { seconds: seconds(started), started, done };
}

async function runDialect(
  dialect: DialectName,
  options: Required<Omit<ImportsBenchOptions, 'dialect'>>,
): Promise<ImportsBenchResult> {
  const { log } = options;
  const drive = await startDriveServer();
  const lanes = 4;
  const t = await startTestApp(dialect, {
    env: { ...driveEnv(drive), IMPORT_CONCURRENCY: String(lanes), IMPORT_RETRY_DELAYS: '5,30,120' },
  });
  let worker = importerOnlyWorker(t, lanes);
  await worker.start();
  try {
    const tenant = await createTenant(t);
    const tree = scanTree(drive, options.scanFiles);
    const scanProject = await createProject(
      t,
      tenant.headers,
      { folder_ids: [tree.rootId], credentials: credentials(drive), enable_ai: false },
      'Scan bench',
    );
    const logBefore = drive.log.length;
    const scanStarted = performance.now();
    await action(t, tenant.headers, scanProject.id, 'scan');
    const scanned = await waitStatus(t, scanProject.id, ['ready', 'failed'], tenant.headers);
    const scanSeconds = seconds(scanStarted);
    if (scanned.status !== 'ready' || scanned.total_items !== options.scanFiles)
      throw new Error(`scan ended ${scanned.status} with ${scanned.total_items} items: ${scanned.error}`);
    const listRequests = drive.log.slice(logBefore).filter((r) => r.url.startsWith('/drive/v3/files?')).length;
    log(`${dialect}: scan of ${options.scanFiles} files in ${tree.folders} folders: ${round(scanSeconds)} s`);

    const bytes = options.kib * 1024;
    const totalMiB = (options.files * bytes) / MiB;
    const alone = importTree(drive, 'alone', options.files, bytes);
    const a = await importRun(t, drive, tenant.headers, alone.rootId, 'Importer alone');
    if (a.done.processed_items !== options.files)
      throw new Error(`import ended ${a.done.status} with ${a.done.processed_items} imported`);
    log(`${dialect}: importer alone, ${options.files} × ${options.kib} KiB: ${round(a.seconds)} s`);

    // The processing backlog the first run left, with a full worker: processing's own pace.
    await worker.stop(10_000);
    worker = t.container.createWorker();
    const backlogStarted = performance.now();
    await worker.start();
    await waitProcessed(t, tenant.tenantId, options.files);
    const backlogSeconds = seconds(backlogStarted);
    log(`${dialect}: processing of that backlog: ${round(backlogSeconds)} s`);

    const both = importTree(drive, 'with-processing', options.files, bytes);
    const b = await importRun(t, drive, tenant.headers, both.rootId, 'Import with processing');
    if (b.done.processed_items !== options.files)
      throw new Error(`import ended ${b.done.status} with ${b.done.processed_items} imported`);
    await waitProcessed(t, tenant.tenantId, 2 * options.files);
    const processedSeconds = seconds(b.started);
    log(
      `${dialect}: import with processing running: ${round(b.seconds)} s (all processed after ${round(processedSeconds)} s)`,
    );

    const rawSeconds = await rawWrites(t, alone.contents, lanes);
    log(`${dialect}: raw blob writes of the same files: ${round(rawSeconds, 3)} s`);
    const progress = (await t.app.inject({ url: `${BASE}/${b.done.id}/progress`, headers: tenant.headers })).json();
    if (progress.migrated_bytes !== options.files * bytes) throw new Error(`migrated ${progress.migrated_bytes} bytes`);
    const pace = (s: number) => ({
      seconds: round(s),
      filesPerSecond: round(options.files / s, 1),
      mibPerSecond: round(totalMiB / s),
    });
    return {
      dialect,
      lanes,
      files: options.files,
      fileKiB: options.kib,
      scan: {
        folders: tree.folders,
        files: options.scanFiles,
        seconds: round(scanSeconds),
        filesPerSecond: round(options.scanFiles / scanSeconds, 0),
        listRequests,
        targetSeconds: 60,
        met: scanSeconds < 60,
      },
      raw: { ...pace(rawSeconds), seconds: round(rawSeconds, 3) },
      importerAlone: pace(a.seconds),
      processingAlone: pace(backlogSeconds),
      withProcessing: { ...pace(b.seconds), untilAllProcessed: pace(processedSeconds) },
      importerOverRaw: round(rawSeconds / a.seconds, 3),
      loadAverage: os.loadavg().map((l) => round(l)),
    };
  } finally {
    await worker.stop(10_000);
    await t.close();
    await drive.close();
  }
}

export async function run(options: ImportsBenchOptions = {}): Promise<ImportsBenchResult[]> {
  const settings = {
    scanFiles: options.scanFiles ?? 10_000,
    files: options.files ?? 200,
    kib: options.kib ?? 256,
    log: options.log ?? ((line: string) => process.stderr.write(`${line}\n`)),
  };
  const dialects = options.dialect ? [options.dialect] : await availableDialects();
  const results: ImportsBenchResult[] = [];
  for (const dialect of dialects) results.push(await runDialect(dialect, settings));
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      files: { type: 'string' },
      kib: { type: 'string' },
      'scan-files': { type: 'string' },
      dialect: { type: 'string' },
    },
  });
  const result = await run({
    ...(values.files ? { files: Number(values.files) } : {}),
    ...(values.kib ? { kib: Number(values.kib) } : {}),
    ...(values['scan-files'] ? { scanFiles: Number(values['scan-files']) } : {}),
    ...(values.dialect ? { dialect: values.dialect as DialectName } : {}),
  });
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}
