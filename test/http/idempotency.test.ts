import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import multipart from '@fastify/multipart';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { type Container, createContainer } from '../../src/container.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { authOf, type App } from '../../src/http/fastify-types.ts';
import { setRequestFingerprint } from '../../src/http/idempotency.ts';
import { MultipartFingerprintCollector, multipartFingerprint } from '../../src/lib/multipart-fingerprint.ts';
import { ADMIN_KEY, DIALECTS, type TestApp } from '../support/app.ts';
import { createTestStore, type TestStore } from '../support/databases.ts';
import { assertError, createTenant, loginAs } from '../support/fixtures.ts';

/** A gate a test opens to let a held request finish. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/** The real app plus two test routes: a slow JSON one and a multipart upload that declares its fingerprint. */
async function startAppWithTestRoutes(dialect: (typeof DIALECTS)[number]) {
  const store: TestStore = await createTestStore(dialect);
  const config = loadConfig({
    DATA_DIR: store.dataDir,
    ...(store.url ? { DATABASE_URL: store.url } : {}),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
  });
  const container: Container = await createContainer(config);
  await migrateToLatest(container.database.db);
  const app: App = await buildApp(container, { logger: false });
  const state = { slowGate: gate(), slowRuns: 0, uploadRuns: 0, uploadGate: null as ReturnType<typeof gate> | null };
  await app.register(async (scope) => {
    await scope.register(multipart);
    scope.post('/api/v1/test-idempotency/slow', async (request) => {
      state.slowRuns += 1;
      await state.slowGate.opened;
      return { runs: state.slowRuns, tenant: authOf(request).tenant.id };
    });
    scope.post('/api/v1/test-idempotency/upload', async (request, reply) => {
      state.uploadRuns += 1;
      const collector = new MultipartFingerprintCollector();
      const files: string[] = [];
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          const hash = createHash('sha256');
          for await (const chunk of part.file) hash.update(chunk);
          const hex = hash.digest('hex');
          collector.file(part.fieldname, part.filename, hex);
          files.push(hex);
        } else {
          collector.field(part.fieldname, String(part.value));
        }
      }
      if (state.uploadGate) await state.uploadGate.opened;
      setRequestFingerprint(request, collector.digest());
      return reply.status(201).send({ run: state.uploadRuns, files });
    });
  });
  await app.ready();
  const t: TestApp = {
    dialect,
    app,
    container,
    store,
    worker: null,
    admin: (opts) => app.inject({ ...opts, headers: { authorization: `Bearer ${ADMIN_KEY}`, ...opts.headers } }),
    async close() {
      await app.close();
      await container.close();
      await store.drop();
    },
  };
  return { t, state };
}

function multipartBody(
  parts: ({ name: string; value: string } | { name: string; filename: string; content: string })[],
) {
  const boundary = '----idem-test-boundary';
  let body = '';
  for (const p of parts) {
    body += `--${boundary}\r\n`;
    if ('filename' in p) {
      body += `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: text/plain\r\n\r\n${p.content}\r\n`;
    } else {
      body += `Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`;
    }
  }
  body += `--${boundary}--\r\n`;
  return { payload: body, contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('multipartFingerprint', () => {
  it('is independent of field order but not of values, file order or content', () => {
    const base = { fields: { a: ['1'], b: ['2', '3'] }, files: [{ field: 'file', filename: 'x.txt', sha256: 'aa' }] };
    assert.equal(
      multipartFingerprint(base),
      multipartFingerprint({ fields: { b: ['2', '3'], a: ['1'] }, files: base.files }),
    );
    assert.notEqual(multipartFingerprint(base), multipartFingerprint({ ...base, fields: { a: ['1'], b: ['3', '2'] } }));
    assert.notEqual(
      multipartFingerprint(base),
      multipartFingerprint({ ...base, files: [{ field: 'file', filename: 'x.txt', sha256: 'ab' }] }),
    );
    assert.notEqual(
      multipartFingerprint(base),
      multipartFingerprint({ ...base, files: [{ field: 'file', filename: 'y.txt', sha256: 'aa' }] }),
    );
  });
});

for (const dialect of DIALECTS) {
  describe(`Idempotency-Key [${dialect}]`, () => {
    let t: TestApp;
    let state: Awaited<ReturnType<typeof startAppWithTestRoutes>>['state'];
    before(async () => {
      ({ t, state } = await startAppWithTestRoutes(dialect));
    });
    after(() => t.close());
    const inject = (opts: InjectOptions) => t.app.inject(opts);

    it('replays the first answer for a repeat, with Idempotent-Replayed, and does the work once', async () => {
      const tenant = await createTenant(t);
      const headers = { ...tenant.headers, 'idempotency-key': 'create-ws-1' };
      const first = await inject({
        method: 'POST',
        url: '/api/v1/workspaces',
        headers,
        payload: { name: 'Once', description: 'd' },
      });
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      // Key order in the body does not matter.
      const again = await inject({
        method: 'POST',
        url: '/api/v1/workspaces',
        headers,
        payload: { description: 'd', name: 'Once' },
      });
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body);
      assert.match(String(again.headers['content-type']), /application\/json/);
      const list = (await inject({ method: 'GET', url: '/api/v1/workspaces', headers: tenant.headers })).json();
      assert.equal(list.total, 1);
      // Error answers (other than 400/429/5xx) are stored too.
      const delHeaders = { ...tenant.headers, 'idempotency-key': 'del-missing' };
      const missing = await inject({ method: 'DELETE', url: '/api/v1/workspaces/nope', headers: delHeaders });
      assertError(missing, 404, 'not_found');
      const missingAgain = await inject({ method: 'DELETE', url: '/api/v1/workspaces/nope', headers: delHeaders });
      assert.equal(missingAgain.statusCode, 404);
      assert.equal(missingAgain.headers['idempotent-replayed'], 'true');
    });

    it('answers 422 for the same key with another body, path, method or caller', async () => {
      const tenant = await createTenant(t);
      const headers = { ...tenant.headers, 'idempotency-key': 'k-422' };
      assert.equal(
        (await inject({ method: 'POST', url: '/api/v1/workspaces', headers, payload: { name: 'First' } })).statusCode,
        201,
      );
      assertError(
        await inject({ method: 'POST', url: '/api/v1/workspaces', headers, payload: { name: 'Second' } }),
        422,
        'idempotency_key_reused',
      );
      assertError(
        await inject({ method: 'POST', url: '/api/v1/api-keys', headers, payload: { name: 'First' } }),
        422,
        'idempotency_key_reused',
      );
      assertError(
        await inject({ method: 'PUT', url: '/api/v1/workspaces', headers, payload: { name: 'First' } }),
        404,
        'not_found',
      );
      const ws = (await inject({ method: 'GET', url: '/api/v1/workspaces', headers: tenant.headers })).json().data[0];
      assertError(
        await inject({ method: 'DELETE', url: `/api/v1/workspaces/${ws.id}`, headers }),
        422,
        'idempotency_key_reused',
      );
      const user = await loginAs(t, tenant, 'admin');
      assertError(
        await inject({
          method: 'POST',
          url: '/api/v1/workspaces',
          headers: { ...user.headers, 'idempotency-key': 'k-422' },
          payload: { name: 'First' },
        }),
        422,
        'idempotency_key_reused',
      );
      // Keys are per tenant: another tenant may use the same key freely.
      const other = await createTenant(t);
      const res = await inject({
        method: 'POST',
        url: '/api/v1/workspaces',
        headers: { ...other.headers, 'idempotency-key': 'k-422' },
        payload: { name: 'First' },
      });
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    });

    it('stores nothing for a failed validation (400): the key stays free', async () => {
      const tenant = await createTenant(t);
      const headers = { ...tenant.headers, 'idempotency-key': 'k-400' };
      assertError(
        await inject({ method: 'POST', url: '/api/v1/workspaces', headers, payload: { name: '' } }),
        400,
        'validation_error',
      );
      assertError(
        await inject({ method: 'POST', url: '/api/v1/workspaces', headers, payload: { nam: 'typo' } }),
        400,
        'validation_error',
      );
      const ok = await inject({ method: 'POST', url: '/api/v1/workspaces', headers, payload: { name: 'Valid' } });
      assert.equal(ok.statusCode, 201, ok.body);
      assert.equal(ok.headers['idempotent-replayed'], undefined);
      assertError(
        await inject({
          method: 'POST',
          url: '/api/v1/workspaces',
          headers: { ...tenant.headers, 'idempotency-key': 'bad key with spaces' },
          payload: { name: 'x' },
        }),
        400,
        'validation_error',
      );
    });

    it('answers 409 while the first request with the key is still running', async () => {
      const tenant = await createTenant(t);
      state.slowGate = gate();
      const headers = { ...tenant.headers, 'idempotency-key': 'slow-1' };
      const first = inject({ method: 'POST', url: '/api/v1/test-idempotency/slow', headers, payload: { a: 1 } });
      while (state.slowRuns === 0) await new Promise((r) => setImmediate(r));
      const busy = await inject({ method: 'POST', url: '/api/v1/test-idempotency/slow', headers, payload: { a: 1 } });
      assertError(busy, 409, 'idempotency_in_progress');
      assert.equal(busy.headers['retry-after'], '1', 'a client may retry the same request shortly');
      assertError(
        await inject({ method: 'POST', url: '/api/v1/test-idempotency/slow', headers, payload: { a: 2 } }),
        422,
        'idempotency_key_reused',
      );
      state.slowGate.open();
      const done = await first;
      assert.equal(done.statusCode, 200, done.body);
      const replay = await inject({ method: 'POST', url: '/api/v1/test-idempotency/slow', headers, payload: { a: 1 } });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, done.body);
      assert.equal(state.slowRuns, 1);
    });

    it('fingerprints multipart bodies by fields and file hashes; repeats never reach the handler', async () => {
      const tenant = await createTenant(t);
      const headers = { ...tenant.headers, 'idempotency-key': 'upload-1' };
      const body = multipartBody([
        { name: 'folder_id', value: 'f1' },
        { name: 'file', filename: 'a.txt', content: 'hello world' },
      ]);
      const before = state.uploadRuns;
      const first = await inject({
        method: 'POST',
        url: '/api/v1/test-idempotency/upload',
        headers: { ...headers, 'content-type': body.contentType },
        payload: body.payload,
      });
      assert.equal(first.statusCode, 201, first.body);
      const repeat = await inject({
        method: 'POST',
        url: '/api/v1/test-idempotency/upload',
        headers: { ...headers, 'content-type': body.contentType },
        payload: body.payload,
      });
      assert.equal(repeat.statusCode, 201);
      assert.equal(repeat.headers['idempotent-replayed'], 'true');
      assert.equal(repeat.body, first.body);
      assert.equal(state.uploadRuns, before + 1, 'the handler ran once');
      for (const changed of [
        multipartBody([
          { name: 'folder_id', value: 'f1' },
          { name: 'file', filename: 'a.txt', content: 'hello world!' },
        ]),
        multipartBody([
          { name: 'folder_id', value: 'f2' },
          { name: 'file', filename: 'a.txt', content: 'hello world' },
        ]),
        multipartBody([
          { name: 'folder_id', value: 'f1' },
          { name: 'file', filename: 'b.txt', content: 'hello world' },
        ]),
      ]) {
        const res = await inject({
          method: 'POST',
          url: '/api/v1/test-idempotency/upload',
          headers: { ...headers, 'content-type': changed.contentType },
          payload: changed.payload,
        });
        assertError(res, 422, 'idempotency_key_reused');
      }
      assert.equal(state.uploadRuns, before + 1);
      // A JSON body under a multipart key is another request.
      assertError(
        await inject({ method: 'POST', url: '/api/v1/test-idempotency/upload', headers, payload: { x: 1 } }),
        422,
        'idempotency_key_reused',
      );
    });

    it('answers 409 for a multipart repeat while the first upload still runs', async () => {
      const tenant = await createTenant(t);
      const headers = { ...tenant.headers, 'idempotency-key': 'upload-slow' };
      const body = multipartBody([{ name: 'file', filename: 'a.txt', content: 'slow' }]);
      state.uploadGate = gate();
      const runs = state.uploadRuns;
      const first = inject({
        method: 'POST',
        url: '/api/v1/test-idempotency/upload',
        headers: { ...headers, 'content-type': body.contentType },
        payload: body.payload,
      });
      while (state.uploadRuns === runs) await new Promise((r) => setImmediate(r));
      const during = await inject({
        method: 'POST',
        url: '/api/v1/test-idempotency/upload',
        headers: { ...headers, 'content-type': body.contentType },
        payload: body.payload,
      });
      assertError(during, 409, 'idempotency_in_progress');
      state.uploadGate.open();
      state.uploadGate = null;
      assert.equal((await first).statusCode, 201);
    });
  });
}
