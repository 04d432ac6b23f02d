import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactSecrets } from '../../src/lib/log-redaction.ts';
import { MODULES } from '../../src/modules.ts';
import { tokenFromMailBody } from '../../src/modules/identity/auth/password-tokens.ts';
import { defineModule } from '../../src/platform/module.ts';
import { createOutboundHttp } from '../../src/providers/outbound/outbound-http.ts';
import { waitFor } from '../jobs/helpers.ts';
import { ADMIN_KEY, describeEachDialect } from '../support/app.ts';
import { assertError, createTenant, lastMailTo, loginAs } from '../support/fixtures.ts';

// The calling-out module declares its kind as every module does.
declare module '../../src/jobs/job-types.ts' {
  interface JobPayloads {
    'calling-out.fetch': { url: string };
  }
}

describe('redactSecrets', () => {
  it('drops credential values from query strings, JSON fields, URLs, Authorization values and the service’s token formats', () => {
    const cases: [string, string][] = [
      ['GET /api/v1/documents?api_key=ak_live_x&page=2', 'GET /api/v1/documents?api_key=[REDACTED]&page=2'],
      ['/x?page=1&ACCESS_TOKEN=abc.def#frag', '/x?page=1&ACCESS_TOKEN=[REDACTED]#frag'],
      [
        'https://b.s3/k?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=beef',
        'https://b.s3/k?X-Amz-Credential=[REDACTED]&X-Amz-Signature=[REDACTED]',
      ],
      ['cb?code=4%2F0Ad&state=s;key=k', 'cb?code=[REDACTED]&state=s;key=[REDACTED]'],
      ['next=https%3A%2F%2Fh%2Fp%3Ftoken%3Dabc%26a%3D1', 'next=https%3A%2F%2Fh%2Fp%3Ftoken%3D[REDACTED]%26a%3D1'],
      [
        '{"headers":{"authorization":"Bearer x","X-Api-Key":"k","cookie":"sid=1","set-cookie":["a=1","b=2"]}}',
        '{"headers":{"authorization":"[REDACTED]","X-Api-Key":"[REDACTED]","cookie":"[REDACTED]","set-cookie":"[REDACTED]"}}',
      ],
      ['{"password":"p\\"q","secret":"s","secrets":3}', '{"password":"[REDACTED]","secret":"[REDACTED]","secrets":3}'],
      ['connect postgres://app:pa55@db:5432/x failed', 'connect postgres://[REDACTED]@db:5432/x failed'],
      ['sent Bearer abcdef123456 and Basic dXNlcjpwYXNz', 'sent Bearer [REDACTED] and Basic [REDACTED]'],
      [
        'key ak_test_0123456789abcdef0123 rt_0123456789abcdefghij whsec_0123456789abcdefghij',
        'key ak_test_[REDACTED] rt_[REDACTED] whsec_[REDACTED]',
      ],
      ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlLXZhbHVl end', 'jwt [REDACTED] end'],
    ];
    for (const [input, expected] of cases) assert.equal(redactSecrets(input), expected, input);
  });

  it('leaves lines without credentials as they are', () => {
    const line =
      '{"level":30,"reqId":"r1","req":{"method":"GET","url":"/api/v1/documents?page=2&monkey=1&tokens=3"},"msg":"incoming request"}';
    assert.equal(redactSecrets(line), line);
  });
});

/** Secrets the flows below create or send; none may appear in the captured log. */
const secrets = new Set<string>();
const keep = (...values: (string | null | undefined)[]) => {
  for (const v of values) if (v) secrets.add(v);
};
const lines: string[] = [];
const QUERY_SECRET = 'query-secret-4f9a1c';
const FAILING_URL = `http://127.0.0.1:1/bucket/object?X-Amz-Signature=${QUERY_SECRET}-sig&api_key=${QUERY_SECRET}-key`;

// A job that calls out and fails, as an SDK call with a pre-signed URL would: the worker logs it.
const callingOut = defineModule({
  name: 'calling-out',
  setup() {
    const http = createOutboundHttp({ allowPrivateNetwork: true });
    return {
      jobs: [
        {
          kind: 'calling-out.fetch',
          handler: async (job) => {
            const { url } = job.payload;
            try {
              await http.request({ url, timeoutMs: 2_000 });
            } catch (error) {
              throw new Error(`GET ${url} failed`, { cause: error });
            }
          },
        },
      ],
      close: () => http.close(),
    };
  },
});

describeEachDialect(
  'no secret reaches the log (issue 26 item 6)',
  (ctx) => {
    it('runs sign-up, sign-in, keys, tokens, webhooks, resets, refused query credentials and a failing outbound job, and logs none of their secrets', async () => {
      const t = ctx();
      const inject = t.app.inject.bind(t.app);
      keep(ADMIN_KEY);

      // Sign-up and an administrator-created tenant.
      const registered = await inject({
        method: 'POST',
        url: '/api/v1/auth/register',
        payload: {
          tenant_name: 'Logged',
          subdomain: `logged-${process.pid}-${Date.now() % 100000}`,
          email: 'founder@example.com',
          password: 'founder password 1',
          name: 'F',
        },
      });
      assert.equal(registered.statusCode, 201, registered.body);
      keep(
        'founder password 1',
        registered.json().access_token,
        registered.json().refresh_token,
        registered.json().csrf_token,
      );
      const tenant = await createTenant(t, { tier: 'team' });
      keep(tenant.ownerPassword, tenant.apiKey, tenant.testApiKey);

      // Sign-in, refresh, a failed sign-in and a wrong current password.
      const user = await loginAs(t, tenant, 'admin', { password: 'admin password 12' });
      keep(user.password, user.accessToken, user.refreshToken, user.csrfToken);
      const refreshed = await inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        payload: { refresh_token: user.refreshToken },
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      keep(refreshed.json().access_token, refreshed.json().refresh_token);
      assertError(
        await inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          headers: { 'x-tenant-subdomain': tenant.subdomain },
          payload: { email: user.email, password: 'a wrong guess 77' },
        }),
        401,
        'unauthorized',
      );
      keep('a wrong guess 77');
      const headers = { ...user.headers, authorization: `Bearer ${refreshed.json().access_token}` };
      const changed = await inject({
        method: 'POST',
        url: '/api/v1/auth/password/change',
        headers,
        payload: { current_password: 'not the password 9', new_password: 'never set 1234' },
      });
      assertError(changed, 400, 'validation_error');
      keep('not the password 9', 'never set 1234');

      // API keys: created, rotated.
      const created = await inject({
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: tenant.headers,
        payload: { name: 'ci' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const createdKey = created.json();
      keep(createdKey.key);
      const rotated = await inject({
        method: 'POST',
        url: `/api/v1/api-keys/${createdKey.id}/rotate`,
        headers: tenant.headers,
        payload: { grace_seconds: 0 },
      });
      assert.equal(rotated.statusCode, 200, rotated.body);
      keep(rotated.json().key);

      // Webhooks: a secret of our own and a generated one.
      const ownSecret = 'whook-own-secret-5b2e9d01';
      for (const secret of [ownSecret, undefined]) {
        const hook = await inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers: tenant.headers,
          payload: {
            url: 'https://hooks.example.com/in?token=hook-url-token-81',
            events: ['document.uploaded'],
            ...(secret ? { secret } : {}),
          },
        });
        assert.equal(hook.statusCode, 201, hook.body);
        keep(hook.json().secret, 'hook-url-token-81');
      }

      // A password reset through the mail outbox.
      await inject({
        method: 'POST',
        url: '/api/v1/auth/password/forgot',
        headers: { 'x-tenant-subdomain': tenant.subdomain },
        payload: { email: user.email },
      });
      const resetToken = tokenFromMailBody((await lastMailTo(t, tenant, user.email))!.body);
      keep(resetToken, 'reset password 5678');
      const reset = await inject({
        method: 'POST',
        url: '/api/v1/auth/password/reset',
        payload: { token: resetToken, new_password: 'reset password 5678' },
      });
      assert.equal(reset.statusCode, 200, reset.body);

      // Credentials in query strings, refused (the contract takes them in headers only) but logged.
      for (const url of [
        `/api/v1/documents?api_key=${tenant.apiKey}`,
        `/api/v1/documents?page=1&access_token=${refreshed.json().access_token}`,
        `/api/v1/users?token=${user.refreshToken}&secret=${ownSecret}`,
        `/sandbox/api/v1/documents?key=${tenant.testApiKey}`,
      ]) {
        const res = await inject({ method: 'GET', url, headers: { cookie: `session=${user.refreshToken}` } });
        assert.equal(res.statusCode, 401, `${url}: ${res.body}`);
      }
      // Credentials in headers that fail authentication.
      assertError(
        await inject({ method: 'GET', url: '/api/v1/documents', headers: { 'x-api-key': `${tenant.apiKey}x` } }),
        401,
        'invalid_api_key',
      );
      keep(`${tenant.apiKey}x`);

      // A job calling out with credentials in its URL fails, and the worker logs the failure.
      const job = await t.container.database.db
        .transaction()
        .execute((trx) => t.container.jobs.enqueue(trx, 'calling-out.fetch', { url: FAILING_URL }, { maxAttempts: 1 }));
      keep(`${QUERY_SECRET}-sig`, `${QUERY_SECRET}-key`);
      await waitFor(
        () => lines.some((l) => l.includes('job failed') && l.includes(job.id)),
        'the failed job in the log',
      );

      const log = lines.join('');
      // The log is real: requests, the refused query strings and the job failure are in it.
      assert.match(log, /incoming request/);
      assert.match(log, /"url":"\/api\/v1\/documents\?api_key=\[REDACTED\]"/);
      assert.match(log, /127\.0\.0\.1:1\/bucket\/object\?X-Amz-Signature=\[REDACTED\]&api_key=\[REDACTED\]/);
      const leaked = [...secrets].filter((s) => s.length >= 8 && log.includes(s));
      assert.deepEqual(leaked, [], `secrets in the log:\n${leaked.join('\n')}`);
      assert.ok(secrets.size >= 20, `only ${secrets.size} secrets checked`);
    });
  },
  {
    worker: true,
    modules: [...MODULES, callingOut],
    logDestination: { write: (line: string) => void lines.push(line) },
  },
);
