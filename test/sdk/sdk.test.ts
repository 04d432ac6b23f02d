import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { it } from 'node:test';
import {
  AuthenticationError,
  DocuVault,
  DocuVaultError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  type RetryNotice,
  ValidationError,
} from '../../packages/sdk/src/index.ts';
import { tinyPdf } from '../modules/documents/helpers.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant, type TestTenant } from '../support/fixtures.ts';
import { faultProxy, origin } from './helpers.ts';

const POLICY =
  'Travel and Expense Policy. Hotel stays are reimbursed up to 180 euros per night in Paris and 150 euros elsewhere. ' +
  'Meal receipts must be submitted within thirty days through the finance portal.';

describeEachDialect(
  'sdk against the running service',
  (ctx) => {
    let tenant: TestTenant;
    let base: string;
    let client: DocuVault;
    let dir: string;

    it('calls typed operations with an API key', async () => {
      tenant = await createTenant(ctx());
      base = await origin(ctx());
      client = new DocuVault({ baseUrl: base, apiKey: tenant.apiKey });
      dir = await mkdtemp(join(tmpdir(), 'sdk-test-'));
      const folder = await client.call('createFolder', { body: { name: 'Invoices' } });
      assert.equal(folder.name, 'Invoices');
      const listed = await client.call('listFolders');
      assert.deepEqual(
        listed.folders.map((f) => f.id),
        [folder.id],
      );
      const got = await client.call('getFolder', { path: { id: folder.id } });
      assert.equal(got.id, folder.id);
    });

    it('uploads from a path, a Blob and a stream, reporting progress', async () => {
      const path = join(dir, 'policy.txt');
      await writeFile(path, POLICY);
      const seen: number[] = [];
      const fromPath = await client.documents.upload(path, {
        tags: ['travel', 'policy'],
        onProgress: (p) => seen.push(p.loaded),
      });
      assert.equal(fromPath.filename, 'policy.txt');
      assert.equal(seen.at(-1), Buffer.byteLength(POLICY));

      const pdf = tinyPdf('Invoice 42');
      const fromBlob = await client.documents.upload(new Blob([new Uint8Array(pdf)]), {
        filename: 'invoice.pdf',
        enableAi: false,
      });
      assert.equal(fromBlob.filename, 'invoice.pdf');

      const fromStream = await client.documents.upload({
        stream: Readable.from([Buffer.from('streamed '), Buffer.from('text')]),
        filename: 'stream.txt',
      });
      assert.equal(fromStream.filename, 'stream.txt');

      const doc = await client.documents.waitUntilProcessed(fromPath.id, { timeoutMs: 30_000 });
      assert.equal(doc.status, 'completed');
      assert.deepEqual([...doc.tags].sort(), ['policy', 'travel']);
    });

    it('downloads the original bytes, whole, to a file and by range', async () => {
      const [doc] = (await client.call('listDocuments', { query: { search: 'policy' } })).data;
      assert.ok(doc);
      const res = await client.documents.download(doc.id);
      assert.equal(await res.text(), POLICY);
      const part = await client.documents.download(doc.id, { range: 'bytes=0-5' });
      assert.equal(part.status, 206);
      assert.equal(await part.text(), 'Travel');
      const target = join(dir, 'copy.txt');
      assert.equal(await client.documents.downloadTo(doc.id, target), Buffer.byteLength(POLICY));
      assert.equal(await readFile(target, 'utf8'), POLICY);
    });

    it('pages through a list with the iterator', async () => {
      const ids: string[] = [];
      for await (const doc of client.paginate('listDocuments', { query: { page_size: 1, sort: 'name', order: 'asc' } }))
        ids.push(doc.filename);
      assert.deepEqual(ids, ['invoice.pdf', 'policy.txt', 'stream.txt']);
      const tags: string[] = [];
      for await (const tag of client.paginate('listTags', { query: { page_size: 1 } })) tags.push(tag.name);
      assert.deepEqual(tags.sort(), ['policy', 'travel']);
    });

    it('uploads a batch and reports the rejected files', async () => {
      // A refused extension and refused content (a .pdf that is not one), streamed.
      const answer = await client.documents.uploadBatch([
        new File([POLICY], 'a.txt'),
        new File(['MZ binary'], 'fake.exe'),
        new File(['not a pdf at all'], 'fake.pdf'),
      ]);
      assert.equal(answer.documents.length, 1);
      assert.deepEqual(
        answer.rejected.map((r) => [r.filename, r.code]),
        [
          ['fake.exe', 'INVALID_FILE_TYPE'],
          ['fake.pdf', 'INVALID_FILE_TYPE'],
        ],
      );
    });

    it('throws typed errors carrying the contract body and the request id', async () => {
      const missing = await client.call('getDocument', { path: { id: 'no-such-doc' } }).catch((e: unknown) => e);
      assert.ok(missing instanceof NotFoundError);
      assert.equal(missing.status, 404);
      assert.equal(missing.error, 'not_found');
      assert.equal(missing.code, 'NOT_FOUND');
      assert.match(missing.requestId ?? '', /^[\w.:-]+$/);

      const invalid = await client.call('createFolder', { body: { name: '' } }).catch((e: unknown) => e);
      assert.ok(invalid instanceof ValidationError);
      assert.equal(invalid.code, 'VALIDATION_ERROR');
      assert.ok(Array.isArray((invalid.details as { errors: unknown[] }).errors));

      const anonymous = new DocuVault({ baseUrl: base });
      const refused = await anonymous.call('listDocuments').catch((e: unknown) => e);
      assert.ok(refused instanceof AuthenticationError);
      const badKey = await new DocuVault({ baseUrl: base, apiKey: 'ak_live_nope' })
        .call('listDocuments')
        .catch((e: unknown) => e);
      assert.ok(badKey instanceof AuthenticationError);
      assert.equal(badKey.error, 'invalid_api_key');
    });

    it('another tenant sees none of it: 404 for every resource', async () => {
      const other = await createTenant(ctx());
      const stranger = new DocuVault({ baseUrl: base, apiKey: other.apiKey });
      const [doc] = (await client.call('listDocuments')).data;
      const [folder] = (await client.call('listFolders')).folders;
      assert.ok(doc && folder);
      for (const attempt of [
        () => stranger.call('getDocument', { path: { id: doc.id } }),
        () => stranger.documents.download(doc.id),
        () => stranger.call('getFolder', { path: { id: folder.id } }),
        () => stranger.call('updateDocument', { path: { id: doc.id }, body: { filename: 'mine.txt' } }),
        () => stranger.call('deleteDocument', { path: { id: doc.id } }),
        () => stranger.chat.createSession(doc.id, 'peek'),
      ]) {
        const error = await attempt().then(
          () => null,
          (e: unknown) => e,
        );
        assert.ok(error instanceof NotFoundError, String(error));
      }
      assert.equal((await stranger.call('listDocuments')).total, 0);
    });

    it('streams a chat answer as an async iterator, deltas then the stored message', async () => {
      const [doc] = (await client.call('listDocuments', { query: { search: 'policy.txt' } })).data;
      assert.ok(doc);
      const session = await client.chat.createSession(doc.id, 'Hotels');
      let text = '';
      let done: { content: string; citations: unknown[] } | undefined;
      for await (const event of client.chat.stream(session.id, 'How much is a hotel night in Paris reimbursed?')) {
        if (event.type === 'delta') text += event.content;
        else done = event.message;
      }
      assert.ok(done);
      assert.equal(text, done.content);
      assert.ok(done.citations.length > 0);
      const whole = await client.chat.ask(session.id, 'When are meal receipts due?');
      assert.equal(whole.role, 'assistant');
      const messages = await client.call('listChatSessionMessages', { path: { id: session.id } });
      assert.equal(messages.total, 4);
    });

    it('signs a user in, sends CSRF on changes, and refreshes an expired access token once', async () => {
      const saved: string[] = [];
      const user = await DocuVault.login({
        baseUrl: base,
        tenant: tenant.subdomain,
        email: tenant.ownerEmail,
        password: tenant.ownerPassword,
        onTokens: (t) => void saved.push(t.refreshToken),
      });
      assert.equal(saved.length, 1);
      const folder = await user.call('createFolder', { body: { name: 'From a person' } });
      assert.equal(folder.name, 'From a person');

      // An access token taken for expired is refreshed before the request, once, by concurrent callers together.
      const tokens = user.tokens;
      assert.ok(tokens);
      const stale = new DocuVault({
        baseUrl: base,
        tokens: { ...tokens, expiresAt: Date.now() - 1 },
        onTokens: (t) => void saved.push(t.refreshToken),
      });
      await Promise.all([stale.call('listDocuments'), stale.call('listFolders'), stale.call('getAuthMe')]);
      assert.equal(saved.length, 2);
      assert.notEqual(stale.tokens?.refreshToken, tokens.refreshToken);
      await stale.call('deleteFolder', { path: { id: folder.id } });

      // A 401 (the token was revoked by logout) with a spent refresh token surfaces as an error, not a loop.
      await user.logout();
      const after = await user.call('listDocuments').then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(after instanceof AuthenticationError);
    });

    it('retries 429 and 503 after Retry-After with the same Idempotency-Key, and gives up on long waits', async () => {
      const proxy = await faultProxy(base);
      try {
        const notices: RetryNotice[] = [];
        const viaProxy = new DocuVault({
          baseUrl: proxy.url,
          apiKey: tenant.apiKey,
          retry: { baseDelayMs: 1, onRetry: (n) => notices.push(n) },
        });
        proxy.failNext(/\/folders$/, {
          status: 429,
          headers: { 'retry-after': '0' },
          body: JSON.stringify({ error: 'rate_limit_exceeded', code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' }),
        });
        proxy.failNext(/\/folders$/, { status: 503, headers: { 'retry-after': '0' } });
        const folder = await viaProxy.call('createFolder', { body: { name: 'Retried' } });
        assert.equal(folder.name, 'Retried');
        // Each wait is announced before it starts (a CLI tells its user it is waiting out a 429).
        assert.deepEqual(notices, [
          { status: 429, waitMs: 0, retry: 1 },
          { status: 503, waitMs: 0, retry: 2 },
        ]);
        const posts = proxy.seen.filter((r) => r.method === 'POST' && r.url.endsWith('/folders'));
        assert.equal(posts.length, 3);
        const keys = new Set(posts.map((r) => r.headers['idempotency-key']));
        assert.equal(keys.size, 1);
        assert.ok([...keys][0]);

        // The same key still in flight (a retry racing the first attempt): 409 with Retry-After, retried.
        proxy.failNext(/\/folders$/, {
          status: 409,
          headers: { 'retry-after': '0' },
          body: JSON.stringify({
            error: 'idempotency_in_progress',
            code: 'IDEMPOTENCY_IN_PROGRESS',
            message: 'retry shortly',
          }),
        });
        assert.equal((await viaProxy.call('createFolder', { body: { name: 'Raced' } })).name, 'Raced');

        // A budget for earlier attempts still running (a CLI re-run after a kill) waits beyond maxRetries.
        const inFlight = {
          status: 409,
          headers: { 'retry-after': '0' },
          body: JSON.stringify({
            error: 'idempotency_in_progress',
            code: 'IDEMPOTENCY_IN_PROGRESS',
            message: 'retry shortly',
          }),
        };
        const patient = new DocuVault({
          baseUrl: proxy.url,
          apiKey: tenant.apiKey,
          retry: { maxRetries: 0, inProgressWaitMs: 2_000 },
        });
        for (let i = 0; i < 3; i++) proxy.failNext(/\/folders$/, inFlight);
        assert.equal((await patient.call('createFolder', { body: { name: 'Waited' } })).name, 'Waited');
        const impatient = new DocuVault({ baseUrl: proxy.url, apiKey: tenant.apiKey, retry: { maxRetries: 0 } });
        proxy.failNext(/\/folders$/, inFlight);
        const refused = await impatient.call('createFolder', { body: { name: 'Not waited' } }).catch((e: unknown) => e);
        assert.ok(refused instanceof DocuVaultError && refused.status === 409);

        // An upload from a path is repeatable, so it is retried too; a one-shot stream is not retried on 503.
        proxy.failNext(/\/upload$/, { status: 503 });
        const uploaded = await viaProxy.documents.upload(new Blob([POLICY]), { filename: 'again.txt' });
        assert.equal(uploaded.filename, 'again.txt');
        proxy.failNext(/\/upload$/, { status: 503 });
        const once = await viaProxy.documents
          .upload({ stream: Readable.from([Buffer.from('x')]), filename: 'once.txt' })
          .catch((e: unknown) => e);
        assert.ok(once instanceof DocuVaultError && once.status === 503);

        proxy.failNext(/\/documents$/, {
          status: 429,
          headers: { 'retry-after': '3600' },
          body: JSON.stringify({ error: 'rate_limit_exceeded', code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' }),
        });
        const limited = await viaProxy.call('listDocuments').catch((e: unknown) => e);
        assert.ok(limited instanceof RateLimitError);
        assert.equal(limited.retryAfter, 3600);
      } finally {
        await proxy.close();
      }
    });

    it("surfaces the service's own 429 with its Retry-After once retries are spent", async () => {
      const free = await createTenant(ctx(), { tier: 'free' });
      const limitedClient = new DocuVault({ baseUrl: base, apiKey: free.apiKey, retry: { maxWaitMs: 0 } });
      let error: unknown = null;
      for (let i = 0; i < 40 && !error; i++)
        error = await limitedClient.call('listTags').then(
          () => null,
          (e: unknown) => e,
        );
      assert.ok(error instanceof RateLimitError, String(error));
      assert.equal(error.code, 'RATE_LIMIT_EXCEEDED');
      assert.ok((error.retryAfter ?? 0) > 0);
    });

    it('a viewer gets PermissionError when creating', async () => {
      await client.call('createUser', {
        body: {
          email: `viewer-${tenant.subdomain}@example.com`,
          name: 'V',
          role: 'viewer',
          password: 'a long test password',
        },
      });
      const viewer = await DocuVault.login({
        baseUrl: base,
        tenant: tenant.subdomain,
        email: `viewer-${tenant.subdomain}@example.com`,
        password: 'a long test password',
      });
      const refused = await viewer.call('createFolder', { body: { name: 'nope' } }).catch((e: unknown) => e);
      assert.ok(refused instanceof PermissionError);
      assert.equal(refused.error, 'forbidden');
    });
  },
  { worker: true },
);
