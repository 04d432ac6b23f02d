import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { DialectName } from '../../../src/db/database.ts';
import { DIALECTS, startTestApp, type TestApp } from '../../support/app.ts';
import { startSmtpServer, type TestSmtpServer } from '../../support/smtp-server.ts';

export const MAIL_FROM = 'Docs Service <docs@mail.example.test>';
export const PUBLIC_BASE_URL = 'https://docs.example.test';

/**
 * Declares `body` once per dialect against a real SMTP server started first (its port goes into
 * SMTP_URL), with a worker running. `env` adds to (or, given a function, replaces parts of) the
 * mail settings: by default STARTTLS is required and the server's certificate is trusted through
 * OUTBOUND_EXTRA_CA_FILE.
 */
export function describeWithSmtp(
  name: string,
  body: (ctx: () => { t: TestApp; smtp: TestSmtpServer }, dialect: DialectName) => void,
  env: (smtp: TestSmtpServer) => Record<string, string> = () => ({}),
): void {
  for (const dialect of DIALECTS) {
    describe(`${name} [${dialect}]`, () => {
      let t: TestApp | undefined;
      let smtp: TestSmtpServer | undefined;
      before(async () => {
        smtp = await startSmtpServer();
        t = await startTestApp(dialect, {
          worker: true,
          env: {
            SMTP_URL: `${smtp.url}?requireTLS=true`,
            MAIL_FROM,
            OUTBOUND_EXTRA_CA_FILE: smtp.caFile,
            PUBLIC_BASE_URL,
            MAIL_RETRY_DELAYS: '0.3,0.3,0.3',
            ...env(smtp),
          },
        });
      });
      after(async () => {
        await t?.close();
        await smtp?.close();
      });
      body(() => {
        assert.ok(t && smtp, 'test app not started');
        return { t, smtp };
      }, dialect);
    });
  }
}

/** The administrator's view of the mail to an address (newest first), polled until `until` holds. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
export async function adminMailTo(
  t: TestApp,
  to: string,
  until: (mail: any) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.admin({ method: 'GET', url: '/api/v1/admin/mail?page_size=100' });
    assert.equal(res.statusCode, 200, res.body);
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    const mail = res.json().data.find((m: any) => m.to === to);
    if (mail && until(mail)) return mail;
    if (Date.now() > deadline)
      throw new Error(`mail to ${to} not as expected within ${timeoutMs} ms: ${JSON.stringify(mail)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The console link of a mail's text part (the first `https://docs.example.test/console/...`). */
export function consoleLink(text: string): URL {
  const match = /https:\/\/docs\.example\.test\/console\/\S+/.exec(text);
  assert.ok(match, `no console link in:\n${text}`);
  return new URL(match[0]);
}

/** The token, tenant and e-mail of a password link (`/console/#/password?token=...`). */
export function passwordLink(text: string): { token: string; tenant: string; email: string } {
  const link = consoleLink(text);
  assert.match(link.hash, /^#\/password\?/);
  const query = new URLSearchParams(link.hash.slice('#/password?'.length));
  return { token: query.get('token') ?? '', tenant: query.get('tenant') ?? '', email: query.get('email') ?? '' };
}
