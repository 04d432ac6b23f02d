import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { DocuVault } from '../../packages/sdk/src/index.ts';
import { tinyPdf } from '../modules/documents/helpers.ts';
import { waitFor } from '../jobs/helpers.ts';
import { describeEachDialect } from '../support/app.ts';
import { createTenant, type TestTenant } from '../support/fixtures.ts';
import { faultProxy, origin } from '../sdk/helpers.ts';
import { cli, cliHome, startCli, writeTree } from './helpers.ts';

const POLICY =
  'Travel and Expense Policy. Hotel stays are reimbursed up to 180 euros per night in Paris and 150 euros elsewhere.';

describeEachDialect(
  'docuvault CLI',
  (ctx) => {
    let tenant: TestTenant;
    let base: string;
    let home: Awaited<ReturnType<typeof cliHome>>;
    let sdk: DocuVault;

    it('refuses to run unconfigured, and explains usage mistakes with exit code 2', async () => {
      tenant = await createTenant(ctx(), { tier: 'enterprise' });
      base = await origin(ctx());
      home = await cliHome();
      sdk = new DocuVault({ baseUrl: base, apiKey: tenant.apiKey });
      const unconfigured = await cli(['ls'], home.env);
      assert.equal(unconfigured.code, 2);
      assert.match(unconfigured.stderr, /not logged in: run `docuvault login`/);
      assert.equal((await cli(['frobnicate'], home.env)).code, 2);
      assert.equal((await cli([], home.env)).code, 2);
      assert.equal((await cli(['upload', '--bogus'], home.env)).code, 2);
    });

    it('logs in with an API key (checked first), saved readable by the user only', async () => {
      const wrong = await cli(['login', '--url', base, '--api-key', 'ak_live_wrong'], home.env);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /INVALID_API_KEY, HTTP 401, request /);
      const ok = await cli(['login', '--url', base, '--api-key', tenant.apiKey], home.env);
      assert.equal(ok.code, 0, ok.stderr);
      const file = home.env.DOCUVAULT_CONFIG as string;
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal(JSON.parse(await readFile(file, 'utf8')).apiKey, tenant.apiKey);
      const who = await cli(['whoami', '--json'], home.env);
      assert.equal(JSON.parse(who.stdout).mode, 'api_key');
    });

    it('whoami names the tenant, the key (by its public prefix only) and the role', async () => {
      const who = await cli(['whoami'], home.env);
      assert.equal(who.code, 0, who.stderr);
      assert.ok(who.stdout.includes(`API key ${tenant.apiKey.slice(0, 16)}…`), who.stdout);
      assert.ok(!who.stdout.includes(tenant.apiKey), 'the secret is never printed');
      assert.match(who.stdout, /role: \w+/);
      assert.ok(
        who.stdout.includes(`tenant: `) && who.stdout.includes(`(${tenant.subdomain}, enterprise)`),
        who.stdout,
      );
      assert.ok(who.stdout.includes(`url: ${base}`), who.stdout);
      const asJson = JSON.parse((await cli(['whoami', '--json'], home.env)).stdout);
      assert.deepEqual(
        [asJson.tenant.subdomain, asJson.user, asJson.api_key],
        [tenant.subdomain, null, `${tenant.apiKey.slice(0, 16)}…`],
      );
      // Another tenant's key answers for that tenant.
      const other = await createTenant(ctx());
      const theirs = await cli(['whoami', '--json'], { ...home.env, DOCUVAULT_API_KEY: other.apiKey });
      assert.equal(JSON.parse(theirs.stdout).tenant.subdomain, other.subdomain);
    });

    it('says so while it waits out a rate limit (429 Retry-After), then carries on', async () => {
      const proxy = await faultProxy(base);
      try {
        const body = JSON.stringify({
          error: 'rate_limit_exceeded',
          code: 'RATE_LIMIT_EXCEEDED',
          message: 'slow down',
        });
        proxy.failNext(/\/auth\/me/, { status: 429, headers: { 'retry-after': '1' }, body });
        const who = await cli(['whoami'], { ...home.env, DOCUVAULT_URL: proxy.url });
        assert.equal(who.code, 0, who.stderr);
        assert.match(who.stderr, /rate limited by the service; waiting 1 s before retrying/);
        assert.match(who.stdout, /role: /);
        const calm = await cli(['whoami'], { ...home.env, DOCUVAULT_URL: proxy.url });
        assert.equal(calm.stderr, '', 'no notice without a 429');
      } finally {
        await proxy.close();
      }
    });

    it('help lists only task actions that exist; an unknown one is a usage error', async () => {
      const help = await cli(['help'], home.env);
      assert.match(help.stdout, /tasks \[list \| approve <id> \| reject <id>\]/);
      assert.doesNotMatch(help.stdout, /claim/);
      const claim = await cli(['tasks', 'claim', 'some-task'], home.env);
      assert.equal(claim.code, 2);
      assert.match(claim.stderr, /unknown tasks action "claim"/);
    });

    it('creates folders with the case given ("Board Papers" stays so) and finds them again in any case', async () => {
      const tree = join(home.dir, 'Minutes 2025');
      await writeTree(tree, { 'March Meeting.txt': 'The board met in March.' });
      const first = await cli(['upload', tree, '--to', '/Board Papers', '--json', '--no-ai'], home.env);
      assert.equal(first.code, 0, first.stderr);
      const names = async () =>
        (await sdk.call('listFolders', { query: { include_document_count: 'false' } })).folders.map((f) => f.name);
      assert.ok((await names()).includes('Board Papers'), (await names()).join(', '));
      assert.ok((await names()).includes('Minutes 2025'), (await names()).join(', '));
      assert.equal((await names()).filter((n) => n.toLowerCase() === 'board papers').length, 1);
      // Another spelling of the same path reuses the folder rather than making a second one.
      const again = await cli(
        [
          'upload',
          join(home.dir, 'Minutes 2025', 'March Meeting.txt'),
          '--to',
          '/board papers/minutes 2025',
          '--json',
          '--no-ai',
        ],
        home.env,
      );
      assert.equal(again.code, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout).skipped, 1);
      assert.equal((await names()).filter((n) => n.toLowerCase() === 'board papers').length, 1);
      const ls = JSON.parse((await cli(['ls', '/BOARD PAPERS', '--json'], home.env)).stdout);
      assert.deepEqual(
        ls.folders.map((f: { name: string }) => f.name),
        ['Minutes 2025'],
      );
    });

    it('uploads a folder tree mirrored as folders, and a re-run sends nothing', async () => {
      const tree = join(home.dir, 'tree');
      await writeTree(tree, {
        'policy.txt': POLICY,
        'reports/2025/q1.txt': 'Quarter one revenue grew.',
        'reports/invoice.pdf': tinyPdf('Invoice 7'),
        '.hidden': 'x',
      });
      const first = await cli(['upload', tree, '--to', '/Archive', '--json', '--tags', 'imported'], home.env);
      assert.equal(first.code, 0, first.stderr);
      const summary = JSON.parse(first.stdout);
      assert.deepEqual([summary.uploaded, summary.skipped, summary.failed], [3, 0, 0]);

      const ls = JSON.parse((await cli(['ls', '/Archive/tree/reports', '--json'], home.env)).stdout);
      assert.deepEqual(
        ls.folders.map((f: { name: string }) => f.name),
        ['2025'],
      );
      assert.deepEqual(
        ls.documents.map((d: { filename: string }) => d.filename),
        ['invoice.pdf'],
      );
      assert.deepEqual(ls.documents[0].tags, ['imported']);

      const proxy = await faultProxy(base);
      try {
        const again = await cli(['upload', tree, '--to', '/Archive', '--json'], {
          ...home.env,
          DOCUVAULT_URL: proxy.url,
        });
        assert.equal(again.code, 0, again.stderr);
        assert.deepEqual(JSON.parse(again.stdout).skipped, 3);
        assert.equal(proxy.seen.filter((r) => r.url.includes('/upload')).length, 0);
      } finally {
        await proxy.close();
      }
    });

    it('resumes a killed upload without sending any file twice', async () => {
      const many = join(home.dir, 'many');
      const files: Record<string, string> = {};
      for (let i = 0; i < 40; i++)
        files[`note-${String(i).padStart(2, '0')}.txt`] = `Note number ${i}: ${'words '.repeat(40)}`;
      await writeTree(many, files);
      const run = startCli(['upload', many, '--to', '/Notes', '--concurrency', '1', '--no-ai'], home.env);
      await waitFor(
        async () => (await sdk.call('listDocuments', { query: { search: 'note-' } })).total >= 5,
        'first uploads',
        30_000,
      );
      run.child.kill('SIGKILL');
      await run.done;
      const arrived = (await sdk.call('listDocuments', { query: { search: 'note-', page_size: 100 } })).total;
      assert.ok(arrived < 40, 'the kill came before the end');

      const proxy = await faultProxy(base);
      try {
        const rerun = await cli(['upload', many, '--to', '/Notes', '--concurrency', '4', '--no-ai', '--json'], {
          ...home.env,
          DOCUVAULT_URL: proxy.url,
        });
        assert.equal(rerun.code, 0, rerun.stderr || rerun.stdout);
        const summary = JSON.parse(rerun.stdout);
        assert.equal(summary.uploaded + summary.skipped, 40);
        assert.equal(proxy.seen.filter((r) => r.url.endsWith('/documents/upload')).length, summary.uploaded);
        assert.ok(summary.uploaded <= 40 - arrived);
      } finally {
        await proxy.close();
      }
      const names = (await sdk.call('listDocuments', { query: { search: 'note-', limit: 100 } })).data.map(
        (d) => d.filename,
      );
      assert.equal(names.length, 40);
      assert.equal(new Set(names).size, 40);
    });

    it('reports rejected files and exits 1, having uploaded the rest', async () => {
      const mixed = join(home.dir, 'mixed');
      await writeTree(mixed, { 'good.txt': 'fine text', 'fake.pdf': 'not a pdf at all' });
      const res = await cli(['upload', mixed, '--to', '/Mixed'], home.env);
      assert.equal(res.code, 1);
      assert.match(res.stdout, /failed: .*fake\.pdf: .*\(INVALID_FILE_TYPE\)/);
      assert.match(res.stdout, /1 uploaded, 0 already there, 1 failed/);
    });

    it('gets, downloads, searches and asks', async () => {
      const [doc] = (await sdk.call('listDocuments', { query: { search: 'policy.txt' } })).data;
      assert.ok(doc);
      await sdk.documents.waitUntilProcessed(doc.id, { timeoutMs: 30_000 });
      const got = await cli(['get', doc.id, '--json'], home.env);
      assert.equal(JSON.parse(got.stdout).filename, 'policy.txt');
      assert.match((await cli(['get', doc.id], home.env)).stdout, /status: completed/);

      const target = join(home.dir, 'out.txt');
      const saved = await cli(['download', doc.id, '-o', target], home.env);
      assert.equal(saved.code, 0, saved.stderr);
      assert.equal(await readFile(target, 'utf8'), POLICY);
      assert.equal((await cli(['download', doc.id, '-o', '-'], home.env)).stdout, POLICY);

      const found = JSON.parse((await cli(['search', 'hotel', '--mode', 'text', '--json'], home.env)).stdout);
      assert.equal(found.results[0].document.id, doc.id);
      const human = (await cli(['search', 'hotel', '--mode', 'text'], home.env)).stdout;
      assert.match(human, /policy\.txt/);
      assert.match(human, /Hotel stays/);
      assert.doesNotMatch(human, /<\/?mark>/, 'piped output shows no tags');
      assert.ok(!human.includes('\u001b['), 'nor terminal escapes');
      assert.equal((await cli(['search', 'x', '--mode', 'fuzzy'], home.env)).code, 2);

      const answer = await cli(['ask', doc.id, 'How much is a hotel night in Paris?'], home.env);
      assert.equal(answer.code, 0, answer.stderr);
      assert.match(answer.stdout, /\[1\]/);
      const asJson = JSON.parse((await cli(['ask', doc.id, 'Hotel in Paris?', '--json'], home.env)).stdout);
      assert.ok(asJson.citations.length > 0);
    });

    it('lists webhooks, sends a test and shows the delivery log', async () => {
      const hook = await sdk.call('createWebhook', {
        body: { url: 'https://127.0.0.1:9/hook', events: ['document.uploaded'] },
      });
      const list = JSON.parse((await cli(['webhooks', '--json'], home.env)).stdout);
      assert.deepEqual(
        list.map((h: { id: string }) => h.id),
        [hook.id],
      );
      assert.equal((await cli(['webhooks', 'test', hook.id], home.env)).code, 0);
      const deliveries = JSON.parse((await cli(['webhooks', 'deliveries', hook.id, '--json'], home.env)).stdout);
      assert.ok(deliveries.data.some((d: { event: string }) => d.event === 'webhook.test'));
      assert.equal((await cli(['webhooks', 'redeliver', hook.id], home.env)).code, 2);
    });

    it('another tenant\'s credentials get "not found" for this tenant\'s document', async () => {
      const other = await createTenant(ctx());
      const [doc] = (await sdk.call('listDocuments')).data;
      assert.ok(doc);
      const res = await cli(['get', doc.id], { ...home.env, DOCUVAULT_API_KEY: other.apiKey });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /NOT_FOUND, HTTP 404/);
      assert.equal(
        (await cli(['download', doc.id, '-o', '-'], { ...home.env, DOCUVAULT_API_KEY: other.apiKey })).code,
        1,
      );
    });

    it('logs a user in with the password on stdin and keeps the refreshed tokens', async () => {
      const userHome = await cliHome();
      const res = await cli(
        ['login', '--url', base, '--tenant', tenant.subdomain, '--email', tenant.ownerEmail, '--password-stdin'],
        userHome.env,
        `${tenant.ownerPassword}\n`,
      );
      assert.equal(res.code, 0, res.stderr);
      const file = userHome.env.DOCUVAULT_CONFIG as string;
      const config = JSON.parse(await readFile(file, 'utf8'));
      assert.ok(config.tokens.refreshToken);
      // Force the access token to look expired: the next command refreshes it and saves the new pair.
      await writeTree(join(file, '..'), {
        'config.json': JSON.stringify({ ...config, tokens: { ...config.tokens, expiresAt: 0 } }),
      });
      const ls = await cli(['ls', '/Archive', '--json'], userHome.env);
      assert.equal(ls.code, 0, ls.stderr);
      const after = JSON.parse(await readFile(file, 'utf8'));
      assert.notEqual(after.tokens.refreshToken, config.tokens.refreshToken);
      assert.equal((await cli(['logout'], userHome.env)).code, 0);
      assert.equal((await cli(['ls'], userHome.env)).code, 2);
    });

    it('tasks: lists and decides human tasks', async () => {
      const workflow = await sdk.request<{ id: string }>('POST', '/api/v1/dag/workflows', {
        body: {
          name: 'Needs a yes',
          nodes: [
            {
              id: 'ok',
              type: 'human_approval',
              timeout_hours: 1,
              config: { assignee_type: 'role', assignee_value: 'admin', title: 'Approve the CLI test' },
            },
          ],
        },
      });
      await sdk.request('POST', `/api/v1/dag/workflows/${workflow.id}/execute`, { body: { trigger_data: {} } });
      // Waits through the SDK (a CLI process per poll cost a process start each), then lists once with the CLI.
      await waitFor(
        async () =>
          (await sdk.request<{ data: { title: string }[] }>('GET', '/api/v1/dag/tasks')).data.some(
            (t) => t.title === 'Approve the CLI test',
          ),
        'the task in the inbox',
        20_000,
      );
      const listed = await cli(['tasks', '--json'], home.env);
      assert.equal(listed.code, 0, listed.stderr);
      const task = (JSON.parse(listed.stdout).data as { id: string; title: string }[]).find(
        (t) => t.title === 'Approve the CLI test',
      );
      assert.ok(task, listed.stdout);
      const decided = await cli(['tasks', 'approve', task.id, '--comment', 'fine by me', '--json'], home.env);
      assert.equal(decided.code, 0, decided.stderr);
      assert.equal(JSON.parse(decided.stdout).decision, 'approved');
      const again = await cli(['tasks', 'approve', task.id], home.env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /TASK_ALREADY_COMPLETED/);
    });
  },
  { worker: true, env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' } },
);
