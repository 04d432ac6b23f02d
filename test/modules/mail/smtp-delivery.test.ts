import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createTenant } from '../../support/fixtures.ts';
import { SMTP_USER } from '../../support/smtp-server.ts';
import { adminMailTo, consoleLink, describeWithSmtp, passwordLink } from './helpers.ts';
import { testSeam } from '../../support/test-seams.ts';

// Issue 30: mail reaches a real SMTP server (smtp-server, started here) over STARTTLS with a
// self-signed certificate trusted through OUTBOUND_EXTRA_CA_FILE, authenticated, and what it
// carries works: the invitation's link lets the user choose a password and sign in.

describeWithSmtp('mail over SMTP', (ctx) => {
  it('an invitation arrives over STARTTLS, from the tenant, with a console link that lets the user sign in', async () => {
    const { t, smtp } = ctx();
    const tenant = await createTenant(t, { name: 'Acme Legal' });
    const invited = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: { email: 'ada@example.com', name: 'Ada Lovelace' },
    });
    assert.equal(invited.statusCode, 201, invited.body);
    assert.ok(['pending', 'sending', 'sent'].includes(invited.json().invitation.status), invited.body);

    const health = (await t.app.inject({ method: 'GET', url: '/health' })).json();
    assert.deepEqual(
      health.capabilities.mail,
      { configured: true, transport: 'smtp', tls: 'starttls' },
      'configured, without the relay’s address or credentials',
    );

    const mail = await smtp.waitFor('ada@example.com');
    assert.equal(mail.secure, true, 'the session was upgraded with STARTTLS before the message');
    assert.equal(mail.user, SMTP_USER, 'the relay credentials of SMTP_URL were used');
    assert.deepEqual(mail.envelope, { from: 'docs@mail.example.test', to: ['ada@example.com'] });
    assert.deepEqual(
      mail.parsed.from?.value,
      [{ address: 'docs@mail.example.test', name: 'Acme Legal' }],
      'the tenant is the sender name',
    );
    assert.equal(mail.parsed.subject, 'You are invited to Acme Legal on DocuVault');
    assert.match(mail.parsed.text ?? '', /^Hello Ada Lovelace,/);
    assert.match(mail.parsed.text ?? '', /Acme Legal invited you/);
    assert.match(String(mail.parsed.html), /Acme Legal invited you/);

    const link = passwordLink(mail.parsed.text ?? '');
    assert.deepEqual(
      { tenant: link.tenant, email: link.email },
      { tenant: tenant.subdomain, email: 'ada@example.com' },
    );
    assert.ok(
      String(mail.parsed.html).includes(consoleLink(mail.parsed.text ?? '').href.replaceAll('&', '&#38;')),
      'the HTML part carries the same link',
    );

    const state = await adminMailTo(t, 'ada@example.com', (m) => m.status === 'sent');
    assert.match(state.server_response, /^250/);
    const user = await t.app.inject({
      method: 'GET',
      url: `/api/v1/users/${invited.json().id}`,
      headers: tenant.headers,
    });
    assert.equal(user.json().invitation.status, 'sent', user.body);

    const set = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password/reset',
      payload: { token: link.token, new_password: 'first password 1' },
    });
    assert.equal(set.statusCode, 200, set.body);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': link.tenant },
      payload: { email: link.email, password: 'first password 1' },
    });
    assert.equal(login.statusCode, 200, login.body);
    const after = await t.app.inject({
      method: 'GET',
      url: `/api/v1/users/${invited.json().id}`,
      headers: tenant.headers,
    });
    assert.equal(after.json().invitation, null, 'no open invitation once a password is chosen');
  });

  it('a password reset arrives and its link works once', async () => {
    const { t, smtp } = ctx();
    const tenant = await createTenant(t);
    const asked = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password/forgot',
      headers: { 'x-tenant-subdomain': tenant.subdomain },
      payload: { email: tenant.ownerEmail },
    });
    assert.equal(asked.statusCode, 202);
    const mail = await smtp.waitFor(tenant.ownerEmail);
    assert.match(mail.parsed.subject ?? '', /^Reset your .* password$/);
    const { token } = passwordLink(mail.parsed.text ?? '');
    const reset = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password/reset',
      payload: { token, new_password: 'a brand new one 2' },
    });
    assert.equal(reset.statusCode, 200, reset.body);
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/password/reset',
      payload: { token, new_password: 'and another one 3' },
    });
    assert.equal(again.statusCode, 400, again.body);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': tenant.subdomain },
      payload: { email: tenant.ownerEmail, password: 'a brand new one 2' },
    });
    assert.equal(login.statusCode, 200, login.body);
    // Sent security mail keeps no body in the outbox: the token was single-use, and now it is gone from the database too.
    const [row] = await testSeam(t.container, 'mailOutbox').listTo(
      t.container.database.db,
      tenant.tenantId,
      tenant.ownerEmail,
    );
    assert.equal(row?.status, 'sent');
    assert.equal(row?.body, '');
    assert.equal(row?.html, null);
  });

  it('a 550 marks the mail failed with the server’s answer, the request is not affected, and the invitation shows it', async () => {
    const { t, smtp } = ctx();
    const tenant = await createTenant(t);
    smtp.refuse('nobody-here@example.com');
    const invited = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: { email: 'nobody-here@example.com', name: 'Nobody' },
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const failed = await adminMailTo(t, 'nobody-here@example.com', (m) => m.status === 'failed');
    assert.equal(failed.attempts, 1, 'a refusal for good is not retried');
    assert.match(failed.last_error, /550/);
    assert.match(failed.last_error, /user unknown/);
    const user = await t.app.inject({
      method: 'GET',
      url: `/api/v1/users/${invited.json().id}`,
      headers: tenant.headers,
    });
    assert.equal(user.json().invitation.status, 'failed');
    assert.match(user.json().invitation.last_error, /550 .*user unknown/);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /mail_failed_total\{kind="invitation",outcome="failed"\} [1-9]/);
    assert.match(metrics.body, /mail_sent_total\{kind="[a-z_]+",transport="smtp"\} [1-9]/);
  });

  it('with the relay down the request answers at once; the mail waits, is retried, and arrives once it is back', async () => {
    const { t, smtp } = ctx();
    const tenant = await createTenant(t);
    await smtp.stop();
    try {
      const started = Date.now();
      const invited = await t.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: tenant.headers,
        payload: { email: 'patient@example.com', name: 'Patient' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      assert.ok(Date.now() - started < 5_000, 'the request does not wait for the relay');
      const waiting = await adminMailTo(t, 'patient@example.com', (m) => m.status === 'retrying');
      assert.match(waiting.last_error, /ECONNREFUSED|ESOCKET|ECONNECTION/);
      assert.ok(waiting.next_attempt_at, 'the next try is scheduled');
    } finally {
      await smtp.start();
    }
    const mail = await smtp.waitFor('patient@example.com');
    assert.equal(mail.parsed.subject?.startsWith('You are invited'), true);
    const sent = await adminMailTo(t, 'patient@example.com', (m) => m.status === 'sent');
    assert.ok(sent.attempts >= 2, `tried ${sent.attempts} times`);
    assert.equal(sent.last_error, null);
  });

  it('after the last retry the mail is dead; an administrator sends it again once the relay is back', async () => {
    const { t, smtp } = ctx();
    const tenant = await createTenant(t);
    await smtp.stop();
    try {
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: tenant.headers,
        payload: { email: 'late@example.com', name: 'Late' },
      });
      const dead = await adminMailTo(t, 'late@example.com', (m) => m.status === 'dead', 15_000);
      assert.equal(dead.attempts, 4, 'the first try and the three of MAIL_RETRY_DELAYS');
      assert.match(dead.last_error, /gave up after 4 tries/);
    } finally {
      await smtp.start();
    }
    const dead = await adminMailTo(t, 'late@example.com');
    const retried = await t.admin({ method: 'POST', url: `/api/v1/admin/mail/${dead.id}/retry` });
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.json().status, 'pending');
    assert.equal(retried.json().attempts, 0);
    await smtp.waitFor('late@example.com');
    await adminMailTo(t, 'late@example.com', (m) => m.status === 'sent');
  });

  it('line breaks in names, sender names and subjects cannot add headers or recipients', async () => {
    const { t, smtp } = ctx();
    const tenant = await createTenant(t, { name: 'Injected\r\nBcc: tenant-spy@evil.example' });
    const sender = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/mail/settings',
      headers: tenant.headers,
      payload: { sender_name: 'Acme\r\nBcc: sender-spy@evil.example\r\nX-Evil: 1' },
    });
    assert.equal(sender.statusCode, 200, sender.body);
    assert.equal(sender.json().sender_name, 'Acme Bcc: sender-spy@evil.example X-Evil: 1', 'stored as one line');
    const invited = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: { email: 'target@example.com', name: 'Eve\r\nBcc: name-spy@evil.example\nSubject: owned' },
    });
    assert.equal(invited.statusCode, 201, invited.body);
    await t.container.database.db.transaction().execute((trx) =>
      t.container.modules.use('mail').enqueue(trx, {
        tenantId: tenant.tenantId,
        kind: 'workflow_notification',
        to: 'target@example.com',
        data: { subject: 'Hi\r\nBcc: subject-spy@evil.example\r\n\r\nforged body', message: 'Plain message' },
        at: Date.now(),
      }),
    );
    const refused = await t.container.database.db.transaction().execute((trx) =>
      t.container.modules.use('mail').enqueue(trx, {
        tenantId: tenant.tenantId,
        kind: 'workflow_notification',
        to: 'a@example.com, list-spy@evil.example',
        data: { subject: 'x', message: 'y' },
        at: Date.now(),
      }),
    );
    assert.equal(refused.status, 'failed', 'two addresses in one recipient are refused, not split');

    const deadline = Date.now() + 10_000;
    while (
      smtp.received.filter((m) => m.envelope.to.includes('target@example.com')).length < 2 &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 25));
    const mails = smtp.received.filter((m) => m.envelope.to.includes('target@example.com'));
    assert.equal(mails.length, 2);
    for (const mail of mails) {
      assert.deepEqual(mail.envelope.to, ['target@example.com'], 'no other recipient on the envelope');
      const header = mail.raw.slice(0, mail.raw.indexOf('\r\n\r\n'));
      assert.doesNotMatch(header, /^(bcc|x-evil|cc):/im, header);
      assert.equal(mail.parsed.bcc, undefined);
      assert.equal(mail.parsed.headers.get('x-evil'), undefined);
      assert.deepEqual(mail.parsed.from?.value, [
        { address: 'docs@mail.example.test', name: 'Acme Bcc: sender-spy@evil.example X-Evil: 1' },
      ]);
    }
    const subjects = mails.map((m) => m.parsed.subject).sort();
    assert.deepEqual(subjects, [
      'Hi Bcc: subject-spy@evil.example forged body',
      'You are invited to Injected Bcc: tenant-spy@evil.example on DocuVault',
    ]);
    assert.ok(
      !smtp.received.some((m) => m.envelope.to.some((to) => to.endsWith('@evil.example'))),
      'nothing went to an injected address',
    );
  });
});

describeWithSmtp(
  'mail over SMTP without trusting the relay’s certificate',
  (ctx) => {
    it('a relay whose certificate is not trusted gets nothing: the mail waits with the TLS error', async () => {
      const { t, smtp } = ctx();
      const tenant = await createTenant(t);
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: tenant.headers,
        payload: { email: 'untrusted@example.com', name: 'U' },
      });
      const waiting = await adminMailTo(t, 'untrusted@example.com', (m) => m.status === 'retrying');
      assert.match(waiting.last_error, /certificate/i);
      assert.equal(smtp.received.length, 0);
    });
  },
  () => ({ OUTBOUND_EXTRA_CA_FILE: '', MAIL_RETRY_DELAYS: '60' }),
);
