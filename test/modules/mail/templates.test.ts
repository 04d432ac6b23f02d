import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ConfigError, loadConfig } from '../../../src/config/config.ts';
import { headerText, isMailAddress, parseMailbox } from '../../../src/lib/mail-headers.ts';
import { crossedThresholds } from '../../../src/modules/credits/credits.service.ts';
import { MAIL_KINDS, MAIL_TEMPLATES, type MailData } from '../../../src/modules/mail/templates/catalogue.ts';
import { renderLayout } from '../../../src/modules/mail/templates/layout.ts';
import { MailLinks } from '../../../src/modules/mail/templates/links.ts';
import { smtpOptions } from '../../../src/providers/mail/smtp-transport.ts';

const links = new MailLinks({ publicBaseUrl: 'https://docs.example.test', host: '127.0.0.1', port: 8080 });
const at = Date.UTC(2026, 10, 30, 12, 0);
const task = { taskId: 'tsk_1', title: 'Approve', description: 'Check it', owner: 'Workflow "W"', dueAt: at };
const password = { token: 'prt_x', subdomain: 'acme', email: 'a@example.com', expiresAt: at };
/** One example of each kind's data. */
const EXAMPLES: MailData = {
  invitation: password,
  password_reset: password,
  email_changed: { oldEmail: 'old@example.com', newEmail: 'new@example.com', recipient: 'old' },
  task_assigned: task,
  task_escalated: task,
  task_expiring: task,
  workflow_failed: { workflowName: 'W', executionId: 'exe_1', failedNodeId: 'n', error: 'boom' },
  workflow_notification: { subject: 'S', message: 'M' },
  storage_migration_completed: {
    migrationId: 'mig_1',
    source: 'shared',
    target: 'customer',
    status: 'completed',
    migratedFiles: 3,
    totalFiles: 3,
    failedFiles: 0,
  },
  subscription_changed: { fromTier: 'free', toTier: 'pro', reason: 'checkout' },
  usage_threshold: { percent: 80, used: 80, limit: 100, period: '2026-11' },
};

describe('mail templates', () => {
  for (const kind of MAIL_KINDS) {
    it(`${kind}: a subject, a text and an HTML part naming the tenant, the footer of its category`, () => {
      const template = MAIL_TEMPLATES[kind] as (typeof MAIL_TEMPLATES)['invitation'];
      const content = template.render(EXAMPLES[kind] as MailData['invitation'], {
        tenantName: 'Acme <Corp>',
        recipientName: 'Ada',
        links,
      });
      const { text, html } = renderLayout(content, {
        tenantName: 'Acme <Corp>',
        category: template.category,
        profileUrl: links.profile(),
      });
      assert.ok(content.subject.length > 0);
      assert.match(text, /^Hello Ada,/);
      assert.match(text, /Acme <Corp>/);
      assert.match(html, /Acme &#60;Corp&#62;/);
      assert.doesNotMatch(html, /Acme <Corp>/, 'people’s text is escaped in HTML');
      if (template.category === 'security')
        assert.match(text, /security message about your account: it is always sent/);
      else
        assert.match(
          text,
          /Notification mail can be turned off in your profile: https:\/\/docs\.example\.test\/console\/#\/profile/,
        );
    });
  }

  it('security mail is exactly invitations, password resets and e-mail changes', () => {
    assert.deepEqual(MAIL_KINDS.filter((k) => MAIL_TEMPLATES[k].category === 'security').sort(), [
      'email_changed',
      'invitation',
      'password_reset',
    ]);
  });

  it('links go into the console; without PUBLIC_BASE_URL, to the address the service listens on', () => {
    assert.equal(
      links.password('prt_a', 'acme', 'a+b@example.com'),
      'https://docs.example.test/console/#/password?token=prt_a&tenant=acme&email=a%2Bb%40example.com',
    );
    assert.equal(links.execution('exe 1'), 'https://docs.example.test/console/#/executions/exe%201');
    assert.equal(
      new MailLinks({ publicBaseUrl: null, host: '0.0.0.0', port: 9000 }).tasks(),
      'http://localhost:9000/console/#/tasks',
    );
  });
});

describe('mail headers', () => {
  it('headerText makes one line of anything', () => {
    assert.equal(headerText('a\r\nBcc: x@y.z\u2028b\u0085c\td'), 'a Bcc: x@y.z b c d');
    assert.equal(headerText('x'.repeat(10), 5), 'xxxx…');
  });

  it('isMailAddress takes one plain address only', () => {
    for (const ok of ['a@example.com', 'first.last+tag@sub.example.co']) assert.equal(isMailAddress(ok), true, ok);
    for (const bad of [
      'a@example.com, b@example.com',
      'A <a@example.com>',
      'a@example.com\r\nBcc: b@x.y',
      'a@localhost',
      'a b@example.com',
      'a@example.com;b@example.com',
      '',
    ]) {
      assert.equal(isMailAddress(bad), false, bad);
    }
  });

  it('parseMailbox reads MAIL_FROM', () => {
    assert.deepEqual(parseMailbox('Acme Docs <docs@acme.example>'), {
      name: 'Acme Docs',
      address: 'docs@acme.example',
    });
    assert.deepEqual(parseMailbox('"Acme, Inc." <docs@acme.example>'), {
      name: 'Acme, Inc.',
      address: 'docs@acme.example',
    });
    assert.deepEqual(parseMailbox('docs@acme.example'), { name: null, address: 'docs@acme.example' });
    assert.equal(parseMailbox('Acme <not an address>'), null);
  });
});

describe('AI credit thresholds', () => {
  it('80 % when the used share reaches it; 100 % when the cheapest operation no longer fits', () => {
    assert.deepEqual(crossedThresholds(79.5, 80, 100), [80]);
    assert.deepEqual(crossedThresholds(80, 80.5, 100), []);
    assert.deepEqual(crossedThresholds(99, 99.5, 100), []);
    assert.deepEqual(crossedThresholds(99.5, 100, 100), [100]);
    assert.deepEqual(crossedThresholds(79, 100, 100), [80, 100]);
  });
});

describe('mail configuration', () => {
  it('defaults: no SMTP, a sender at the public host, a retry schedule of about 16 hours', () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://docs.acme.example/' });
    assert.equal(config.mail.smtpUrl, null);
    assert.deepEqual(config.mail.from, { name: 'DocuVault', address: 'noreply@docs.acme.example' });
    assert.equal(config.mail.retryDelaysMs.length, 8);
    assert.deepEqual(
      loadConfig({ PUBLIC_BASE_URL: 'http://localhost:8080' }).mail.from.address,
      'noreply@docuvault.localhost',
    );
  });

  it('SMTP_URL needs MAIL_FROM; both are checked', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    assert.match(problems({ SMTP_URL: 'smtp://relay.example:587' }).join('\n'), /SMTP_URL needs MAIL_FROM/);
    assert.match(
      problems({ SMTP_URL: 'http://relay.example', MAIL_FROM: 'a@b.example' }).join('\n'),
      /SMTP_URL must be a smtp: or smtps: URL/,
    );
    assert.match(problems({ MAIL_FROM: 'nobody' }).join('\n'), /MAIL_FROM must be an address/);
    assert.match(problems({ MAIL_RETRY_DELAYS: 'soon' }).join('\n'), /MAIL_RETRY_DELAYS/);
    assert.deepEqual(problems({ SMTP_URL: 'smtps://u:p@relay.example', MAIL_FROM: 'Acme <docs@acme.example>' }), []);
  });

  it('SMTP_URL becomes pooled Nodemailer options: STARTTLS on 587, TLS on 465, decoded credentials, requireTLS', () => {
    const starttls = smtpOptions({ url: 'smtp://apikey:s%2Fecret%40@smtp.relay.example:2525?requireTLS=true' });
    assert.deepEqual(
      [starttls.host, starttls.port, starttls.secure, starttls.requireTLS, starttls.auth, starttls.pool],
      ['smtp.relay.example', 2525, false, true, { user: 'apikey', pass: 's/ecret@' }, true],
    );
    const tls = smtpOptions({
      url: 'smtps://relay.example',
      extraCa: ['-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n'],
    });
    assert.deepEqual([tls.port, tls.secure, tls.auth, tls.requireTLS], [465, true, undefined, false]);
    assert.ok(Array.isArray(tls.tls?.ca) && tls.tls.ca.length > 1, 'the extra CA is added to Node’s own store');
    assert.equal(smtpOptions({ url: 'smtp://relay.example' }).port, 587);
  });
});
