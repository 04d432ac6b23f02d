import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { freePort } from '../../bench/support.ts';
import { createTestStore, postgresAdminUrl, type TestStore } from '../support/databases.ts';
import { type S3TestServer, startS3Server } from '../support/s3-server.ts';
import {
  call,
  dropRedisPrefix,
  type HoldingProxy,
  killHard,
  REDIS_URL,
  redisAvailable,
  type ServiceProcess,
  spawnService,
  startHoldingProxy,
  stopService,
  type UploadOutcome,
  upload,
  waitReady,
} from './multi-process-support.ts';

// Issue 10 item 8: the scale-out topology as plain processes. Two API processes (`serve`,
// WORKER_IN_PROCESS=false) and two workers (`worker`) share one PostgreSQL database, one Redis and
// one S3-compatible store (the in-process test server). Uploads, logins, rate-limited calls and the
// processing jobs run through both APIs at once; mid-load one worker and one API are killed with
// SIGKILL, each at the worst moment we can arrange:
//   - the worker while it writes the completion of pipeline jobs whose effects have already
//     committed (a test-only trigger on `jobs` holds that write open so the kill lands inside it;
//     `client_connection_check_interval` makes PostgreSQL roll the write back when the process
//     dies, as it would for a write that never left the process). Its jobs come back after
//     JOB_LEASE_MS and run again on the other worker. (Once a job's completion is written inside
//     its step's own transaction, the same trigger holds that transaction instead, and the kill
//     rolls the whole step back: the check stays meaningful after the fix.)
//   - the API while uploads are in flight on it: some half-way through their body, others whose
//     bytes are stored in the bucket but whose answer from the store (held back by a proxy) has not
//     arrived, so their document row is never committed.
// Then it proves what the issue asks: no accepted upload lost or half-written, every job done
// exactly once in effect, rate limits shared across processes, sessions valid on both.

const ADMIN_KEY = `mp-admin-${randomBytes(12).toString('hex')}`;
const BUCKET = 'multi-process';
const LEASE_MS = 3_000;
const PIPELINE = ['processing.extract', 'processing.enrich', 'processing.index'] as const;
/** Uploads at full pace; past this only a trickle until both kills happened (processing must finish in the test's budget). */
const MAX_UPLOADS = 140;

const pgUrl = await postgresAdminUrl();
const haveRedis = await redisAvailable();
const skip = !pgUrl
  ? 'no PostgreSQL (none answers at postgres://postgres@127.0.0.1:5432 or TEST_DATABASE_URL, or TEST_SKIP_POSTGRES=1): the multi-process deployment test needs it'
  : !haveRedis
    ? `Redis is not available at ${REDIS_URL} (or TEST_REDIS_URL): the multi-process deployment test needs it`
    : false;

interface Session {
  accessToken: string;
  refreshToken: string;
  csrfToken: string;
  via: string;
}

function documentText(n: number): Buffer {
  const nonce = randomBytes(8).toString('hex');
  return Buffer.from(
    `Memo ${n} (${nonce}).\n\nAcme Corporation agreed with Globex on 3 March 2025 to deliver ${n + 3} crates of widgets to Berlin.\n` +
      `Payment of ${1000 + n} euros is due within thirty days. Contact Jane Miller for questions about order ${nonce}.\n`,
  );
}

describe('scale-out: 2 API + 2 worker processes on PostgreSQL, Redis and S3, with kill -9 mid-load', { skip }, () => {
  const services: ServiceProcess[] = [];
  const dirs: string[] = [];
  const prefix = `dms-mp:${process.pid}:${Date.now()}:`;
  let store: TestStore | null = null;
  let s3: S3TestServer | null = null;
  let proxy: HoldingProxy | null = null;
  let db: pg.Client | null = null;

  let api1: ServiceProcess;
  let api2: ServiceProcess;
  let worker1: ServiceProcess;
  let worker2: ServiceProcess;
  let tenantId = '';
  let loadHeaders: Record<string, string> = {};

  // What the run observed, checked by the tests below.
  const outcomes: (UploadOutcome & { endedMs: number })[] = [];
  const cutUploads: UploadOutcome[] = [];
  let heldKeys: string[] = [];
  const logins: Session[] = [];
  const crossChecks: { what: string; status: number; expected: number }[] = [];
  let rateLimit: {
    statuses: number[];
    vias: string[];
    remaining: string[];
    otherAfter: number;
    limitBody: unknown;
  } | null = null;
  let workerCrash: {
    inCompletionWrite: boolean;
    orphaned: { id: string; kind: string; payload: string }[];
    effectAlreadyCommitted: string[];
  } | null = null;
  const timings: Record<string, number> = {};

  const env = (extra: Record<string, string>): Record<string, string> => ({
    DATABASE_URL: store!.url!,
    REDIS_URL,
    RATE_LIMIT_REDIS_PREFIX: prefix,
    ADMIN_API_KEY: ADMIN_KEY,
    BLOB_STORE: 's3',
    S3_ENDPOINT: s3!.endpoint,
    S3_BUCKET: BUCKET,
    S3_REGION: 'us-east-1',
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: 'test',
    S3_SECRET_ACCESS_KEY: 'test',
    WORKER_IN_PROCESS: 'false',
    JOB_LEASE_MS: String(LEASE_MS),
    WORKER_POLL_INTERVAL_MS: '100',
    PROCESSING_THREADS: '1',
    SHUTDOWN_TIMEOUT_MS: '2000',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    AI_PROVIDER: 'local',
    // Nothing is shared through the file system: each process gets its own empty data folder.
    DATA_DIR: (() => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-mp-'));
      dirs.push(dir);
      return dir;
    })(),
    ...extra,
  });

  async function startApi(name: string, s3Endpoint?: string): Promise<ServiceProcess> {
    const port = await freePort();
    const svc = spawnService(
      name,
      'serve',
      env({ PORT: String(port), ...(s3Endpoint ? { S3_ENDPOINT: s3Endpoint } : {}) }),
      ['--max-semi-space-size=4'],
    );
    services.push(svc);
    return svc;
  }
  function startWorker(name: string): ServiceProcess {
    // info: the worker has no HTTP port, so readiness is read from its "started" log line.
    const svc = spawnService(name, 'worker', env({ LOG_LEVEL: 'info' }), ['--max-semi-space-size=4']);
    services.push(svc);
    return svc;
  }
  const alive = (svc: ServiceProcess) => svc.child.exitCode === null && svc.child.signalCode === null;
  const since = (t0: number) => Math.round(performance.now() - t0);

  async function login(base: string, subdomain: string, email: string, password: string): Promise<Session> {
    const res = await call(
      base,
      'POST',
      '/api/v1/auth/login',
      { 'x-tenant-subdomain': subdomain },
      { email, password },
    );
    assert.equal(res.status, 200, `login via ${base}: ${JSON.stringify(res.body)}`);
    return {
      accessToken: res.body.access_token,
      refreshToken: res.body.refresh_token,
      csrfToken: res.body.csrf_token,
      via: base,
    };
  }

  before(
    async () => {
      const t0 = performance.now();
      store = await createTestStore('postgres');
      db = new pg.Client({ connectionString: store.url! });
      await db.connect();
      // A process that dies mid-statement has that statement rolled back within 50 ms, instead of
      // the statement running to its end (see the completion-hold trigger below).
      await db.query(
        `alter database ${new URL(store.url!).pathname.slice(1)} set client_connection_check_interval = '50ms'`,
      );

      s3 = await startS3Server();
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
      client.destroy();
      proxy = await startHoldingProxy(s3.endpoint);

      // Migrations run once: the first process migrates the empty database, the rest start after it.
      api1 = await startApi('api-1');
      await waitReady(api1, 60_000);
      timings['firstProcessReadyMs'] = since(t0);
      api2 = await startApi('api-2', proxy.endpoint); // its blob traffic goes through the holding proxy
      worker1 = startWorker('worker-1');
      worker2 = startWorker('worker-2');
      await Promise.all([waitReady(api2, 60_000), waitReady(worker1, 60_000), waitReady(worker2, 60_000)]);
      timings['allReadyMs'] = since(t0);

      // Tenants: one Enterprise tenant carries the load (no tier-wide limit), one Free tenant the rate limit.
      const subdomain = `mp${process.pid}${randomBytes(3).toString('hex')}`;
      const password = 'a long multi-process password';
      const created = await call(
        api1.base!,
        'POST',
        '/api/v1/admin/tenants',
        { authorization: `Bearer ${ADMIN_KEY}` },
        {
          name: 'Load',
          subdomain,
          tier: 'enterprise',
          owner: { email: `owner@${subdomain}.example.com`, password, name: 'Owner' },
        },
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      tenantId = created.body.tenant.id;
      loadHeaders = { 'x-api-key': created.body.api_key };
      // Two Free tenants (no tier given): the second is used only if a window boundary cut the first attempt.
      const freeKeys: string[] = [];
      for (const suffix of ['free', 'free2']) {
        const freeSub = `${subdomain}${suffix}`;
        const free = await call(
          api2.base!,
          'POST',
          '/api/v1/admin/tenants',
          { authorization: `Bearer ${ADMIN_KEY}` },
          {
            name: 'Free',
            subdomain: freeSub,
            owner: { email: `owner@${freeSub}.example.com`, password, name: 'Owner' },
          },
        );
        assert.equal(free.status, 201, JSON.stringify(free.body));
        assert.equal(free.body.tenant.tier, 'free');
        freeKeys.push(free.body.api_key);
      }
      const email = `owner@${subdomain}.example.com`;

      // The rate-limit calls below run a second or two into the load: keep them inside one
      // one-minute window (the limiter's windows are fixed, aligned on the clock).
      const intoWindow = Date.now() % 60_000;
      if (intoWindow > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 100));

      // ---- the load: uploads through both APIs until told to stop ----
      let stopLoad = false;
      let killsDone = false;
      let issued = 0;
      const tLoad = performance.now();
      const uploadLoop = async (preferred: ServiceProcess) => {
        // Past MAX_UPLOADS only a trickle continues, until both kills have happened.
        while (!stopLoad && (issued < MAX_UPLOADS || !killsDone)) {
          const target = alive(preferred) ? preferred : api1;
          const n = issued++;
          const outcome = await upload(target.base!, loadHeaders, `load-${n}.txt`, documentText(n));
          outcomes.push({ ...outcome, endedMs: since(tLoad) });
          await new Promise((r) => setTimeout(r, issued < MAX_UPLOADS ? 40 : 250));
        }
      };
      const loops = [uploadLoop(api1), uploadLoop(api2), uploadLoop(api1), uploadLoop(api2)];

      // Logins mid-load on both processes; each session is used on the other process.
      const [a, b] = await Promise.all([
        login(api1.base!, subdomain, email, password),
        login(api2.base!, subdomain, email, password),
      ]);
      logins.push(a, b);
      for (const [session, other, label] of [
        [a, api2, 'token from api-1 on api-2'],
        [b, api1, 'token from api-2 on api-1'],
      ] as const) {
        const auth = { authorization: `Bearer ${session.accessToken}`, 'x-tenant-subdomain': subdomain };
        const me = await call(other.base!, 'GET', '/api/v1/auth/me', auth);
        crossChecks.push({ what: `GET /auth/me, ${label}`, status: me.status, expected: 200 });
        // A write with the session's CSRF token: the CSRF secret is shared through the database.
        const folder = await call(
          other.base!,
          'POST',
          '/api/v1/folders',
          { ...auth, 'x-csrf-token': session.csrfToken },
          { name: `Folder ${label}` },
        );
        crossChecks.push({ what: `POST /folders with CSRF, ${label}`, status: folder.status, expected: 201 });
        const docs = await call(other.base!, 'GET', '/api/v1/documents?page_size=5', auth);
        crossChecks.push({ what: `GET /documents, ${label}`, status: docs.status, expected: 200 });
      }

      // Rate limits: a Free tenant's 15 a minute, counted across both processes (alternating).
      for (const key of freeKeys) {
        const freeHeaders = { 'x-api-key': key };
        const window = Math.floor(Date.now() / 60_000);
        const rl = {
          statuses: [] as number[],
          vias: [] as string[],
          remaining: [] as string[],
          otherAfter: 0,
          limitBody: null as unknown,
        };
        for (let i = 0; i < 16; i++) {
          const via = i % 2 === 0 ? api1 : api2;
          const res = await call(via.base!, 'GET', '/api/v1/users', freeHeaders);
          rl.statuses.push(res.status);
          rl.vias.push(via.name);
          rl.remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
          if (res.status === 429) rl.limitBody = res.body;
        }
        rl.otherAfter = (await call(api2.base!, 'GET', '/api/v1/users', freeHeaders)).status;
        rateLimit = rl;
        if (Math.floor(Date.now() / 60_000) === window) break; // else the counters were reset midway: again, with fresh ones
      }
      timings['sessionsAndRateLimitDoneMs'] = since(tLoad);

      // ---- kill -9 a worker while it writes the completion of pipeline jobs whose effects committed ----
      await db.query(`
        create function mp_test_hold_completion() returns trigger language plpgsql as $$
        begin perform pg_sleep(20); return new; end $$`);
      await db.query(`
        create trigger mp_test_hold_completion before update on jobs for each row
        when (old.state = 'running' and new.state = 'completed' and old.locked_by like '%:${worker1.pid}:%'
              and old.kind in (${PIPELINE.map((k) => `'${k}'`).join(', ')}))
        execute function mp_test_hold_completion()`);
      let inCompletionWrite = false;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
        const sleeping = await db.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`,
        );
        if (sleeping.rows[0].n > 0) {
          inCompletionWrite = true;
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      await killHard(worker1);
      timings['workerKilledMs'] = since(tLoad);
      // Wait for PostgreSQL to drop the dead process's sessions (the held write rolls back), then look.
      for (const deadline = Date.now() + 5_000; Date.now() < deadline; ) {
        const sleeping = await db.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`,
        );
        if (sleeping.rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await db.query('drop trigger mp_test_hold_completion on jobs; drop function mp_test_hold_completion()');
      const orphaned = await db.query(
        `select id, kind, payload from jobs where state = 'running' and locked_by like $1`,
        [`%:${worker1.pid}:%`],
      );
      // Which of them had already done their work when the process died (the dangerous case).
      const effectAlreadyCommitted: string[] = [];
      for (const job of orphaned.rows as { id: string; kind: string; payload: string }[]) {
        const documentId = (JSON.parse(job.payload) as { documentId?: string }).documentId;
        if (!documentId) continue;
        const next =
          job.kind === 'processing.extract'
            ? ['processing.enrich', 'processing.index']
            : job.kind === 'processing.enrich'
              ? ['processing.index']
              : [];
        const done =
          job.kind === 'processing.index'
            ? await db.query(`select 1 from events where name = 'document.processed' and data like $1`, [
                `%${documentId}%`,
              ])
            : await db.query(`select 1 from jobs where kind = any($1) and payload like $2`, [next, `%${documentId}%`]);
        if (done.rowCount! > 0) effectAlreadyCommitted.push(`${job.kind} ${documentId}`);
      }
      workerCrash = { inCompletionWrite, orphaned: orphaned.rows, effectAlreadyCommitted };

      // ---- kill -9 an API process with uploads in flight on it ----
      let release: () => void = () => {};
      const never = new Promise<void>((r) => (release = r));
      let paused = 0;
      const cut = [0, 1].map((i) => {
        const content = documentText(10_000 + i);
        return upload(api2.base!, loadHeaders, `cut-${i}.txt`, content, {
          pauseAfterBytes: content.length >> 1,
          resume: never,
          onPaused: () => paused++,
        });
      });
      proxy.hold = true;
      // Two whole uploads whose bytes the store keeps but whose answer it holds back (the load's
      // uploads to api-2 are held the same way from now on).
      const held = [0, 1].map((i) => upload(api2.base!, loadHeaders, `held-${i}.txt`, documentText(20_000 + i)));
      for (const deadline = Date.now() + 10_000; Date.now() < deadline && (proxy.held.length < 2 || paused < 2); ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await new Promise((r) => setTimeout(r, 300)); // the half-sent uploads have reached the service
      heldKeys = [...proxy.held];
      await killHard(api2);
      timings['apiKilledMs'] = since(tLoad);
      killsDone = true;
      release();
      cutUploads.push(...(await Promise.all([...cut, ...held])));

      // The survivors carry on for a while, then the load stops.
      await new Promise((r) => setTimeout(r, 1_500));
      stopLoad = true;
      await Promise.all(loops);
      timings['loadMs'] = since(tLoad);

      // Sessions issued by the dead API keep working on the survivor; a refresh there rotates them.
      const authB = { authorization: `Bearer ${b.accessToken}`, 'x-tenant-subdomain': subdomain };
      crossChecks.push({
        what: 'GET /auth/me on api-1 with a token api-2 issued before it died',
        status: (await call(api1.base!, 'GET', '/api/v1/auth/me', authB)).status,
        expected: 200,
      });
      const refreshed = await call(api1.base!, 'POST', '/api/v1/auth/refresh', {}, { refresh_token: b.refreshToken });
      crossChecks.push({
        what: 'POST /auth/refresh on api-1 of a session opened on api-2',
        status: refreshed.status,
        expected: 200,
      });
      if (refreshed.status === 200) {
        const me = await call(api1.base!, 'GET', '/api/v1/auth/me', {
          authorization: `Bearer ${refreshed.body.access_token}`,
          'x-tenant-subdomain': subdomain,
        });
        crossChecks.push({ what: 'GET /auth/me with the refreshed token', status: me.status, expected: 200 });
      }
      const late = await login(api1.base!, subdomain, email, password);
      logins.push(late);

      // ---- every job settles: the dead worker's jobs come back after their lease ----
      const tDrain = performance.now();
      for (const deadline = Date.now() + 45_000; ; ) {
        const pending = await db.query(
          `select count(*)::int as n from jobs where state in ('available', 'running') and run_at <= $1 and kind <> 'documents.collect_orphan'`,
          [Date.now() + 1_000],
        );
        const processing = await db.query(
          `select count(*)::int as n from documents where tenant_id = $1 and status = 'processing'`,
          [tenantId],
        );
        if (pending.rows[0].n === 0 && processing.rows[0].n === 0) break;
        if (Date.now() > deadline) break; // the tests below say what is missing
        await new Promise((r) => setTimeout(r, 200));
      }
      timings['drainMs'] = since(tDrain);
      timings['totalMs'] = since(t0);
    },
    { timeout: 150_000 },
  );

  after(async () => {
    // Every child goes, whatever happened: SIGTERM first (a clean stop), SIGKILL after 3 s.
    await Promise.all(services.map((svc) => stopService(svc, 3_000)));
    await db?.end().catch(() => {});
    await proxy?.close();
    await s3?.close();
    await store?.drop();
    await dropRedisPrefix(prefix).catch(() => {});
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function documentRows(): Promise<
    {
      id: string;
      original_filename: string;
      sha256: string;
      file_size: number;
      storage_key: string;
      status: string;
      ai_status: string;
    }[]
  > {
    const res = await db!.query(
      'select id, original_filename, sha256, file_size, storage_key, status, ai_status from documents where tenant_id = $1',
      [tenantId],
    );
    return res.rows;
  }

  it('ran the topology as planned: both kills landed mid-load', (t) => {
    t.diagnostic(`timings ${JSON.stringify(timings)}`);
    const accepted = outcomes.filter((o) => o.status === 201);
    t.diagnostic(
      `uploads: ${outcomes.length} issued, ${accepted.length} accepted (201), ${outcomes.filter((o) => o.status === 0).length} cut by the kill`,
    );
    t.diagnostic(`worker crash: ${JSON.stringify(workerCrash)}`);
    t.diagnostic(`held store answers at the API kill: ${heldKeys.length}`);
    assert.ok(
      workerCrash?.inCompletionWrite,
      'worker-1 was killed inside the write that records its finished pipeline jobs',
    );
    assert.ok(workerCrash.orphaned.length > 0, 'the killed worker left running jobs behind');
    assert.ok(heldKeys.length >= 2, 'api-2 was killed with stored bytes waiting for their document row');
    assert.ok(
      outcomes.some((o) => o.status === 201 && o.via === api2.base),
      'api-2 accepted uploads before it died',
    );
    assert.ok(
      accepted.some((o) => o.endedMs < timings['workerKilledMs']!),
      'uploads were accepted before the worker was killed',
    );
    assert.ok(
      accepted.some((o) => o.endedMs > timings['workerKilledMs']! && o.endedMs < timings['apiKilledMs']!) ||
        timings['apiKilledMs']! - timings['workerKilledMs']! < 500,
      'and between the kills',
    );
    assert.ok(
      accepted.some((o) => o.endedMs > timings['apiKilledMs']!),
      'and after the API was killed, by the survivor',
    );
    // Anything but 201 or a dead connection is a failure of the service, not of the kill.
    const unexpected = outcomes.filter((o) => o.status !== 201 && o.status !== 0);
    assert.deepEqual(unexpected, [], 'no upload answered an error');
    assert.ok(
      outcomes.filter((o) => o.status === 0).every((o) => o.via === api2.base),
      'only uploads to the killed API failed',
    );
  });

  it('no accepted upload is lost: each 201 has its row and downloads with the SHA-256 sent', async () => {
    const accepted = outcomes.filter((o) => o.status === 201);
    assert.ok(accepted.length >= 20, `enough uploads accepted (${accepted.length})`);
    const rows = new Map((await documentRows()).map((r) => [r.id, r]));
    for (const o of accepted) {
      const row = rows.get(o.id!);
      assert.ok(row, `accepted upload ${o.filename} (${o.id}) has its row`);
      assert.equal(row.sha256, o.sha256, `${o.filename}: stored hash`);
      assert.equal(Number(row.file_size), o.size);
      const res = await fetch(`${api1.base}/api/v1/documents/${o.id}/download`, { headers: loadHeaders });
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(res.status, 200, `${o.filename}: download`);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), o.sha256, `${o.filename}: downloaded bytes`);
    }
  });

  it('nothing is half-written: every row has its whole blob; cut uploads left no row, and stored bytes without a row are guarded', async () => {
    const rows = await documentRows();
    const keys = new Set(s3!.keys(BUCKET));
    // Every row, including any committed just before its answer was lost to the kill, has its whole file.
    for (const row of rows) {
      assert.ok(keys.has(row.storage_key), `row ${row.id} has its bytes`);
      const res = await fetch(`${api1.base}/api/v1/documents/${row.id}/download`, { headers: loadHeaders });
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(
        createHash('sha256').update(bytes).digest('hex'),
        row.sha256,
        `row ${row.id}: bytes match the recorded hash`,
      );
    }
    assert.deepEqual(s3!.pendingUploads(BUCKET), [], 'no unfinished multipart upload');

    // Uploads cut half-way by the kill, and uploads whose bytes were stored but not yet recorded: no answer, no row.
    assert.equal(cutUploads.length, 4);
    for (const cut of cutUploads) assert.equal(cut.status, 0, `${cut.filename} got no answer (${cut.error ?? ''})`);
    const names = new Set(rows.map((r) => r.original_filename));
    for (const cut of cutUploads) assert.ok(!names.has(cut.filename), `${cut.filename} left no document row`);
    // Uploads that were not answered at all: either no row, or a complete one (the row committed just before the kill).
    const rowIds = new Set(rows.map((r) => r.id));

    // Bytes stored for uploads whose row never committed: each is covered by its orphan guard,
    // committed before the first byte was stored and due an hour later.
    const documentKeys = [...keys].filter((k) => k.startsWith(`tenants/${tenantId}/documents/`));
    const orphanKeys = documentKeys.filter((k) => !rowIds.has(k.slice(k.lastIndexOf('/') + 1)));
    for (const held of heldKeys) assert.ok(orphanKeys.includes(held), `held upload ${held}: bytes stored, no row`);
    const guards = await db!.query(
      `select payload, state, run_at from jobs where kind = 'documents.collect_orphan' and tenant_id = $1`,
      [tenantId],
    );
    const guarded = new Map(
      (guards.rows as { payload: string; state: string; run_at: number }[]).map((g) => [
        JSON.parse(g.payload).documentId as string,
        g,
      ]),
    );
    for (const key of orphanKeys) {
      const guard = guarded.get(key.slice(key.lastIndexOf('/') + 1));
      assert.ok(guard, `orphaned bytes ${key} have a collect_orphan job`);
      assert.equal(guard.state, 'available');
      assert.ok(Number(guard.run_at) > Date.now() + 50 * 60_000, 'due about an hour after the upload began');
    }
  });

  it('every document is processed, each pipeline step taking effect exactly once (the killed worker’s jobs included)', async () => {
    const rows = await documentRows();
    assert.ok(rows.length > 0);
    const notDone = rows.filter((r) => r.status !== 'completed' || r.ai_status !== 'completed');
    assert.deepEqual(
      notDone.map((r) => `${r.id} ${r.status}/${r.ai_status}`),
      [],
      'every document completed, AI included',
    );

    // The dead worker's jobs were rescued after their lease and finished by the other worker.
    const rescued = await db!.query(
      `select id, kind, state, attempts, locked_by, last_error from jobs where id = any($1)`,
      [workerCrash!.orphaned.map((j) => j.id)],
    );
    for (const job of rescued.rows) {
      assert.equal(job.state, 'completed', `rescued ${job.kind} ${job.id}`);
      assert.ok(job.attempts >= 2, 'ran again');
      assert.match(String(job.last_error), /lease expired/);
      assert.ok(!String(job.locked_by).includes(`:${worker1.pid}:`), 'finished by the surviving worker');
    }
    const dead = await db!.query(`select kind, last_error from jobs where state = 'dead'`);
    assert.deepEqual(dead.rows, [], 'no job died');

    // Effects, counted per document: one job of each pipeline step, one of each event, no duplicated passage.
    const jobs = await db!.query(`select kind, payload from jobs where kind = any($1) and tenant_id = $2`, [
      [...PIPELINE],
      tenantId,
    ]);
    const events = await db!.query(`select name, data from events where tenant_id = $1 and name like 'document.%'`, [
      tenantId,
    ]);
    const chunks = await db!.query(
      `select document_id, count(*)::int as n, count(distinct chunk_index)::int as distinct_n from document_chunks where tenant_id = $1 group by document_id`,
      [tenantId],
    );
    const perDoc = new Map<string, Record<string, number>>(rows.map((r) => [r.id, {}]));
    const bump = (id: string, what: string) => {
      const counts = perDoc.get(id) ?? {};
      counts[what] = (counts[what] ?? 0) + 1;
      perDoc.set(id, counts);
    };
    for (const j of jobs.rows as { kind: string; payload: string }[]) bump(JSON.parse(j.payload).documentId, j.kind);
    for (const e of events.rows as { name: string; data: string }[]) bump(JSON.parse(e.data).document_id, e.name);
    const chunked = new Map(
      (chunks.rows as { document_id: string; n: number; distinct_n: number }[]).map((c) => [c.document_id, c]),
    );
    const wrong: string[] = [];
    for (const [id, counts] of perDoc) {
      for (const what of [...PIPELINE, 'document.uploaded', 'document.processed']) {
        if (counts[what] !== 1) wrong.push(`${id}: ${counts[what] ?? 0} × ${what}`);
      }
      if (counts['document.failed']) wrong.push(`${id}: ${counts['document.failed']} × document.failed`);
      const c = chunked.get(id);
      if (!c || c.n === 0 || c.n !== c.distinct_n)
        wrong.push(`${id}: passages ${c ? `${c.n} rows, ${c.distinct_n} distinct` : 'missing'}`);
    }
    assert.deepEqual(
      wrong,
      [],
      'each step takes effect exactly once per document. A duplicate here means a job ran again after its work had ' +
        'committed: the worker writes "completed" in a later transaction than the step (src/jobs/worker.ts batches ' +
        'completions), so dying in between re-runs it after the lease. The killed worker had already committed the ' +
        `work of: ${workerCrash!.effectAlreadyCommitted.join(', ') || 'none'}`,
    );
  });

  it('rate limits are shared: the 16th call of a Free tenant across both processes is refused', (t) => {
    assert.ok(rateLimit);
    t.diagnostic(
      `statuses ${rateLimit.statuses.join(',')} via ${rateLimit.vias.join(',')}; remaining ${rateLimit.remaining.join(',')}`,
    );
    assert.deepEqual(
      rateLimit.statuses.slice(0, 15),
      Array(15).fill(200),
      'the first 15 (8 on api-1, 7 on api-2) pass',
    );
    assert.deepEqual(
      rateLimit.remaining.slice(0, 15),
      Array.from({ length: 15 }, (_, i) => String(14 - i)),
      'one counter, decremented by both processes',
    );
    assert.equal(rateLimit.statuses[15], 429, 'the 16th, on api-2, is refused');
    assert.equal(rateLimit.otherAfter, 429, 'and so is the next, on the other process');
    assert.equal((rateLimit.limitBody as { error: string }).error, 'rate_limit_exceeded');
  });

  it('sessions are valid on both processes, and outlive the process that opened them', () => {
    assert.equal(logins.length, 3);
    assert.ok(crossChecks.length >= 8);
    for (const c of crossChecks) assert.equal(c.status, c.expected, c.what);
  });

  it('the survivors are healthy', async () => {
    assert.ok(alive(api1) && alive(worker2));
    assert.equal((await fetch(`${api1.base}/readyz`)).status, 200);
    assert.ok(!alive(api2) && !alive(worker1));
  });
});
